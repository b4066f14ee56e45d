/**
 * An owner lock file: `<path>` created exclusively (O_EXCL), holding who owns it as JSON — the
 * PID, when and how the process was started. Used where one process at a time may own a file:
 * `verity serve` on a SQLite database (serve-lock.ts) and a batch run on its `--out` journal.
 *
 * Node has no OS file lock (flock/fcntl), so ownership is decided by liveness: a lock whose
 * process no longer runs (killed with -9, the machine restarted) is stale and taken over, so a
 * crash never blocks the next run. Where /proc exists the owner's start time (in clock ticks
 * since boot) is recorded too, so a PID reused by an unrelated process after a crash does not
 * keep a dead owner's lock alive.
 *
 * The lock is local to this machine: a PID on another host cannot be checked.
 */
import { closeSync, openSync, readFileSync, statSync, unlinkSync, writeSync } from 'node:fs';
import { hostname } from 'node:os';
import { randomBytes } from 'node:crypto';

export interface LockOwner {
  pid: number;
  started_at?: string;
  /** The owner's start time in clock ticks since boot (/proc/PID/stat field 22), where known. */
  proc_start?: string;
  host?: string;
  /** How the owner was started (its command line, credentials masked). */
  command?: string;
  /** Random, per lock taken: tells this lock from an earlier one of the same PID. */
  token?: string;
  [extra: string]: unknown;
}

/** The tokens of the locks this process holds. */
const heldHere = new Set<string>();

export type OwnerLockResult = { taken: true; release(): void } | { taken: false; owner: LockOwner };

/** Field 22 of /proc/PID/stat (after the parenthesised command, which may hold spaces). */
function procStart(pid: number | 'self'): string | undefined {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return stat.slice(stat.lastIndexOf(')') + 2).split(' ')[19];
  } catch {
    return undefined;
  }
}

function running(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    // EPERM: it exists but belongs to someone else — still running.
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/** Whether the recorded owner still runs: its PID is alive and (where /proc tells) is the same process. */
export function ownerAlive(owner: LockOwner): boolean {
  // Our own PID: a lock this process holds, or one left by an earlier process that had our PID
  // (a container restarted), which is stale.
  if (owner.pid === process.pid) return heldHere.has(String(owner.token));
  if (!running(owner.pid)) return false;
  const now = owner.proc_start === undefined ? undefined : procStart(owner.pid);
  return now === undefined || now === owner.proc_start;
}

const SECRET_FLAG = /^--?(key|api-key|token|secret|password)(=|$)/i;
/** This process's command line for the lock record: keys and URL credentials masked. */
export function describeCommand(argv: readonly string[] = process.argv.slice(2)): string {
  const out: string[] = ['verity'];
  let maskNext = false;
  for (const a of argv) {
    if (maskNext) {
      out.push('[redacted]');
      maskNext = false;
      continue;
    }
    const m = SECRET_FLAG.exec(a);
    if (m) {
      if (m[2] === '=') out.push(`${a.slice(0, a.indexOf('=') + 1)}[redacted]`);
      else (out.push(a), (maskNext = true));
      continue;
    }
    out.push(a.replace(/vty_(live|test)_[0-9A-Za-z]*/g, 'vty_$1_[redacted]').replace(/(\w+:\/\/)[^/@\s]*@/g, '$1[redacted]@'));
  }
  return out.join(' ').slice(0, 300);
}

/** The owner recorded in a lock file; undefined when it is gone, unreadable or not an owner record. */
export function readLockOwner(path: string): LockOwner | undefined {
  try {
    if (statSync(path).size > 64 * 1024) return undefined;
    const o = JSON.parse(readFileSync(path, 'utf8')) as LockOwner;
    return o && typeof o === 'object' && Number.isInteger(o.pid) && o.pid > 0 ? o : undefined;
  } catch {
    return undefined; // gone, unreadable or half-written (its owner died while writing it)
  }
}

/**
 * Takes the lock at `path`, or says who holds it. `stale(owner)` may call a live owner's lock
 * stale anyway (serve-lock: the lock names another file). Released on `release()` and at exit.
 */
export function takeOwnerLock(path: string, extra: Record<string, unknown> = {}, stale: (owner: LockOwner) => boolean = () => false): OwnerLockResult {
  const me: LockOwner = {
    pid: process.pid,
    started_at: new Date().toISOString(),
    ...(procStart('self') !== undefined ? { proc_start: procStart('self') } : {}),
    host: hostname(),
    command: describeCommand(),
    token: randomBytes(8).toString('hex'),
    ...extra,
  };
  for (let tries = 0; tries < 5; tries++) {
    let fd: number;
    try {
      fd = openSync(path, 'wx', 0o600);
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
      const owner = readLockOwner(path);
      if (owner && ownerAlive(owner) && !stale(owner)) return { taken: false, owner };
      try {
        unlinkSync(path); // stale: its process is gone
      } catch (e) {
        if ((e as NodeJS.ErrnoException).code !== 'ENOENT') throw e;
      }
      continue;
    }
    try {
      writeSync(fd, JSON.stringify(me));
    } finally {
      closeSync(fd);
    }
    // Two processes taking over one stale lock at once: one whose record is no longer in the
    // file lost (the other unlinked and replaced it) and tries again, meeting the winner. This
    // narrows that race to the moment between the other's read and unlink; it does not close it.
    const now = readLockOwner(path);
    if (!now || now.token !== me.token) continue;
    heldHere.add(me.token!);
    let released = false;
    const release = (): void => {
      if (released) return;
      released = true;
      heldHere.delete(me.token!);
      process.off('exit', release);
      // Only our own record is removed: a lock taken over meanwhile belongs to someone else.
      const cur = readLockOwner(path);
      if (cur && cur.token !== me.token) return;
      try {
        unlinkSync(path);
      } catch {
        // already gone
      }
    };
    process.on('exit', release);
    return { taken: true, release };
  }
  const owner = readLockOwner(path);
  if (owner) return { taken: false, owner };
  throw new Error(`could not take the lock ${path}: other processes keep taking it over`);
}

/** "PID 123 (`verity serve --db x`), started 2026-…": the owner as a person reads it. */
export function describeOwner(owner: LockOwner): string {
  const how = owner.command ? ` (\`${owner.command}\`)` : '';
  const host = owner.host && owner.host !== hostname() ? ` on host ${owner.host}` : '';
  return `PID ${owner.pid}${host}${how}, started ${owner.started_at ?? 'at an unknown time'}`;
}
