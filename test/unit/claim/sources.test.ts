import { afterEach, describe, expect, it } from 'vitest';
import { UpstreamError } from '../../../src/sources/http.js';
import { searchWikipedia } from '../../../src/sources/wikipedia.js';
import { normalizeRating, searchFactChecks } from '../../../src/sources/fact-check.js';
import { searchSemanticScholar } from '../../../src/sources/semantic-scholar.js';
import { gdeltQuery, parseSeenDate, searchGdelt } from '../../../src/sources/gdelt.js';
import { searchWeb } from '../../../src/sources/web-search.js';
import { SourceNotConfigured, type ClaimQuery } from '../../../src/sources/claim-types.js';
import { authorityFor } from '../../../src/sources/authority.js';
import { buildQuery } from '../../../src/engine/claim/query.js';
import type { FakeServer } from '../../fakes/claim-fake-server.js';
import { startWikipediaFake } from '../../fakes/wikipedia.js';
import { startFactCheckFake } from '../../fakes/fact-check.js';
import { startSemanticScholarFake } from '../../fakes/semantic-scholar.js';
import { startGdeltFake } from '../../fakes/gdelt.js';
import { startSearxngFake } from '../../fakes/searxng.js';
import { startBraveFake } from '../../fakes/brave.js';
import { testHttp, USER_AGENT } from './helpers.js';

const servers: FakeServer[] = [];
const track = async (p: Promise<FakeServer>): Promise<FakeServer> => {
  const s = await p;
  servers.push(s);
  return s;
};
afterEach(async () => {
  await Promise.all(servers.splice(0).map((s) => s.close()));
});

const q: ClaimQuery = buildQuery('The Eiffel Tower was built in 1889 by Gustave Eiffel', 'en');

describe('wikipedia client', () => {
  it('searches with generator=search + TextExtracts, formatversion=2, in the request language, with our User-Agent', async () => {
    const fake = await track(startWikipediaFake());
    const { http } = testHttp();
    const hits = await searchWikipedia({ ...q, language: 'fr' }, { sources: { wikipedia: { base_url: `${fake.url}/{lang}/w/api.php` } } }, { http, limit: 5 });
    expect(hits).toHaveLength(1);
    expect(hits[0]).toMatchObject({ source: 'wikipedia', title: 'Eiffel Tower', url: 'https://fr.wikipedia.org/wiki/Eiffel_Tower' });
    expect(hits[0]!.text).toContain('1887 to 1889');
    const r = fake.requests[0]!;
    expect(r.url.pathname).toBe('/fr/w/api.php');
    expect(r.url.searchParams.get('formatversion')).toBe('2');
    expect(r.url.searchParams.get('prop')).toBe('extracts|info|revisions');
    expect(r.url.searchParams.get('rvprop')).toBe('timestamp');
    // The date is the latest revision's timestamp, not page_touched (a later cache time).
    expect(hits[0]!.published_at).toBe('2024-05-01T10:00:00Z');
    expect(r.url.searchParams.get('explaintext')).toBe('1');
    expect(r.url.searchParams.get('gsrsearch')).toContain('Eiffel Tower');
    expect(r.headers['user-agent']).toBe(USER_AGENT);
  });

  it('turns a MediaWiki error body (HTTP 200) into an UpstreamError with its code', async () => {
    const fake = await track(startWikipediaFake(undefined, { mode: 'error' }));
    const { http } = testHttp();
    await expect(searchWikipedia(q, { sources: { wikipedia: { base_url: `${fake.url}/w/api.php` } } }, { http, limit: 5 })).rejects.toThrow(/badvalue/);
  });

  it('returns no hits for a search without matches', async () => {
    const fake = await track(startWikipediaFake(undefined, { mode: 'empty' }));
    const { http } = testHttp();
    expect(await searchWikipedia(q, { sources: { wikipedia: { base_url: `${fake.url}/w/api.php` } } }, { http, limit: 5 })).toEqual([]);
  });
});

