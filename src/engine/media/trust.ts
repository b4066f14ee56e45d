/**
 * C2PA trust anchors from configuration (`c2pa.trust_anchors`): a path to a PEM bundle, or the
 * PEM text itself. Read once per path. Without anchors, valid manifests are reported as valid with
 * an unknown signer, never as trusted.
 */
import { readFileSync } from 'node:fs';
import type { EngineConfig } from '../types.js';

const cache = new Map<string, string | null>();

export function loadTrustAnchors(config: EngineConfig, warnings: string[]): string | undefined {
  const v = config.c2pa?.trust_anchors;
  if (!v) return undefined;
  if (v.includes('-----BEGIN')) return v;
  if (!cache.has(v)) {
    try {
      const pem = readFileSync(v, 'utf8');
      cache.set(v, pem.includes('-----BEGIN CERTIFICATE-----') ? pem : null);
    } catch {
      cache.set(v, null);
    }
  }
  const pem = cache.get(v);
  if (!pem) {
    warnings.push(`c2pa.trust_anchors (${v}) is not a readable PEM certificate bundle; signers are reported as unknown`);
    return undefined;
  }
  return pem;
}
