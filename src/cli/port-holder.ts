/**
 * Who holds a TCP port, for the "port already in use" error: on Linux, /proc/net/tcp{,6} gives the
 * listening socket's inode and /proc/PID/fd links name the process that owns it (only processes
 * this user may read: another user's process stays unnamed). Elsewhere, or when anything is
 * unreadable, undefined: the error is then said without a name. Bounded: at most 4096 processes.
 */
import { readdirSync, readFileSync, readlinkSync } from 'node:fs';

const LISTEN = '0A';

function listeningInodes(port: number): Set<string> {
  const inodes = new Set<string>();
  const hexPort = port.toString(16).toUpperCase().padStart(4, '0');
  for (const file of ['/proc/net/tcp', '/proc/net/tcp6']) {
    let text: string;
    try {
      text = readFileSync(file, 'utf8');
    } catch {
      continue;
    }
    for (const line of text.split('\n').slice(1)) {
      const cols = line.trim().split(/\s+/);
      // sl local_address rem_address st tx:rx tr:when retrnsmt uid timeout inode
      if (cols.length < 10 || cols[3] !== LISTEN) continue;
      if (cols[1]!.split(':')[1] === hexPort) inodes.add(cols[9]!);
    }
  }
  return inodes;
}

/** "pid 4242 (node)" for the process listening on `port`, when this machine can tell. */
export function portHolder(port: number): string | undefined {
  if (process.platform !== 'linux' || !port) return undefined;
  const inodes = listeningInodes(port);
  if (!inodes.size) return undefined;
  let pids: string[];
  try {
    pids = readdirSync('/proc').filter((d) => /^\d+$/.test(d)).slice(0, 4096);
  } catch {
    return undefined;
  }
  for (const pid of pids) {
    let fds: string[];
    try {
      fds = readdirSync(`/proc/${pid}/fd`);
    } catch {
      continue;
    }
    for (const fd of fds) {
      let link: string;
      try {
        link = readlinkSync(`/proc/${pid}/fd/${fd}`);
      } catch {
        continue;
      }
      const m = /^socket:\[(\d+)\]$/.exec(link);
      if (m && inodes.has(m[1]!)) {
        let name = '';
        try {
          name = readFileSync(`/proc/${pid}/comm`, 'utf8').trim();
        } catch {
          // the name is a courtesy
        }
        return name ? `pid ${pid} (${name})` : `pid ${pid}`;
      }
    }
  }
  return undefined;
}

/** The "already in use" error text and hint for serve and listen. */
export function portInUse(host: string, port: number, flagHint = '--port'): { message: string; hint: string } {
  const holder = portHolder(port);
  return {
    message: `Port ${port} on ${host} is already in use${holder ? ` by ${holder}` : ''}`,
    hint: `stop that process, or pick another port with ${flagHint} (${flagHint} 0 picks a free one)`,
  };
}
