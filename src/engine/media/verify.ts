import { VerityError } from '../../api/errors.js';
import type { MediaRequest } from '../../api/requests.js';
import type { MediaResult } from '../../api/results.js';
import type { Computed, EnginePorts, VerifyOptions } from '../types.js';

/** Live media verification is not built yet: say so plainly instead of inventing a result. */
export async function verifyMedia(_req: MediaRequest, _ports: EnginePorts, _opts: VerifyOptions): Promise<Computed<MediaResult>> {
  throw new VerityError(
    'UNAVAILABLE',
    'media verification is not available in live mode yet; use --test (or a test key) for sandbox results',
  );
}
