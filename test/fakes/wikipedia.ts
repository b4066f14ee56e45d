/**
 * Fake MediaWiki Action API (`/w/api.php`): `action=query&generator=search&prop=extracts|info|revisions`
 * with `formatversion=2` answers `{batchcomplete, query: {pages: [...]}}`; each page carries
 * `touched` (info: the cache-invalidation time) and, when `prop` has `revisions` and `rvprop` has
 * `timestamp`, `revisions: [{timestamp}]` (the latest revision, as MediaWiki returns in multi-page
 * mode); API errors are a 200
 * with `{error: {code, info, docref}}`; no match is a body without `query`.
 */
import { startFakeServer, type FakeOptions, type FakeServer } from './claim-fake-server.js';

export interface FakePage {
  title: string;
  extract: string;
  /** When the page was last edited (the latest revision's timestamp). */
  lastRevision?: string;
  /** page_touched: moves on purges and template changes too, so it is later than the last edit. */
  touched?: string;
}

export const DEFAULT_PAGES: FakePage[] = [
  {
    title: 'Eiffel Tower',
    extract:
      'The Eiffel Tower is a wrought-iron lattice tower on the Champ de Mars in Paris, France. It is named after the engineer Gustave Eiffel, whose company designed and built the tower from 1887 to 1889. The tower is 330 metres tall.',
    lastRevision: '2024-05-01T10:00:00Z',
    touched: '2024-11-20T08:00:00Z',
  },
];

export function startWikipediaFake(pages: FakePage[] = DEFAULT_PAGES, opts: FakeOptions = {}): Promise<FakeServer> {
  return startFakeServer((req, mode) => {
    const p = req.url.searchParams;
    if (mode === 'error' || p.get('action') !== 'query' || p.get('formatversion') !== '2') {
      return { status: 200, body: { error: { code: 'badvalue', info: 'Unrecognized value for parameter "action".', docref: 'See https://en.wikipedia.org/w/api.php for API usage.' }, servedby: 'mw-api-ext' } };
    }
    if (mode === 'empty') return { status: 200, body: { batchcomplete: true } };
    const lang = req.url.pathname.split('/')[1] ?? 'en';
    const props = (p.get('prop') ?? '').split('|');
    const withRevisions = props.includes('revisions') && (p.get('rvprop') ?? 'ids|timestamp|flags|comment|user').split('|').includes('timestamp');
    return {
      status: 200,
      body: {
        batchcomplete: true,
        query: {
          pages: pages.map((pg, i) => ({
            pageid: 1000 + i,
            ns: 0,
            title: pg.title,
            index: i + 1,
            extract: pg.extract,
            contentmodel: 'wikitext',
            pagelanguage: lang,
            touched: pg.touched ?? '2024-12-01T00:00:00Z',
            ...(withRevisions ? { revisions: [{ timestamp: pg.lastRevision ?? '2024-01-01T00:00:00Z' }] } : {}),
            fullurl: `https://${lang}.wikipedia.org/wiki/${pg.title.replace(/ /g, '_')}`,
          })),
        },
      },
    };
  }, opts);
}
