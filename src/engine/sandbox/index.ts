/**
 * The sandbox (SPEC 5.2 "simulated data"): deterministic results for all four operations, no
 * network, and documented triggers that reach every enum value (README "Sandbox triggers").
 */
import type { Operations } from '../types.js';
import { sandboxBusiness } from './business.js';
import { sandboxClaim } from './claim.js';
import { sandboxDocument } from './document.js';
import { sandboxMedia } from './media.js';

export const sandboxOperations: Operations = {
  claim: async (req) => sandboxClaim(req),
  business: async (req, _ports, opts) => sandboxBusiness(req, opts),
  media: (req) => sandboxMedia(req),
  document: (req) => sandboxDocument(req),
};
