/** Waits as people read them: "retry in 58 min (at 21:14)" rather than "retry in 3500 s". */

/** 45 s, 12 min, 1 h 5 min, 2 d 3 h: the two largest units, rounded up so nobody retries early. */
export function humanDuration(seconds: number): string {
  const s = Math.max(0, Math.ceil(seconds));
  if (s < 90) return `${s} s`;
  const min = Math.ceil(s / 60);
  if (min < 60) return `${min} min`;
  const h = Math.floor(min / 60);
  const restMin = min % 60;
  if (h < 24) return restMin ? `${h} h ${restMin} min` : `${h} h`;
  const d = Math.floor(h / 24);
  const restH = h % 24;
  return restH ? `${d} d ${restH} h` : `${d} d`;
}

/** The wall-clock time a wait ends, in local time: "21:14", or "28 Nov 21:14" past today. */
export function clockTime(now: Date, seconds: number): string {
  // Rounded up to the minute, like the duration: "at 21:15" for 21:14:20, never too early.
  const at = new Date(Math.ceil((now.getTime() + Math.ceil(seconds) * 1000) / 60_000) * 60_000);
  const hhmm = `${String(at.getHours()).padStart(2, '0')}:${String(at.getMinutes()).padStart(2, '0')}`;
  if (at.toDateString() === now.toDateString()) return hhmm;
  const month = at.toLocaleString('en-GB', { month: 'short' });
  return `${at.getDate()} ${month} ${hhmm}`;
}

/** "retry in 58 min (at 21:14)"; a short wait needs no clock time. */
export function retryIn(seconds: number, now: Date): string {
  return seconds < 90 ? `retry in ${humanDuration(seconds)}` : `retry in ${humanDuration(seconds)} (at ${clockTime(now, seconds)})`;
}
