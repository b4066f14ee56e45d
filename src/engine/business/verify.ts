import { VerityError } from '../../api/errors.js';
import type { BusinessRequest } from '../../api/requests.js';
import type { BusinessResult } from '../../api/results.js';
import type { Computed, EnginePorts, VerifyOptions } from '../types.js';

/** Live business verification is not built yet: say so plainly instead of inventing a result. */
export async function verifyBusiness(_req: BusinessRequest, _ports: EnginePorts, _opts: VerifyOptions): Promise<Computed<BusinessResult>> {
  throw new VerityError(
    'UNAVAILABLE',
    'business verification is not available in live mode yet; use --test (or a test key) for sandbox results',
  );
}
