/**
 * Fake Brave Search API `GET /res/v1/web/search` (header `X-Subscription-Token`): `{type:
 * "search", query: {original}, web: {type: "search", results: [{title, url, description, age,
 * page_age, profile: {name}, extra_snippets}]}}`; errors: `{type: "ErrorResponse", error: {id,
 * status, code, detail, meta}}` (401 SUBSCRIPTION_TOKEN_INVALID, 422 validation, 429 RATE_LIMITED).
 */
import { startFakeServer, type FakeOptions, type FakeServer } from './claim-fake-server.js';

export interface FakeBraveResult {
  url: string;
  title: string;
  description: string;
  page_age?: string;
}

export const DEFAULT_BRAVE_RESULTS: FakeBraveResult[] = [
  {
    url: 'https://www.britannica.com/topic/Eiffel-Tower-Paris-France',
    title: '<strong>Eiffel Tower</strong> | History, Height, &amp; Facts',
    description: 'The <strong>Eiffel Tower</strong> was completed in 1889 for the Exposition Universelle.',
    page_age: '2024-02-10T08:00:00',
  },
];

export function startBraveFake(results: FakeBraveResult[] = DEFAULT_BRAVE_RESULTS, opts: FakeOptions & { token?: string } = {}): Promise<FakeServer> {
  return startFakeServer((req, mode) => {
    if (opts.token && req.headers['x-subscription-token'] !== opts.token) {
      return { status: 401, body: { type: 'ErrorResponse', error: { id: 'e1', status: 401, code: 'SUBSCRIPTION_TOKEN_INVALID', detail: 'The provided subscription token is invalid.', meta: {} } } };
    }
    if (mode === 'error') {
      return { status: 422, body: { type: 'ErrorResponse', error: { id: 'e2', status: 422, code: 'VALIDATION', detail: 'Unable to validate request parameter(s)', meta: { errors: [] } } } };
    }
    return {
      status: 200,
      body: {
        type: 'search',
        query: { original: req.url.searchParams.get('q') ?? '' },
        web: {
          type: 'search',
          results: (mode === 'empty' ? [] : results).map((r) => ({
            ...r,
            age: 'February 10, 2024',
            profile: { name: new URL(r.url).hostname },
            extra_snippets: [],
            language: 'en',
            type: 'search_result',
          })),
        },
      },
    };
  }, opts);
}
