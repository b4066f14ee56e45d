import { z } from 'zod';
import { BUSINESS_SOURCES, CLAIM_SOURCES_EXT, DOCUMENT_SOURCES } from './enums.js';
import { ISO_639_1 } from './languages.js';
import { LIMITS } from './limits.js';

// The source lists live in enums.ts (no zod), so the CLI's command tree can name them without
// building these schemas at start-up; re-exported here for the request's other users.
export { BUSINESS_SOURCES, CLAIM_SOURCES, CLAIM_SOURCES_EXT, DOCUMENT_SOURCES } from './enums.js';
export type { BusinessSource, ClaimSource } from './enums.js';

// The request limits live in limits.ts (no zod), for the CLI's file reading; re-exported here.
export { LIMITS } from './limits.js';

const codePoints = (s: string): number => {
  let n = 0;
  for (const _ of s) n++;
  return n;
};

// Base64 as sent in JSON: standard alphabet, optional padding; line breaks tolerated (MIME style).
const BASE64 = /^[A-Za-z0-9+/\r\n]*={0,2}[\r\n]*$/;
const base64String = z
  .string()
  .min(1, 'must not be empty')
  .refine((s) => BASE64.test(s), 'must be base64-encoded data');

const httpUrl = z
  .string()
  .min(1)
  .refine((s) => {
    try {
      const u = new URL(s);
      return u.protocol === 'http:' || u.protocol === 'https:';
    } catch {
      return false;
    }
  }, 'must be an http(s) URL');

/**
 * A `sources` list: each known source at most once, so the list is bounded by the known values
 * (an uncapped array of 1,000,000 entries was accepted and answered before).
 */
function sourceList<const T extends readonly [string, ...string[]]>(known: T) {
  return z
    .array(z.enum(known))
    .min(1, 'must name at least one source')
    .max(known.length, `lists at most the ${known.length} sources (${known.join(', ')})`)
    .refine((a) => new Set(a).size === a.length, 'must not list a source twice')
    .optional();
}

export const ClaimRequest = z
  .object({
    claim: z
      .string()
      .refine((s) => s.trim().length > 0, 'must not be empty')
      .refine((s) => codePoints(s) <= LIMITS.claimChars, `must be at most ${LIMITS.claimChars} characters`),
    sources: sourceList(CLAIM_SOURCES_EXT),
    language: z
      .string()
      .refine((s) => ISO_639_1.has(s), 'must be an ISO 639-1 language code such as "en"')
      .default('en'),
    max_evidence: z
      .number()
      .int('must be an integer')
      .min(LIMITS.maxEvidenceMin, 'must be between 1 and 20')
      .max(LIMITS.maxEvidenceMax, 'must be between 1 and 20')
      .default(LIMITS.maxEvidenceDefault),
  })
  .strict();

/**
 * SPEC 4.2 jurisdiction: ISO 3166-2 style, lowercase, underscore before the subdivision:
 * `gb`, `us_de`, `ca_bc`. Subdivision codes are 1–3 alphanumerics (ISO 3166-2).
 */
export const JURISDICTION = /^[a-z]{2}(_[a-z0-9]{1,3})?$/;

export const BusinessRequest = z
  .object({
    company_name: z
      .string()
      .refine((s) => s.trim().length > 0, 'must not be empty')
      .refine((s) => s.length <= 300, 'must be at most 300 characters'),
    jurisdiction: z
      .string()
      .regex(JURISDICTION, 'must be a lowercase ISO 3166-2 style code such as "gb" or "us_de"')
      .optional(),
    registration_number: z
      .string()
      .refine((s) => s.trim().length > 0 && s.length <= 64, 'must be 1 to 64 characters')
      .optional(),
    officers: z.boolean().default(false),
    filings: z.boolean().default(false),
    sources: sourceList(BUSINESS_SOURCES),
  })
  .strict();

export const MediaRequest = z
  .object({
    url: httpUrl.optional(),
    file: base64String.optional(),
    check_deepfakes: z.boolean().default(true),
    check_provenance: z.boolean().default(true),
    check_watermarks: z.boolean().default(true),
  })
  .strict()
  .superRefine((r, ctx) => {
    if (r.url === undefined && r.file === undefined)
      ctx.addIssue({ code: 'custom', path: ['url'], message: 'one of `url` or `file` is required' });
    if (r.url !== undefined && r.file !== undefined)
      ctx.addIssue({ code: 'custom', path: ['file'], message: 'give either `url` or `file`, not both' });
  });

export const DocumentRequest = z
  .object({
    source: z.enum(DOCUMENT_SOURCES),
    content: z.string().min(1, 'must not be empty'),
    mime_type: z
      .string()
      .regex(/^[a-z0-9][a-z0-9!#$&^_.+-]*\/[a-z0-9][a-z0-9!#$&^_.+-]*$/i, 'must be a MIME type such as "application/pdf"')
      .optional(),
    check_deepfakes: z.boolean().default(true),
    // SPEC leaves the default open; DESIGN.md: on, since watermark detection is cheap and offline.
    check_watermarks: z.boolean().default(true),
  })
  .strict()
  .superRefine((r, ctx) => {
    if (r.source === 'url' && !httpUrl.safeParse(r.content).success)
      ctx.addIssue({ code: 'custom', path: ['content'], message: 'must be an http(s) URL when source is "url"' });
    if (r.source === 'upload' && !base64String.safeParse(r.content).success)
      ctx.addIssue({ code: 'custom', path: ['content'], message: 'must be base64-encoded data when source is "upload"' });
    if (r.source === 'raw' && Buffer.byteLength(r.content, 'utf8') > LIMITS.rawTextBytes)
      ctx.addIssue({ code: 'custom', path: ['content'], message: 'raw text must be at most 1 MB' });
  });

/** Requests as callers write them (defaults optional). */
export type ClaimRequestInput = z.input<typeof ClaimRequest>;
export type BusinessRequestInput = z.input<typeof BusinessRequest>;
export type MediaRequestInput = z.input<typeof MediaRequest>;
export type DocumentRequestInput = z.input<typeof DocumentRequest>;
/** Requests after validation (defaults applied): what the engine receives. */
export type ClaimRequest = z.output<typeof ClaimRequest>;
export type BusinessRequest = z.output<typeof BusinessRequest>;
export type MediaRequest = z.output<typeof MediaRequest>;
export type DocumentRequest = z.output<typeof DocumentRequest>;
