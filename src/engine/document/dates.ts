/**
 * Timestamp consistency rules shared by PDF and DOCX (SPEC flag `inconsistent_timestamps`):
 * modification before creation, dates in the future, dates before the format existed, and two
 * records of the same moment (PDF Info vs XMP, DOCX core.xml vs app.xml) that disagree.
 */
import type { ConsistencyCheck, Finding } from './report.js';

/** Clock skew and rounding tolerated between two records of the same instant. */
export const SAME_INSTANT_TOLERANCE_MS = 60_000;
/** "In the future" means beyond this much ahead of the engine's clock (time-zone slop). */
export const FUTURE_TOLERANCE_MS = 24 * 3600_000;

export const isoOrNull = (t: string | null | undefined): string | null => {
  if (!t) return null;
  const ms = Date.parse(t);
  return Number.isNaN(ms) ? null : new Date(ms).toISOString();
};

export function checkOrder(source: string, created: string | null, modified: string | null, labels: [string, string]): { finding?: Finding; check?: ConsistencyCheck } {
  if (!created || !modified) return {};
  const c = Date.parse(created), m = Date.parse(modified);
  const agrees = m + SAME_INSTANT_TOLERANCE_MS >= c;
  if (agrees) return { check: { name: `${labels[1]} not before ${labels[0]}`, agrees } };
  return {
    check: { name: `${labels[1]} not before ${labels[0]}`, agrees },
    finding: {
      source,
      finding: `${labels[1]} ${modified} is ${humanDelta(c - m)} before ${labels[0]} ${created}: a file cannot be modified before it was created`,
      authority: 0.7,
      flag: 'inconsistent_timestamps',
      severity: 0.5,
    },
  };
}

export function checkFuture(source: string, label: string, when: string | null, now: Date): Finding | undefined {
  if (!when) return undefined;
  const t = Date.parse(when);
  if (t - now.getTime() <= FUTURE_TOLERANCE_MS) return undefined;
  return {
    source,
    finding: `${label} ${when} is ${humanDelta(t - now.getTime())} after the time of analysis (${now.toISOString()})`,
    authority: 0.7,
    flag: 'inconsistent_timestamps',
    severity: 0.5,
  };
}

export function checkTooEarly(source: string, label: string, when: string | null, earliest: string, format: string): Finding | undefined {
  if (!when || Date.parse(when) >= Date.parse(earliest)) return undefined;
  return { source, finding: `${label} ${when} predates the ${format} format (${earliest.slice(0, 10)})`, authority: 0.6, flag: 'inconsistent_timestamps', severity: 0.35 };
}

/** Two records of the same instant; a whole-hours difference is most likely a time-zone bug. */
export function checkSame(source: string, a: { label: string; value: string | null }, b: { label: string; value: string | null }): { finding?: Finding; check?: ConsistencyCheck } {
  if (!a.value || !b.value) return {};
  const d = Math.abs(Date.parse(a.value) - Date.parse(b.value));
  const name = `${a.label} = ${b.label}`;
  if (d <= SAME_INSTANT_TOLERANCE_MS) return { check: { name, agrees: true } };
  const wholeHours = d % 3600_000 === 0 && d <= 14 * 3600_000;
  return {
    check: { name, agrees: false },
    finding: {
      source,
      finding: `${a.label} ${a.value} and ${b.label} ${b.value} differ by ${humanDelta(d)}${wholeHours ? ' (a whole number of hours: possibly a time-zone error)' : ''}; one record was changed without the other`,
      authority: 0.65,
      flag: 'inconsistent_timestamps',
      severity: wholeHours ? 0.2 : 0.45,
    },
  };
}

export function humanDelta(ms: number): string {
  const a = Math.abs(ms);
  if (a < 120_000) return `${Math.round(a / 1000)} s`;
  if (a < 2 * 3600_000) return `${Math.round(a / 60_000)} min`;
  if (a < 3 * 86_400_000) return `${(a / 3600_000).toFixed(1)} h`;
  return `${Math.round(a / 86_400_000)} days`;
}
