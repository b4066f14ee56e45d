/**
 * Values that depend on the user's data or on the kind of command, for the completion scripts:
 * they run `verity __complete SOURCE CURRENT-WORD` and offer its lines. Everything here is local
 * and fast (the config file, the embedded store if it exists); nothing goes to the network.
 */
import { existsSync } from 'node:fs';
import { BUSINESS_SOURCES, CLAIM_SOURCES_EXT } from '../../api/enums.js';
import { FAIL_ON_VALUES, type GateKind } from '../../api/gates.js';
import type { CliRuntime } from '../runtime.js';

export const DYNAMIC_SOURCES = [
  'keys',
  'profiles',
  'webhooks',
  'config-keys',
  ...(Object.keys(FAIL_ON_VALUES) as GateKind[]).map((k) => `fail-on:${k}`),
  // `verify batch` may mix kinds: every kind's values.
  'fail-on:batch',
  'sources:claim',
  'sources:business',
] as const;
export type DynamicSource = (typeof DYNAMIC_SOURCES)[number];

/** Comma-separated lists (`--fail-on a,b`): complete the last item, keeping what was typed before it. */
function listItems(all: readonly string[], current: string): string[] {
  const cut = current.lastIndexOf(',');
  const before = current.slice(0, cut + 1);
  const chosen = new Set(before.split(',').filter(Boolean));
  return all.filter((v) => !chosen.has(v)).map((v) => `${before}${v}`);
}

export async function completionValues(rt: CliRuntime, source: string, current: string): Promise<string[]> {
  let values: string[] = [];
  if (source === 'keys') values = Object.keys(rt.config().keys);
  else if (source === 'profiles') values = [...new Set(['default', ...Object.keys(rt.config().profiles)])];
  else if (source === 'config-keys') {
    const { SETTINGS } = await import('../commands/config-settings.js');
    const profiles = Object.keys(rt.config().profiles);
    values = SETTINGS.flatMap((s) => (s.path.includes('<name>') ? profiles.map((p) => s.path.replace('<name>', p)) : [s.path]));
  } else if (source === 'webhooks') {
    // The embedded registry only, and only if the store exists: completion never creates it.
    if (existsSync(rt.ctx.paths.storeFile)) {
      const { embeddedRegistry } = await import('../webhooks-embedded.js');
      const reg = await embeddedRegistry(rt.ctx.paths, rt.ctx.interrupted);
      try {
        values = (await reg.list()).map((w) => w.id);
      } finally {
        reg.close();
      }
    }
  } else if (source === 'fail-on:batch') return listItems([...new Set(Object.values(FAIL_ON_VALUES).flat())], current);
  else if (source.startsWith('fail-on:')) return listItems(FAIL_ON_VALUES[source.slice(8) as GateKind] ?? [], current);
  else if (source === 'sources:claim') return listItems(CLAIM_SOURCES_EXT, current);
  else if (source === 'sources:business') return listItems(BUSINESS_SOURCES, current);
  return values.filter((v) => v.startsWith(current)).sort();
}
