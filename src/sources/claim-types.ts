/**
 * What every claim source client returns, so the claim engine treats Wikipedia, a fact-check
 * review, a paper, a news article, a web page and a local corpus row alike.
 */
import { getDomain } from 'tldts';
import type { ClaimSource } from '../api/requests.js';
import { UpstreamError, type HttpClient, type HttpRequest, type HttpResponse } from './http.js';

/** A professional fact-checker's rating, normalized (see `normalizeRating` in fact-check.ts). */
export interface NormalizedRating {
  /** The publisher's own words, e.g. "Pants on Fire". */
  text: string;
  stance: 'supports' | 'refutes' | 'mixed' | 'neutral';
  /** How strongly the rating speaks for its stance, 0..1 ("Mostly false" 0.8, "False" 1). */
  strength: number;
}

export interface ClaimHit {
  source: ClaimSource;
  url: string;
  title: string;
  /** The text passages are chosen from (extract, abstract, article title, search snippet, row). */
  text: string;
  /** ISO timestamp or date of publication / review, when the source says. */
  published_at: string | null;
  /** Publisher name (fact-checker, venue, site) when known. */
  publisher: string | null;
  rating?: NormalizedRating;
  /** The claim as the fact-checker worded it (for rated items). */
  reviewed_claim?: string;
  /** Semantic Scholar citation count. */
  citation_count?: number;
  /** Authority declared by the user for a local corpus row. */
  declared_authority?: number | null;
  /**
   * Retrieved only to fill a short list: a local corpus row holding one of the claim's words when
   * fewer rows than asked for hold two (corpus-topk.ts). Its passages rank after every other item's.
   */
  fill?: true;
}

export interface ClaimQuery {
  /** The claim, whitespace-normalized. */
  claim: string;
  /** A compact keyword query (entities, numbers, key terms) for keyword search engines. */
  keywords: string;
  /** Individual key terms in order of importance (for engines that need plain words). */
  terms: string[];
  /**
   * Every content word of the claim (stop words removed), as written and stemmed: what a full-text
   * index (the local corpus) matches on, so no claim term is dropped for brevity.
   */
  content?: { words: string[]; stems: string[] };
  language: string;
}

export interface SearchContext {
  http: HttpClient;
  signal?: AbortSignal;
  /** Results wanted from this source. */
  limit: number;
}

/** A source cannot run as configured (no credentials): the engine reports it, never fails on it. */
export class SourceNotConfigured extends Error {
  constructor(
    readonly source: ClaimSource,
    message: string,
  ) {
    super(message);
    this.name = 'SourceNotConfigured';
  }
}

export const hostOf = (url: string): string => {
  try {
    return new URL(url).host;
  } catch {
    return url;
  }
};

/**
 * The independent publisher behind a URL: its registrable domain (eTLD+1 by the Public Suffix
 * List, via tldts), so news.bbc.co.uk and www.bbc.co.uk are one publisher and two blogs on
 * github.io are two. '' when the URL has no usable host (then callers fall back to the
 * publisher's name).
 */
export const registrableDomainOf = (url: string): string => {
  const host = hostnameOf(url);
  if (!host) return '';
  return getDomain(host, { allowPrivateDomains: true }) ?? host;
};

export const hostnameOf = (url: string): string => {
  try {
    return new URL(url).hostname.replace(/^www\./, '').toLowerCase();
  } catch {
    return '';
  }
};

/**
 * One request through the shared HTTP layer, turning non-2xx answers into UpstreamError with the
 * service's own error text (found by `describeError`), never echoing credentials.
 */
export async function requestJson<T>(
  http: HttpClient,
  req: HttpRequest,
  describeError: (body: unknown, res: HttpResponse) => string | undefined,
): Promise<T> {
  const res = await http.request(req);
  const host = hostOf(req.url);
  let body: unknown;
  const text = res.text();
  try {
    body = text.trim() === '' ? undefined : JSON.parse(text);
  } catch {
    body = undefined;
  }
  if (res.status < 200 || res.status >= 300) {
    const detail = describeError(body, res) ?? (body === undefined ? shortText(text) : undefined);
    const kind = res.status === 429 ? 'rate_limited' : 'http';
    throw new UpstreamError(host, kind, `${host} answered HTTP ${res.status}${detail ? `: ${detail}` : ''}`, res.status);
  }
  if (body === undefined) {
    throw new UpstreamError(host, 'bad_body', `${host} answered with a body that is not JSON${text.trim() ? `: ${shortText(text)}` : ''}`, res.status);
  }
  return body as T;
}

/** First line of a non-JSON body, tags stripped, bounded, for messages. */
export function shortText(s: string): string {
  return s
    .replace(/<[^>]*>/g, ' ')
    .replace(/\s+/g, ' ')
    .trim()
    .slice(0, 160);
}

export const isRecord = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);
export const str = (v: unknown): string | null => (typeof v === 'string' && v.trim() !== '' ? v : null);