describe('fact check client', () => {
  it('is skipped without an API key', async () => {
    const { http } = testHttp();
    await expect(searchFactChecks(q, {}, { http, limit: 5 })).rejects.toBeInstanceOf(SourceNotConfigured);
  });

  it('sends the key and language, and normalizes each review', async () => {
    const fake = await track(startFactCheckFake(undefined, { validKey: 'AIzaTESTKEY' }));
    const { http } = testHttp();
    const hits = await searchFactChecks(q, { sources: { google_fact_check: { api_key: 'AIzaTESTKEY', base_url: `${fake.url}/v1alpha1/claims:search` } } }, { http, limit: 5 });
    expect(hits[0]).toMatchObject({ source: 'google_fact_check', publisher: 'PolitiFact', rating: { stance: 'supports', strength: 1 } });
    expect(fake.requests[0]!.url.searchParams.get('languageCode')).toBe('en');
  });

  it('reports Google error bodies without echoing the key', async () => {
    const fake = await track(startFactCheckFake(undefined, { validKey: 'right' }));
    const { http } = testHttp();
    const err = await searchFactChecks(q, { sources: { google_fact_check: { api_key: 'AIzaSECRETwrong', base_url: `${fake.url}/v1alpha1/claims:search` } } }, { http, limit: 5 }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(UpstreamError);
    expect(String((err as Error).message)).toMatch(/HTTP 400: INVALID_ARGUMENT: API key not valid/);
    expect(String((err as Error).message)).not.toContain('AIzaSECRETwrong');
  });

  it('treats {} as no reviews', async () => {
    const fake = await track(startFactCheckFake(undefined, { mode: 'empty' }));
    const { http } = testHttp();
    expect(await searchFactChecks(q, { sources: { google_fact_check: { api_key: 'k', base_url: fake.url } } }, { http, limit: 5 })).toEqual([]);
  });

  it.each([
    ['True', 'supports', 1],
    ['Mostly true', 'supports', 0.7],
    ['Half True', 'mixed', 0.5],
    ['Misleading', 'refutes', 0.6],
    ['Mostly False', 'refutes', 0.8],
    ['False', 'refutes', 1],
    ['Pants on Fire!', 'refutes', 1],
    ['Falso', 'refutes', 1],
    ['Faux', 'refutes', 1],
    ['Engañoso', 'refutes', 0.6],
    ['Irreführend', 'refutes', 0.6],
    ['Verdadero', 'supports', 1],
    ['False. The photo was taken in 2015.', 'refutes', 1],
    ['Unproven', 'neutral', 0],
    ['Four Pinocchios', 'refutes', 1],
  ])('normalizes rating %j → %s (%d)', (text, stance, strength) => {
    expect(normalizeRating(text)).toMatchObject({ stance, strength });
  });
});

describe('semantic scholar client', () => {
  it('asks for the documented fields, sends x-api-key when configured, and reads tldr and citations', async () => {
    const fake = await track(startSemanticScholarFake(undefined, { requireKey: 's2-key' }));
    const { http } = testHttp();
    const hits = await searchSemanticScholar(q, { sources: { semantic_scholar: { api_key: 's2-key', base_url: `${fake.url}/graph/v1` } } }, { http, limit: 5 });
    expect(hits[0]).toMatchObject({ source: 'semantic_scholar', citation_count: 120, published_at: '2015-03-15' });
    expect(hits[0]!.text).toContain('Measured wind loads');
    expect(fake.requests[0]!.url.pathname).toBe('/graph/v1/paper/search');
    expect(fake.requests[0]!.url.searchParams.get('fields')).toContain('tldr');
    expect(authorityFor({ source: 'semantic_scholar', url: hits[0]!.url, citation_count: 120 }).score).toBeGreaterThan(authorityFor({ source: 'semantic_scholar', url: hits[0]!.url, citation_count: 0 }).score);
  });

  it('retries a 429 after the Retry-After delay, then answers', async () => {
    const fake = await track(startSemanticScholarFake(undefined, { mode: 'rate_limited', rateLimitedTimes: 1, retryAfter: '3' }));
    const { http, waits } = testHttp();
    const hits = await searchSemanticScholar(q, { sources: { semantic_scholar: { base_url: `${fake.url}/graph/v1` } } }, { http, limit: 5 });
    expect(hits).toHaveLength(1);
    expect(waits).toEqual([3000]);
    expect(fake.requests).toHaveLength(2);
  });

  it('gives up on persistent 429 with a rate-limited UpstreamError', async () => {
    const fake = await track(startSemanticScholarFake(undefined, { mode: 'rate_limited' }));
    const { http } = testHttp();
    const err = await searchSemanticScholar(q, { sources: { semantic_scholar: { base_url: `${fake.url}/graph/v1` } } }, { http, limit: 5 }).catch((e: unknown) => e);
    expect(err).toMatchObject({ kind: 'rate_limited', status: 429 });
    expect((err as Error).message).toMatch(/HTTP 429: Too Many Requests/);
  });

  it('reports the {"error": …} body of a 400', async () => {
    const fake = await track(startSemanticScholarFake(undefined, { mode: 'error' }));
    const { http } = testHttp();
    await expect(searchSemanticScholar(q, { sources: { semantic_scholar: { base_url: `${fake.url}/graph/v1` } } }, { http, limit: 5 })).rejects.toThrow(/Unrecognized or unsupported fields/);
  });
});

describe('gdelt client', () => {
  it('builds an artlist JSON query with sourcelang and parses seendate', async () => {
    const fake = await track(startGdeltFake());
    const { http } = testHttp();
    const hits = await searchGdelt(q, { sources: { gdelt: { base_url: `${fake.url}/api/v2/doc/doc` } } }, { http, limit: 10 });
    expect(hits[0]).toMatchObject({ source: 'gdelt', publisher: 'reuters.com', published_at: '2024-03-31T12:00:00Z' });
    const p = fake.requests[0]!.url.searchParams;
    expect(p.get('mode')).toBe('artlist');
    expect(p.get('format')).toBe('json');
    expect(p.get('query')).toMatch(/sourcelang:english$/);
    expect(gdeltQuery(q).split(' ').every((w) => w.length >= 3)).toBe(true);
    expect(parseSeenDate('garbage')).toBeNull();
  });

  it('treats {} as no articles and an HTML/text body as an error', async () => {
    const empty = await track(startGdeltFake(undefined, { mode: 'empty' }));
    const bad = await track(startGdeltFake(undefined, { mode: 'error' }));
    const { http } = testHttp();
    expect(await searchGdelt(q, { sources: { gdelt: { base_url: empty.url } } }, { http, limit: 10 })).toEqual([]);
    await expect(searchGdelt(q, { sources: { gdelt: { base_url: bad.url } } }, { http, limit: 10 })).rejects.toThrow(/refused the query: The specified phrase is too short/);
  });

  it('times out on a server that never answers', async () => {
    const fake = await track(startGdeltFake(undefined, { mode: 'hang' }));
    const { http } = testHttp({ timeoutMs: 150 });
    const err = await searchGdelt(q, { sources: { gdelt: { base_url: fake.url } } }, { http, limit: 10 }).catch((e: unknown) => e);
    expect(err).toMatchObject({ kind: 'timeout' });
  });
});

describe('web search providers', () => {
  it('SearXNG: JSON format, language, results with content', async () => {
    const fake = await track(startSearxngFake());
    const { http } = testHttp();
    const hits = await searchWeb(q, { sources: { web: { provider: 'searxng', base_url: fake.url } } }, { http, limit: 8 });
    expect(hits[0]).toMatchObject({ source: 'web', url: 'https://www.toureiffel.paris/en/the-monument/history' });
    expect(hits[0]!.text).toContain('1887 and 1889');
    expect(fake.requests[0]!.url.searchParams.get('format')).toBe('json');
    expect(fake.requests[0]!.url.searchParams.get('language')).toBe('en');
  });

  it('SearXNG without JSON enabled (403 HTML) is an error naming the status', async () => {
    const fake = await track(startSearxngFake(undefined, { mode: 'error' }));
    const { http } = testHttp();
    await expect(searchWeb(q, { sources: { web: { provider: 'searxng', base_url: fake.url } } }, { http, limit: 8 })).rejects.toThrow(/HTTP 403: 403 Forbidden/);
  });

  it('Brave: token header, tags stripped, ErrorResponse reported', async () => {
    const fake = await track(startBraveFake(undefined, { token: 'BSA-good' }));
    const { http } = testHttp();
    const hits = await searchWeb(q, { sources: { web: { provider: 'brave', api_key: 'BSA-good', base_url: `${fake.url}/res/v1` } } }, { http, limit: 8 });
    expect(hits[0]!.title).toBe('Eiffel Tower | History, Height, &amp; Facts');
    expect(hits[0]!.text).not.toContain('<strong>');
    expect(fake.requests[0]!.url.pathname).toBe('/res/v1/web/search');
    await expect(searchWeb(q, { sources: { web: { provider: 'brave', api_key: 'BSA-bad', base_url: `${fake.url}/res/v1` } } }, { http, limit: 8 })).rejects.toThrow(
      /HTTP 401: SUBSCRIPTION_TOKEN_INVALID/,
    );
  });

  it('is not configured without a SearXNG URL or a Brave key', async () => {
    const { http } = testHttp();
    await expect(searchWeb(q, {}, { http, limit: 8 })).rejects.toBeInstanceOf(SourceNotConfigured);
    await expect(searchWeb(q, { sources: { web: { provider: 'brave' } } }, { http, limit: 8 })).rejects.toThrow(/API key/);
  });
});

describe('authority table', () => {
  it('ranks fact-checkers and .gov above platforms, and honours declared corpus authority', () => {
    expect(authorityFor({ source: 'web', url: 'https://www.politifact.com/x' }).score).toBe(0.9);
    expect(authorityFor({ source: 'web', url: 'https://www.cdc.gov/flu' }).score).toBe(0.9);
    expect(authorityFor({ source: 'web', url: 'https://www.ox.ac.uk/news' }).score).toBe(0.82);
    expect(authorityFor({ source: 'web', url: 'https://m.facebook.com/post/1' }).score).toBe(0.2);
    expect(authorityFor({ source: 'web', url: 'https://example.com/' })).toEqual({ score: 0.45, basis: 'source web' });
    expect(authorityFor({ source: 'local', url: 'https://example.com/', declared_authority: 0.95 }).score).toBe(0.95);
  });
});
