/**
 * The settings `verity config set` accepts, as dotted paths into the config file, each with its
 * check. `config get/list` read any path; secrets are masked unless --show-secrets, and verity
 * API keys are never shown whole, not even then (`verity keys list` shows their prefix).
 */
import { isAbsolute, resolve } from 'node:path';
import { VerityError } from '../../api/errors.js';
import type { ConfigFile } from '../../config/schema.js';

export interface Setting {
  /** e.g. `sources.google_fact_check.api_key`, `profiles.<name>.base_url`. */
  path: string;
  description: string;
  choices?: readonly string[];
  kind: 'text' | 'url' | 'path' | 'name' | 'key-name';
}

/** Per source, the settings the source modules read (EngineConfig['sources']). */
const SOURCE_SETTINGS: Record<string, Array<[string, Setting['kind'], string]>> = {
  wikipedia: [['base_url', 'url', 'MediaWiki API base (default: the language\'s Wikipedia)']],
  google_fact_check: [
    ['api_key', 'text', 'Google Fact Check Tools API key'],
    ['base_url', 'url', 'API base URL'],
  ],
  semantic_scholar: [
    ['api_key', 'text', 'Semantic Scholar API key (optional; raises the rate limit)'],
    ['base_url', 'url', 'API base URL'],
  ],
  gdelt: [['base_url', 'url', 'GDELT DOC API base URL']],
  web: [
    ['provider', 'text', 'web search provider'],
    ['base_url', 'url', 'SearXNG instance or Brave API base URL'],
    ['api_key', 'text', 'Brave Search API key'],
  ],
  companies_house: [
    ['api_key', 'text', 'Companies House API key'],
    ['base_url', 'url', 'API base URL'],
  ],
  sec_edgar: [
    ['base_url', 'url', 'EDGAR data base URL'],
    ['tickers_url', 'url', 'company tickers JSON URL'],
  ],
  gleif: [['base_url', 'url', 'GLEIF API base URL']],
  opencorporates: [
    ['api_token', 'text', 'OpenCorporates API token'],
    ['base_url', 'url', 'API base URL'],
  ],
};

export const SETTINGS: Setting[] = [
  { path: 'profile', kind: 'name', description: 'the active profile' },
  { path: 'contact', kind: 'text', description: 'contact e-mail or URL sent in the User-Agent (Wikipedia, GDELT and SEC ask for one)' },
  { path: 'profiles.<name>.base_url', kind: 'url', description: 'the verity service this profile talks to (remote mode)' },
  { path: 'profiles.<name>.key', kind: 'key-name', description: 'the stored key this profile uses (see verity keys use)' },
  ...Object.entries(SOURCE_SETTINGS).flatMap(([source, list]) =>
    list.map(([name, kind, description]): Setting => ({
      path: `sources.${source}.${name}`,
      kind,
      description,
      ...(source === 'web' && name === 'provider' ? { choices: ['searxng', 'brave'] as const } : {}),
    })),
  ),
  { path: 'llm.base_url', kind: 'url', description: 'OpenAI-compatible server for the claim judge' },
  { path: 'llm.model', kind: 'text', description: 'model name on that server' },
  { path: 'llm.api_key', kind: 'text', description: 'API key for that server' },
  { path: 'llm.model_path', kind: 'path', description: 'local GGUF model file' },
  { path: 'c2pa.trust_anchors', kind: 'path', description: 'PEM bundle of trusted C2PA signers' },
  { path: 'media.ffmpeg', kind: 'text', description: 'video frame decoder: path to ffmpeg (ffprobe beside it), or none; unset = found on PATH' },
  { path: 'document.pdf_reader', kind: 'text', choices: ['auto', 'pdfjs'], description: 'what reads a PDF\'s text, page count, Info and XMP: auto (a built-in reader for simple PDFs, pdf.js otherwise) or pdfjs (always pdf.js)' },
  { path: 'document.trust_anchors', kind: 'text', description: 'trusted signers of PDF/DOCX signatures: comma-separated PEM bundle paths, or system' },
  { path: 'claim.stance', kind: 'text', choices: ['local', 'nli'], description: 'claim stance model: local (built in) or nli (run `verity models pull nli` first)' },
  { path: 'claim.nli_model', kind: 'text', description: 'which pulled NLI model claim.stance = nli uses (default Xenova/nli-deberta-v3-xsmall)' },
];

const NAME = /^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$/;

export function splitPath(key: string): string[] {
  const parts = key.split('.');
  if (parts.some((p) => p === ''))
    throw new VerityError('VALIDATION_FAILED', `"${key}" is not a setting name`, { details: [{ field: 'key', issue: 'empty part in dotted name' }] });
  return parts;
}

