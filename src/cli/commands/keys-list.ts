import { redactKey } from '../../config/schema.js';
import { keyDigest, readKeyUsage } from '../key-usage.js';
import type { CliRuntime } from '../runtime.js';

export interface KeyRow {
  name: string;
  environment: 'live' | 'test';
  /** Prefix and last four characters only (DESIGN.md): never the whole key. */
  key: string;
  added_at: string;
  last_used_at: string | null;
  active: boolean;
}

export function keyRows(rt: CliRuntime): KeyRow[] {
  const cfg = rt.config();
  const usage = readKeyUsage(rt.ctx.paths.dataDir);
  const activeName = cfg.profiles[rt.profileName()]?.key;
  return Object.entries(cfg.keys)
    .sort(([a], [b]) => a.localeCompare(b))
    .map(([name, k]) => ({
      name,
      environment: k.environment,
      key: redactKey(k.value),
      added_at: k.added_at,
      last_used_at: usage[keyDigest(k.value)] ?? k.last_used_at ?? null,
      active: name === activeName,
    }));
}

/** "3 min ago"-style ages read faster than timestamps; --json keeps the exact ISO time. */
export function ago(iso: string | null, now: Date): string {
  if (!iso) return 'never';
  const s = Math.max(0, Math.round((now.getTime() - Date.parse(iso)) / 1000));
  if (!Number.isFinite(s)) return iso;
  if (s < 60) return 'just now';
  if (s < 3600) return `${Math.floor(s / 60)} min ago`;
  if (s < 86_400) return `${Math.floor(s / 3600)} h ago`;
  if (s < 60 * 86_400) return `${Math.floor(s / 86_400)} days ago`;
  return iso.slice(0, 10);
}

export default async function keysList(rt: CliRuntime): Promise<void> {
  const rows = keyRows(rt);
  if (rt.out.machine) return rt.out.jsonList(rows);
  if (rt.ctx.env.VERITY_API_KEY) rt.out.info('note: VERITY_API_KEY is set and is used instead of the stored keys');
  if (rows.length === 0) {
    rt.out.info('No keys stored. Add one with: verity keys add NAME');
    return;
  }
  const s = rt.out.style;
  const now = rt.ctx.clock.now();
  const table = [
    ['', 'NAME', 'ENVIRONMENT', 'KEY', 'ADDED', 'LAST USED'],
    ...rows.map((r) => [r.active ? '*' : '', r.name, r.environment, r.key, r.added_at.slice(0, 10), ago(r.last_used_at, now)]),
  ];
  const widths = table[0]!.map((_, c) => Math.max(...table.map((row) => row[c]!.length)));
  const lines = table.map((row, i) => {
    const text = row.map((cell, c) => cell.padEnd(widths[c]!)).join('  ').trimEnd();
    if (i === 0) return s.dim(text);
    return rows[i - 1]!.active ? s.green(text) : text;
  });
  rt.out.print(lines.join('\n'));
  rt.out.info(s.dim(`* active for profile "${rt.profileName()}"`));
}
