/**
 * The processes a test started, found through /proc (Linux): the analysis host a CLI or serve
 * process starts (cli/analysis-host.ts), so a test can check its settings and that it ends with
 * its parent. Elsewhere (no /proc) the helpers find nothing and the tests that need them say so.
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs';

const read = (f: string): string => {
  try {
    return readFileSync(f, 'utf8');
  } catch {
    return '';
  }
};

export const hasProc = existsSync('/proc/self/stat');

/** The pid of `parent`'s child whose command line contains `marker`, if there is one now. */
export function childWith(parent: number, marker: string): number | undefined {
  for (const e of readdirSync('/proc')) {
    if (!/^\d+$/.test(e)) continue;
    const stat = read(`/proc/${e}/stat`);
    const ppid = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
    if (ppid === parent && read(`/proc/${e}/cmdline`).includes(marker)) return Number(e);
  }
  return undefined;
}

/** Whether `pid` still runs (a zombie waiting to be reaped does not). */
export function running(pid: number): boolean {
  const stat = read(`/proc/${pid}/stat`);
  return stat !== '' && stat.slice(stat.lastIndexOf(')') + 2)[0] !== 'Z';
}

/** `pid`'s environment as it started. */
export function environOf(pid: number): Record<string, string> {
  return Object.fromEntries(
    read(`/proc/${pid}/environ`)
      .split('\0')
      .filter(Boolean)
      .map((kv) => [kv.slice(0, kv.indexOf('=')), kv.slice(kv.indexOf('=') + 1)]),
  );
}

/**
 * Whether `pid` stops running within `ms`. Asked right after the process closed its last file (a
 * pipe's end seen by the test): between that and its exit the kernel takes a moment, so this
 * looks again on each turn of the event loop until then, with `ms` only as a bound on a failure.
 */
export function ends(pid: number, ms = 5000): Promise<boolean> {
  return reaches(() => !running(pid), ms);
}

/** Whether `condition` (a look at /proc) holds within `ms`, looked at on each turn of the event loop. */
export async function reaches(condition: () => boolean, ms: number): Promise<boolean> {
  const until = performance.now() + ms;
  while (!condition()) {
    if (performance.now() > until) return false;
    await new Promise((r) => setImmediate(r));
  }
  return true;
}

/** CPU seconds `pid` has used (user + system; /proc/<pid>/stat counts 10 ms ticks). */
export function cpuSeconds(pid: number): number {
  const f = read(`/proc/${pid}/stat`).split(') ')[1]?.split(' ') ?? [];
  return (Number(f[11]) + Number(f[12])) / 100;
}
