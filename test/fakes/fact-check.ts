/**
 * Fake Google Fact Check Tools API `GET /v1alpha1/claims:search`: `{claims: [{text, claimant,
 * claimDate, claimReview: [{publisher: {name, site}, url, title, reviewDate, textualRating,
 * languageCode}]}], nextPageToken}`; no match is `{}`; errors are Google's
 * `{error: {code, message, status}}` with the matching HTTP status.
 */
import { startFakeServer, type FakeOptions, type FakeServer } from './claim-fake-server.js';

export interface FakeReview {
  claim: string;
  rating: string;
  publisher: string;
  site: string;
  url: string;
  reviewDate?: string;
}

export const DEFAULT_REVIEWS: FakeReview[] = [
  {
    claim: 'The Eiffel Tower was built in 1889',
    rating: 'True',
    publisher: 'PolitiFact',
    site: 'politifact.com',
    url: 'https://www.politifact.com/factchecks/2024/eiffel-1889/',
    reviewDate: '2024-03-01T00:00:00Z',
  },
];

export function startFactCheckFake(reviews: FakeReview[] = DEFAULT_REVIEWS, opts: FakeOptions & { validKey?: string } = {}): Promise<FakeServer> {
  return startFakeServer((req, mode) => {
    const key = req.url.searchParams.get('key');
    if (mode === 'error' || (opts.validKey && key !== opts.validKey)) {
      return { status: 400, body: { error: { code: 400, message: 'API key not valid. Please pass a valid API key.', status: 'INVALID_ARGUMENT' } } };
    }
    if (!req.url.searchParams.get('query')) {
      return { status: 400, body: { error: { code: 400, message: 'Request contains an invalid argument.', status: 'INVALID_ARGUMENT' } } };
    }
    if (mode === 'empty') return { status: 200, body: {} };
    return {
      status: 200,
      body: {
        claims: reviews.map((r) => ({
          text: r.claim,
          claimant: 'Social media posts',
          claimDate: '2024-02-20T00:00:00Z',
          claimReview: [
            {
              publisher: { name: r.publisher, site: r.site },
              url: r.url,
              title: `Fact check: ${r.claim}`,
              reviewDate: r.reviewDate ?? '2024-03-01T00:00:00Z',
              textualRating: r.rating,
              languageCode: req.url.searchParams.get('languageCode') ?? 'en',
            },
          ],
        })),
      },
    };
  }, opts);
}
