/**
 * The marker file that says an embedded webhook is registered: written by the registry
 * (webhooks-embedded.ts), read by the hook `verity verify` calls (embedded-hook.ts), so the hook
 * can stay a single stat() without loading the registry.
 */
import { join } from 'node:path';

export const markerFile = (dataDir: string): string => join(dataDir, 'webhooks.enabled');
