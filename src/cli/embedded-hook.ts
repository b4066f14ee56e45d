/**
 * The one call `verity verify` makes into webhooks. It must cost nothing when no embedded webhook
 * is registered: a marker file in the data folder exists iff one is, so the common case is a
 * single stat() and SQLite is never opened (start-up time is benchmarked).
 */
import { existsSync } from 'node:fs';
import type { VerityPaths } from '../config/paths.js';
import type { Output } from '../output/output.js';
import { markerFile } from './webhook-marker.js';

/** Embedded mode: enqueue verification.completed and try the first attempt (bounded wait). */
export async function emitEmbeddedWebhooks(
  paths: VerityPaths,
  mode: 'embedded' | 'remote',
  result: object,
  out: Output,
  signal: AbortSignal,
): Promise<void> {
  if (mode !== 'embedded' || !existsSync(markerFile(paths.dataDir))) return;
  const { deliverVerificationEvent } = await import('./webhooks-embedded.js');
  await deliverVerificationEvent(paths, result, out, signal);
}
