/**
 * A fake Companies House Public Data API speaking its documented JSON: `GET /search/companies`,
 * `/company/{n}`, `/company/{n}/officers`, `/company/{n}/filing-history`, HTTP Basic auth with
 * the key as user name (401 otherwise), 404 error bodies, and injectable failures (429 with
 * Retry-After, 5xx) for the retry paths.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';

export interface FakeChCompany {
  company_name: string;
  company_number: string;
  company_status: string;
  date_of_creation: string;
  type?: string;
  jurisdiction?: string;
  officers?: { name: string; officer_role: string; appointed_on?: string; resigned_on?: string }[];
  filings?: { transaction_id: string; type: string; category: string; date: string; description: string }[];
}

export interface Injected {
  status: number;
  retryAfter?: string;
  /** Only requests whose path starts with this are failed (default: any). */
  path?: string;
}

export interface FakeState {
  requests: { path: string; authorization: string | undefined; userAgent: string | undefined }[];
  failures: Injected[];
}

const json = (res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}) => {
  res.writeHead(status, { 'content-type': 'application/json', ...headers });
  res.end(JSON.stringify(body));
};

export function takeFailure(state: FakeState, path: string): Injected | undefined {
  const i = state.failures.findIndex((f) => !f.path || path.startsWith(f.path));
  return i === -1 ? undefined : state.failures.splice(i, 1)[0];
}

const fold = (s: string) => s.toLowerCase().replace(/[^a-z0-9 ]/g, ' ').split(/\s+/).filter(Boolean);

export function companiesHouseFake(companies: FakeChCompany[], apiKey: string) {
  const state: FakeState = { requests: [], failures: [] };
  const expected = `Basic ${Buffer.from(`${apiKey}:`).toString('base64')}`;
  const handler = (req: IncomingMessage, res: ServerResponse, url: URL) => {
    state.requests.push({ path: url.pathname + url.search, authorization: req.headers.authorization, userAgent: req.headers['user-agent'] });
    const fail = takeFailure(state, url.pathname);
    if (fail) return json(res, fail.status, { error: 'injected' }, fail.retryAfter ? { 'retry-after': fail.retryAfter } : {});
    if (req.headers.authorization !== expected) return json(res, 401, { error: 'Invalid Authorization', type: 'ch:service' });
    if (url.pathname === '/search/companies') {
      const words = fold(url.searchParams.get('q') ?? '');
      const per = Number(url.searchParams.get('items_per_page') ?? 20);
      // Real search is fuzzy; any shared word is enough for the fake, ranked by words shared.
      const hits = companies
        .map((c) => ({ c, n: fold(c.company_name).filter((w) => words.includes(w)).length }))
        .filter((x) => x.n > 0)
        .sort((a, b) => b.n - a.n)
        .slice(0, per);
      return json(res, 200, {
        kind: 'search#companies',
        total_results: hits.length,
        items_per_page: per,
        start_index: 0,
        items: hits.map(({ c }) => ({
          kind: 'searchresults#company',
          title: c.company_name,
          company_number: c.company_number,
          company_status: c.company_status,
          company_type: c.type ?? 'ltd',
          date_of_creation: c.date_of_creation,
          address_snippet: '1 Test Street, London, EC1A 1AA',
          description: `${c.company_number} - Incorporated on ${c.date_of_creation}`,
          links: { self: `/company/${c.company_number}` },
        })),
      });
    }
    const m = /^\/company\/([A-Z0-9]+)(\/officers|\/filing-history)?$/.exec(url.pathname);
    const c = m ? companies.find((x) => x.company_number === m[1]) : undefined;
    if (!m || !c) return json(res, 404, { errors: [{ error: 'company-profile-not-found', type: 'ch:service' }] });
    if (m[2] === '/officers') {
      const items = (c.officers ?? []).map((o) => ({ ...o, links: { officer: { appointments: `/officers/x/appointments` } } }));
      return json(res, 200, {
        kind: 'officer-list',
        items,
        active_count: items.filter((o) => !o.resigned_on).length,
        resigned_count: items.filter((o) => o.resigned_on).length,
        total_results: items.length,
        items_per_page: 100,
        start_index: 0,
      });
    }
    if (m[2] === '/filing-history') {
      const items = (c.filings ?? []).map((f) => ({
        ...f,
        links: {
          self: `/company/${c.company_number}/filing-history/${f.transaction_id}`,
          document_metadata: `https://frontend-doc-api.company-information.service.gov.uk/document/${f.transaction_id}`,
        },
      }));
      return json(res, 200, { items, total_count: items.length, items_per_page: 25, start_index: 0, filing_history_status: 'filing-history-available' });
    }
    return json(res, 200, {
      company_name: c.company_name,
      company_number: c.company_number,
      company_status: c.company_status,
      date_of_creation: c.date_of_creation,
      type: c.type ?? 'ltd',
      jurisdiction: c.jurisdiction ?? 'england-wales',
      has_insolvency_history: c.company_status === 'liquidation',
      links: { self: `/company/${c.company_number}`, filing_history: `/company/${c.company_number}/filing-history`, officers: `/company/${c.company_number}/officers` },
    });
  };
  return { handler, state };
}
