import { VerityError } from '../../api/errors.js';
import type { DocumentRequest } from '../../api/requests.js';
import type { DocumentResult } from '../../api/results.js';
import type { Computed, EnginePorts, VerifyOptions } from '../types.js';

/** Live document verification is not built yet: say so plainly instead of inventing a result. */
export async function verifyDocument(_req: DocumentRequest, _ports: EnginePorts, _opts: VerifyOptions): Promise<Computed<DocumentResult>> {
  throw new VerityError(
    'UNAVAILABLE',
    'document verification is not available in live mode yet; use --test (or a test key) for sandbox results',
  );
}