/** The catalogue entry for a concrete path (`profiles.staging.base_url` → `profiles.<name>.base_url`). */
export function findSetting(key: string): Setting | undefined {
  const parts = key.split('.');
  return SETTINGS.find((s) => {
    const sp = s.path.split('.');
    return sp.length === parts.length && sp.every((p, i) => (p === '<name>' ? NAME.test(parts[i]!) : p === parts[i]));
  });
}

/** Levenshtein distance, for "did you mean" on short setting names. */
function distance(a: string, b: string): number {
  const row = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    let prev = row[0]!;
    row[0] = i;
    for (let j = 1; j <= b.length; j++) {
      const cur = row[j]!;
      row[j] = Math.min(row[j]! + 1, row[j - 1]! + 1, prev + (a[i - 1] === b[j - 1] ? 0 : 1));
      prev = cur;
    }
  }
  return row[b.length]!;
}

/**
 * The settings an unknown key most likely meant: those ending in the same name (`base_url` →
 * `profiles.default.base_url`, the profile first, as gh's `config set` has per-host keys), then
 * near spellings. `<name>` is filled with the active profile.
 */
export function suggestSettings(key: string, profile = 'default'): string[] {
  const fill = (p: string): string => p.replace('<name>', profile);
  const last = key.split('.').at(-1)!;
  const sameName = SETTINGS.filter((s) => s.path.split('.').at(-1) === last).map((s) => fill(s.path));
  const near = SETTINGS.map((s) => fill(s.path)).filter((p) => !sameName.includes(p) && distance(p, key) <= Math.max(2, Math.floor(key.length / 5)));
  return [...sameName, ...near].slice(0, 4);
}

export function requireSetting(key: string, profile?: string): Setting {
  if (key === 'keys' || key.startsWith('keys.'))
    throw new VerityError('VALIDATION_FAILED', 'Keys are managed with `verity keys add|use|remove`, not `config set`', {
      details: [{ field: 'key', issue: 'use verity keys' }],
    });
  const s = findSetting(key);
  if (!s) {
    const like = suggestSettings(key, profile);
    throw new VerityError('VALIDATION_FAILED', `Unknown setting "${key}"${like.length ? `; did you mean ${like.map((l) => `"${l}"`).join(' or ')}?` : ''}`, {
      details: [{ field: 'key', issue: 'unknown setting' }],
      hint: like[0]?.startsWith('profiles.')
        ? `the service URL is per profile: \`verity config set ${like[0]} URL\` (\`verity config set --help\` lists every setting)`
        : 'see `verity config set --help` for the list of settings',
    });
  }
  return s;
}

/** Checks and normalises a value for a setting; `cwd` makes relative paths absolute. */
export function checkValue(setting: Setting, key: string, value: string, cfg: ConfigFile, cwd: string): string {
  const bad = (issue: string): VerityError =>
    new VerityError('VALIDATION_FAILED', `Invalid value for ${key}: ${issue}`, { details: [{ field: key, issue }] });
  const v = value.trim();
  if (v === '') throw bad('must not be empty');
  if (setting.choices && !setting.choices.includes(v)) throw bad(`must be one of ${setting.choices.join(', ')}`);
  switch (setting.kind) {
    case 'url': {
      let u: URL;
      try {
        u = new URL(v);
      } catch {
        throw bad('must be an http(s) URL');
      }
      if (u.protocol !== 'http:' && u.protocol !== 'https:') throw bad('must be an http(s) URL');
      return v;
    }
    case 'name':
      if (!NAME.test(v)) throw bad('use letters, digits, ".", "_" or "-"');
      return v;
    case 'key-name':
      if (!cfg.keys[v]) throw bad(`no stored key named "${v}" (see verity keys list)`);
      return v;
    case 'path':
      return isAbsolute(v) ? v : resolve(cwd, v);
    case 'text':
      return v;
  }
}

export function getAt(obj: unknown, parts: string[]): unknown {
  let cur: unknown = obj;
  for (const p of parts) {
    if (cur === null || typeof cur !== 'object' || !Object.hasOwn(cur, p)) return undefined;
    cur = (cur as Record<string, unknown>)[p];
  }
  return cur;
}

export function setAt(obj: Record<string, unknown>, parts: string[], value: unknown): void {
  let cur = obj;
  for (const p of parts.slice(0, -1)) {
    const next = cur[p];
    if (next === null || typeof next !== 'object') cur[p] = {};
    cur = cur[p] as Record<string, unknown>;
  }
  cur[parts[parts.length - 1]!] = value;
}

/** Removes a leaf; returns whether it was there. */
export function unsetAt(obj: Record<string, unknown>, parts: string[]): boolean {
  const parent = getAt(obj, parts.slice(0, -1));
  const last = parts[parts.length - 1]!;
  if (parent === null || typeof parent !== 'object' || !Object.hasOwn(parent, last)) return false;
  delete (parent as Record<string, unknown>)[last];
  return true;
}

