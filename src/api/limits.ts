/**
 * The request limits of the contract (SPEC 4), without zod: the CLI checks files against them
 * before any analysis, and importing requests.ts for them would build every request schema at
 * start-up. requests.ts builds its schemas with these and re-exports them.
 */
export const LIMITS = {
  claimChars: 2000,
  maxEvidenceMin: 1,
  maxEvidenceMax: 20,
  maxEvidenceDefault: 5,
  jsonBodyBytes: 30 * 1024 * 1024,
  fileBytes: 20 * 1024 * 1024,
  megapixels: 100,
  pdfPages: 2000,
  rawTextBytes: 1024 * 1024,
  urlTimeoutMs: 15_000,
} as const;
