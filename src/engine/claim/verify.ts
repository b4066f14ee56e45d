import { VerityError } from '../../api/errors.js';
import type { ClaimRequest } from '../../api/requests.js';
import type { ClaimResult } from '../../api/results.js';
import type { Computed, EnginePorts, VerifyOptions } from '../types.js';

/** Live claim verification is not built yet: say so plainly instead of inventing a result. */
export async function verifyClaim(_req: ClaimRequest, _ports: EnginePorts, _opts: VerifyOptions): Promise<Computed<ClaimResult>> {
  throw new VerityError(
    'UNAVAILABLE',
    'claim verification is not available in live mode yet; use --test (or a test key) for sandbox results',
  );
}
