/**
 * Per-host request limits for outside sources, in one table (the HTTP layer enforces them).
 * Values follow each provider's published guidance; a source module may add its host here.
 */
import type { RateLimit } from './http.js';

export const SOURCE_RATE_LIMITS: Record<string, RateLimit> = {
  // Companies House: 600 requests per 5 minutes per key.
  'api.company-information.service.gov.uk': { requests: 600, windowMs: 300_000 },
  // SEC EDGAR fair access: at most 10 requests per second.
  'data.sec.gov': { requests: 10, windowMs: 1_000 },
  'www.sec.gov': { requests: 10, windowMs: 1_000 },
  // Semantic Scholar: 1 request per second (documented for keyed access; unkeyed is shared).
  'api.semanticscholar.org': { requests: 1, windowMs: 1_000 },
  // GDELT DOC 2.0 asks for no more than one request every five seconds.
  'api.gdeltproject.org': { requests: 1, windowMs: 5_000 },
  // GLEIF API: 60 requests per minute.
  'api.gleif.org': { requests: 60, windowMs: 60_000 },
  // Brave Search API: the free plan allows 1 query per second.
  'api.search.brave.com': { requests: 1, windowMs: 1_000 },
};
