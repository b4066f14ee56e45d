/**
 * The results journal (`--out results.ndjson`): one JSON line per finished item, appended with
 * one write() each, so a `kill -9` loses at most the items still running and the file never
 * holds half a result followed by more results. `--resume` reads it back and skips the items
 * that succeeded; failed items are tried again (their new line is appended after the old one).
 *
 * One run per journal: `<journal>.lock` (an owner lock, store/local/owner-lock.ts) is held while the
 * journal is open, so a second run on it is refused instead of both running and writing every
 * item. A run killed with -9 leaves the lock behind; its process is gone, so the next run takes it.
 */
import { closeSync, createReadStream, existsSync, fstatSync, openSync, readSync, realpathSync, statSync, writeSync } from 'node:fs';
import { createInterface } from 'node:readline';
import { VerityError } from '../api/errors.js';
import { describeOwner, takeOwnerLock } from '../store/local/owner-lock.js';
import type { ItemType } from './items.js';

/** One result line, on stdout and in the journal: the input it judged, then the outcome. */
export interface ResultLine {
  custom_id: string;
  index: number;
  line: number;
  type: ItemType;
  status: 'succeeded' | 'failed';
  result?: Record<string, unknown>;
  error?: { code: string; message: string; details?: Array<{ field: string; issue: string }> };
  /** The key the item was (or would be) sent with; the same for the same input on every run. */
  idempotency_key?: string;
}

/** What --resume needs of an earlier success: its id, and what the gates look at. */
export interface JournalEntry {
  status: 'succeeded' | 'failed';
  gateView?: Record<string, unknown>;
  error?: ResultLine['error'];
  line?: number;
  idempotency_key?: string;
}

/** The part of a result that --fail-on / --min-trust read (gates.ts outcomeValues). */
export function gateView(result: Record<string, unknown>): Record<string, unknown> {
  const v: Record<string, unknown> = {};
  for (const k of ['verdict', 'status', 'authenticity', 'manipulation_flags', 'trust_score']) if (result[k] !== undefined) v[k] = result[k];
  return v;
}

/**
 * The journal's entries by custom_id; the last line of an id wins. Lines that are not whole JSON
 * objects (a torn last line) are ignored: that item simply runs again. Streams the file, keeping
 * only ids and gate values, so a journal of 100,000 full results is read in bounded memory.
 */
export async function readJournal(path: string): Promise<Map<string, JournalEntry>> {
  const entries = new Map<string, JournalEntry>();
  if (!existsSync(path)) return entries;
  const rl = createInterface({ input: createReadStream(path, { encoding: 'utf8' }), crlfDelay: Infinity });
  for await (const text of rl) {
    if (!text.trim()) continue;
    let l: Partial<ResultLine>;
    try {
      l = JSON.parse(text) as Partial<ResultLine>;
    } catch {
      continue;
    }
    if (typeof l?.custom_id !== 'string' || (l.status !== 'succeeded' && l.status !== 'failed')) continue;
    entries.set(l.custom_id, {
      status: l.status,
      ...(l.status === 'succeeded' && l.result ? { gateView: gateView(l.result) } : {}),
      ...(l.error ? { error: l.error } : {}),
      ...(typeof l.line === 'number' ? { line: l.line } : {}),
      ...(typeof l.idempotency_key === 'string' ? { idempotency_key: l.idempotency_key } : {}),
    });
  }
  return entries;
}

export interface Journal {
  readonly path: string;
  /** Lines written by this run. */
  readonly written: number;
  append(line: ResultLine): void;
  close(): void;
}

/**
 * Opens the journal for appending. Without `resume` an existing non-empty journal is refused
 * (appending a second run to it would mix two runs); with it, a torn last line is closed off
 * with a newline so the next line starts clean.
 */
export function openJournal(path: string, resume: boolean): Journal {
  const release = lockJournal(path);
  try {
    return openLocked(path, resume, release);
  } catch (err) {
    release();
    throw err;
  }
}

/** Takes `<journal>.lock` (beside the real file when the path is a symbolic link), or refuses. */
function lockJournal(path: string): () => void {
  let real = path;
  try {
    real = realpathSync(path);
    // A device or pipe (`--out /dev/null`) holds no results to protect, and no lock goes beside it.
    if (!statSync(real).isFile()) return () => undefined;
  } catch {
    // not there yet: the path as given
  }
  let r: ReturnType<typeof takeOwnerLock>;
  try {
    r = takeOwnerLock(`${real}.lock`, { journal: real });
  } catch (err) {
    const code = (err as { code?: string }).code ?? 'error';
    throw new VerityError('VALIDATION_FAILED', `Cannot create the lock ${real}.lock beside the journal (${code})`, { details: [{ field: 'out', issue: 'folder not writable' }] });
  }
  if (!r.taken)
    throw new VerityError(
      'VALIDATION_FAILED',
      `${path} is in use by another batch run (${describeOwner(r.owner)}); wait for it to finish or stop it, then continue with --resume, or choose another --out file`,
      { details: [{ field: 'out', issue: 'in use by another run' }] },
    );
  return r.release;
}

function openLocked(path: string, resume: boolean, release: () => void): Journal {
  let size = 0;
  try {
    size = statSync(path).size;
  } catch {
    size = 0;
  }
  if (size > 0 && !resume)
    throw new VerityError('VALIDATION_FAILED', `${path} already holds results; add --resume to continue that batch, or choose another --out file`, {
      details: [{ field: 'out', issue: 'exists and is not empty (use --resume)' }],
    });
  let fd: number;
  try {
    fd = openSync(path, 'a+');
  } catch (err) {
    const code = (err as { code?: string }).code ?? 'error';
    throw new VerityError('VALIDATION_FAILED', `Cannot open ${path} for writing (${code})`, { details: [{ field: 'out', issue: 'not writable' }] });
  }
  const end = fstatSync(fd).size;
  if (end > 0) {
    const last = Buffer.alloc(1);
    readSync(fd, last, 0, 1, end - 1);
    if (last[0] !== 0x0a) writeSync(fd, '\n');
  }
  let written = 0;
  let open = true;
  return {
    path,
    get written() {
      return written;
    },
    append(line) {
      // One write per line: the line is in the kernel's hands when this returns.
      writeSync(fd, `${JSON.stringify(line)}\n`);
      written++;
    },
    close() {
      if (open) closeSync(fd);
      open = false;
      release();
    },
  };
}
