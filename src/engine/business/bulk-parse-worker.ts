/**
 * Worker thread of the registry CSV importers (bulk-import.ts): reads and parses the file and
 * computes the name keys while the importing thread writes to SQLite, so the two costs overlap
 * on separate cores. At most WORKER_AHEAD batches are unacknowledged, so memory stays bounded
 * when SQLite is the slower side.
 */
import { createReadStream } from 'node:fs';
import { parentPort, workerData } from 'node:worker_threads';
import { VerityError } from '../../api/errors.js';
import { WORKER_AHEAD, parseRegistryCsv, type RegistryDataset } from './bulk-import.js';

const { path, dataset, label } = workerData as { path: string; dataset: RegistryDataset; label: string };
const port = parentPort!;
let credits = WORKER_AHEAD;
let wake: (() => void) | null = null;
port.on('message', (m) => {
  if (m !== 'ack') return;
  credits++;
  wake?.();
  wake = null;
});

try {
  for await (const batch of parseRegistryCsv(createReadStream(path, { highWaterMark: 1 << 20 }), dataset, label)) {
    while (credits === 0) await new Promise<void>((r) => (wake = r));
    credits--;
    port.postMessage({ type: 'batch', batch });
  }
  port.postMessage({ type: 'end' });
} catch (err) {
  // Only the catalogue code and message cross back; the importer rethrows them as a VerityError.
  port.postMessage(
    err instanceof VerityError
      ? { type: 'error', code: err.code, message: err.message }
      : { type: 'error', code: 'UNPROCESSABLE_CONTENT', message: `${label} could not be read: ${err instanceof Error ? err.message : String(err)}` },
  );
}
port.removeAllListeners('message');
