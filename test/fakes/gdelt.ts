/**
 * Fake GDELT DOC 2.0 API `GET /api/v2/doc/doc?mode=artlist&format=json`: `{articles: [{url,
 * url_mobile, title, seendate: "YYYYMMDDTHHMMSSZ", socialimage, domain, language, sourcecountry}]}`;
 * no match is `{}`; a query GDELT refuses is a 200 with a plain-text/HTML message.
 */
import { startFakeServer, type FakeOptions, type FakeServer } from './claim-fake-server.js';

export interface FakeArticle {
  title: string;
  url: string;
  domain: string;
  seendate: string;
}

export const DEFAULT_ARTICLES: FakeArticle[] = [
  {
    title: 'Eiffel Tower, built in 1889, celebrates another anniversary',
    url: 'https://www.reuters.com/world/europe/eiffel-tower-anniversary-2024-03-31/',
    domain: 'reuters.com',
    seendate: '20240331T120000Z',
  },
];

export function startGdeltFake(articles: FakeArticle[] = DEFAULT_ARTICLES, opts: FakeOptions = {}): Promise<FakeServer> {
  return startFakeServer((req, mode) => {
    const q = req.url.searchParams.get('query') ?? '';
    if (mode === 'error' || q.split(/\s+/).some((w) => w.length > 0 && w.length < 3 && !w.includes(':'))) {
      return { status: 200, body: 'The specified phrase is too short.\n' };
    }
    if (mode === 'empty') return { status: 200, headers: { 'content-type': 'application/json' }, body: '{}' };
    return {
      status: 200,
      body: {
        articles: articles.map((a) => ({
          url: a.url,
          url_mobile: '',
          title: a.title,
          seendate: a.seendate,
          socialimage: '',
          domain: a.domain,
          language: 'English',
          sourcecountry: 'United States',
        })),
      },
    };
  }, opts);
}
