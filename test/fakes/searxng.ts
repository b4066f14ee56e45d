/**
 * Fake SearXNG `GET /search?q=…&format=json`: `{query, number_of_results, results: [{url, title,
 * content, engine, engines, score, category, publishedDate}], answers, corrections, infoboxes,
 * suggestions, unresponsive_engines}`. An instance without the JSON format enabled answers 403
 * with an HTML page.
 */
import { startFakeServer, type FakeOptions, type FakeServer } from './claim-fake-server.js';

export interface FakeResult {
  url: string;
  title: string;
  content: string;
  publishedDate?: string | null;
}

export const DEFAULT_RESULTS: FakeResult[] = [
  {
    url: 'https://www.toureiffel.paris/en/the-monument/history',
    title: 'History of the Eiffel Tower',
    content: 'The Eiffel Tower was built between 1887 and 1889 for the Exposition Universelle.',
    publishedDate: '2023-06-01T00:00:00',
  },
];

export function startSearxngFake(results: FakeResult[] = DEFAULT_RESULTS, opts: FakeOptions = {}): Promise<FakeServer> {
  return startFakeServer((req, mode) => {
    if (mode === 'error' || req.url.searchParams.get('format') !== 'json') {
      return { status: 403, body: '<!DOCTYPE html><html><head><title>403 Forbidden</title></head><body><h1>Forbidden</h1></body></html>' };
    }
    const q = req.url.searchParams.get('q') ?? '';
    const list = mode === 'empty' ? [] : results;
    return {
      status: 200,
      body: {
        query: q,
        number_of_results: list.length,
        results: list.map((r, i) => ({ ...r, engine: 'duckduckgo', engines: ['duckduckgo'], score: 1 / (i + 1), category: 'general', parsed_url: [] })),
        answers: [],
        corrections: [],
        infoboxes: [],
        suggestions: [],
        unresponsive_engines: [],
      },
    };
  }, opts);
}
