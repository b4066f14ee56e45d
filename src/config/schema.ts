/**
 * The config file (`verity config path`): profiles, stored keys and engine settings. One zod
 * schema validates it on every read, so a hand-edited file with a typo fails with the field named.
 */
import { z } from 'zod';

export const KEY_PATTERN = /^vty_(live|test)_[0-9A-Za-z]{32}$/;
export type KeyEnvironment = 'live' | 'test';

export function keyEnvironment(key: string): KeyEnvironment | undefined {
  const m = KEY_PATTERN.exec(key);
  return m ? (m[1] as KeyEnvironment) : undefined;
}

/** Keys are shown as prefix + last four, never whole (DESIGN.md). */
export function redactKey(key: string): string {
  const m = /^(vty_(?:live|test)_)/.exec(key);
  const prefix = m ? m[1] : key.slice(0, 4);
  return `${prefix}…${key.slice(-4)}`;
}

/** Any secret-ish string: the first 4 characters survive, the rest is masked. */
export function redactSecret(value: string): string {
  if (value.startsWith('vty_')) return redactKey(value);
  if (value.length <= 8) return '••••';
  return `${value.slice(0, 4)}…${value.slice(-2)}`;
}

const StoredKey = z.object({
  value: z.string().regex(KEY_PATTERN, 'must look like vty_live_… or vty_test_… (32 base62 characters)'),
  environment: z.enum(['live', 'test']),
  added_at: z.string(),
  last_used_at: z.string().nullable().default(null),
});
export type StoredKey = z.infer<typeof StoredKey>;

const Profile = z
  .object({
    base_url: z.string().url().optional(),
    /** Name of the stored key this profile uses. */
    key: z.string().optional(),
  })
  .strict();

const optionalSecrets = z.record(z.string(), z.string()).optional();

export const ConfigFile = z
  .object({
    profile: z.string().default('default'),
    profiles: z.record(z.string(), Profile).default({}),
    keys: z.record(z.string(), StoredKey).default({}),
    /** Contact address for the User-Agent of outside sources (Wikipedia, GDELT, SEC ask for one). */
    contact: z.string().optional(),
    sources: z.record(z.string(), optionalSecrets).optional(),
    llm: z
      .object({ base_url: z.string().optional(), model: z.string().optional(), api_key: z.string().optional(), model_path: z.string().optional() })
      .strict()
      .optional(),
    c2pa: z.object({ trust_anchors: z.string().optional() }).strict().optional(),
    /** Video frame decoding: `ffmpeg` = path to ffmpeg (ffprobe beside it) or `none`; unset = found on PATH. */
    media: z.object({ ffmpeg: z.string().optional() }).strict().optional(),
    /** Document signatures' trust anchors; `pdf_reader`: `auto` (the simple-PDF reader where it can answer, default) or `pdfjs` (always pdf.js). */
    document: z.object({ trust_anchors: z.string().optional(), pdf_reader: z.enum(['auto', 'pdfjs']).optional() }).strict().optional(),
    /** Claim stance: `local` (the built-in model, default) or `nli` (an NLI model pulled with `verity models pull nli`). */
    claim: z.object({ stance: z.enum(['local', 'nli']).optional(), nli_model: z.string().optional() }).strict().optional(),
  })
  .strict();
export type ConfigFile = z.output<typeof ConfigFile>;

/** Setting names that hold secrets: masked by `config list/get` and in every message. */
export const SECRET_SETTING = /(^|\.)(api_key|api_token|value|secret|token|password)$/;
