/**
 * The enumerated values of the contract (SPEC sections 2, 3, 4 and 6.1), without zod, so code that
 * only needs the values (CLI flags, gates, the sandbox) does not build every schema at start-up.
 * results.ts, requests.ts and webhooks.ts build their schemas from these lists.
 */
export const VERDICTS = ['true', 'false', 'unverifiable', 'conflicting'] as const;
export const COMPANY_STATUSES = ['active', 'dissolved', 'liquidation', 'inactive'] as const;
export const AUTHENTICITIES = ['authentic', 'likely_authentic', 'suspicious', 'manipulated'] as const;
export const MANIPULATION_FLAGS = [
  'ai_generated_text',
  'image_manipulated',
  'metadata_stripped',
  'deepfake',
  'inconsistent_timestamps',
  'signature_forgery',
] as const;
export type Verdict = (typeof VERDICTS)[number];
export type CompanyStatus = (typeof COMPANY_STATUSES)[number];
export type Authenticity = (typeof AUTHENTICITIES)[number];
export type ManipulationFlag = (typeof MANIPULATION_FLAGS)[number];

/** SPEC 4.1: the five claim sources. `local` (the user's own corpora) is our additive extension. */
export const CLAIM_SOURCES = ['web', 'wikipedia', 'google_fact_check', 'semantic_scholar', 'gdelt'] as const;
export const CLAIM_SOURCES_EXT = [...CLAIM_SOURCES, 'local'] as const;
export type ClaimSource = (typeof CLAIM_SOURCES_EXT)[number];

/** SPEC 4.2 names `companies_house` and `sec_edgar`; the full list is ours (DESIGN.md). */
export const BUSINESS_SOURCES = ['companies_house', 'sec_edgar', 'gleif', 'opencorporates'] as const;
export type BusinessSource = (typeof BUSINESS_SOURCES)[number];

export const DOCUMENT_SOURCES = ['url', 'upload', 'raw'] as const;

/** SPEC 6.1 event types. */
export const EVENT_TYPES = [
  'verification.completed',
  'verification.failed',
  'batch.completed',
  'batch.partial',
  'credit.threshold',
] as const;
export type EventType = (typeof EVENT_TYPES)[number];
