/**
 * Fake Semantic Scholar Graph API `GET /graph/v1/paper/search`: `{total, offset, next, data:
 * [{paperId, url, title, abstract, tldr: {model, text}, year, citationCount, ...}]}` (only the
 * requested `fields`); no match is `{total: 0, offset: 0, data: []}`; a bad request is
 * `{"error": "..."}` with 400; throttling is 429 `{"message": "Too Many Requests..."}`.
 */
import { startFakeServer, type FakeOptions, type FakeServer } from './claim-fake-server.js';

export interface FakePaper {
  title: string;
  abstract: string | null;
  tldr?: string;
  year: number;
  citationCount: number;
}

export const DEFAULT_PAPERS: FakePaper[] = [
  {
    title: 'Wind loads on the Eiffel Tower',
    abstract: 'Gustave Eiffel designed the tower completed in 1889 to resist wind. We measure wind loads on the 330 metre structure.',
    tldr: 'Measured wind loads on the Eiffel Tower, completed in 1889.',
    year: 2015,
    citationCount: 120,
  },
];

export function startSemanticScholarFake(papers: FakePaper[] = DEFAULT_PAPERS, opts: FakeOptions & { requireKey?: string } = {}): Promise<FakeServer> {
  return startFakeServer((req, mode) => {
    if (opts.requireKey && req.headers['x-api-key'] !== opts.requireKey) {
      return { status: 403, body: { message: 'Forbidden' } };
    }
    if (mode === 'error' || !req.url.searchParams.get('query')) {
      return { status: 400, body: { error: 'Unrecognized or unsupported fields: [bogus]' } };
    }
    if (mode === 'empty') return { status: 200, body: { total: 0, offset: 0, data: [] } };
    const fields = new Set((req.url.searchParams.get('fields') ?? 'title').split(','));
    return {
      status: 200,
      body: {
        total: papers.length,
        offset: 0,
        data: papers.map((p, i) => {
          const full: Record<string, unknown> = {
            paperId: `fa4e${i}c0ffee${i}`,
            url: `https://www.semanticscholar.org/paper/fa4e${i}c0ffee${i}`,
            title: p.title,
            abstract: p.abstract,
            tldr: p.tldr ? { model: 'tldr@v2.0.0', text: p.tldr } : null,
            year: p.year,
            publicationDate: `${p.year}-03-15`,
            citationCount: p.citationCount,
            venue: 'Journal of Wind Engineering',
          };
          return Object.fromEntries(Object.entries(full).filter(([k]) => k === 'paperId' || fields.has(k)));
        }),
      },
    };
  }, opts);
}
