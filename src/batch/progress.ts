/** The progress line of a batch: `312/1000 ✓298 ✗14 · 12/s · ETA 55s` (pure; output.ts draws it). */

export interface ProgressCounts {
  /** Items finished, this run and earlier runs (--resume) together. */
  done: number;
  total: number;
  succeeded: number;
  failed: number;
  /** Items finished by this run, and the milliseconds it has taken: the rate. */
  doneThisRun: number;
  elapsedMs: number;
}

export function formatDuration(seconds: number): string {
  const s = Math.max(0, Math.round(seconds));
  if (s < 60) return `${s}s`;
  if (s < 3600) return `${Math.floor(s / 60)}m${String(s % 60).padStart(2, '0')}s`;
  return `${Math.floor(s / 3600)}h${String(Math.floor((s % 3600) / 60)).padStart(2, '0')}m`;
}

export function formatRate(perSecond: number): string {
  if (perSecond >= 10) return `${Math.round(perSecond)}/s`;
  if (perSecond >= 1) return `${perSecond.toFixed(1)}/s`;
  return `${(perSecond * 60).toFixed(1)}/min`;
}

export function progressLine(c: ProgressCounts): string {
  const head = `${c.done}/${c.total} ✓${c.succeeded} ✗${c.failed}`;
  if (c.doneThisRun === 0 || c.elapsedMs <= 0) return head;
  const rate = c.doneThisRun / (c.elapsedMs / 1000);
  const left = c.total - c.done;
  return `${head} · ${formatRate(rate)}${left > 0 ? ` · ETA ${formatDuration(left / rate)}` : ''}`;
}
