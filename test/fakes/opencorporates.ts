/**
 * A fake OpenCorporates API v0.4: `GET /v0.4/companies/search?q=…&jurisdiction_code=…&api_token=…`
 * and `GET /v0.4/companies/{jurisdiction}/{number}` (with officers and filings), in the
 * `{api_version, results: …}` envelope; 401 `{"error":{"message":"Invalid Api Token"}}`.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { takeFailure, type FakeState } from './companies-house.js';

export interface FakeOcCompany {
  name: string;
  company_number: string;
  jurisdiction_code: string;
  incorporation_date: string | null;
  dissolution_date?: string | null;
  current_status: string | null;
  inactive?: boolean;
  officers?: { name: string; position: string; start_date?: string; end_date?: string }[];
  filings?: { title: string; date: string; filing_type?: string }[];
}

const json = (res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}) => {
  res.writeHead(status, { 'content-type': 'application/json', ...headers });
  res.end(JSON.stringify(body));
};

const summary = (c: FakeOcCompany) => ({
  name: c.name,
  company_number: c.company_number,
  jurisdiction_code: c.jurisdiction_code,
  incorporation_date: c.incorporation_date,
  dissolution_date: c.dissolution_date ?? null,
  company_type: 'Private Limited Company',
  registry_url: null,
  branch: null,
  branch_status: null,
  inactive: c.inactive ?? false,
  current_status: c.current_status,
  created_at: '2011-01-01T00:00:00+00:00',
  updated_at: '2024-01-01T00:00:00+00:00',
  retrieved_at: '2024-01-01T00:00:00+00:00',
  opencorporates_url: `https://opencorporates.com/companies/${c.jurisdiction_code}/${c.company_number}`,
  previous_names: [],
  source: { publisher: 'Registry', url: null, retrieved_at: '2024-01-01T00:00:00+00:00' },
  registered_address_in_full: '1 Test Street',
});

export function openCorporatesFake(companies: FakeOcCompany[], apiToken: string) {
  const state: FakeState = { requests: [], failures: [] };
  const handler = (req: IncomingMessage, res: ServerResponse, url: URL) => {
    state.requests.push({ path: url.pathname, authorization: undefined, userAgent: req.headers['user-agent'] });
    const fail = takeFailure(state, url.pathname);
    if (fail) return json(res, fail.status, { error: { message: 'injected' } }, fail.retryAfter ? { 'retry-after': fail.retryAfter } : {});
    if (url.searchParams.get('api_token') !== apiToken) return json(res, 401, { error: { message: 'Invalid Api Token' } });
    if (url.pathname === '/v0.4/companies/search') {
      const words = (url.searchParams.get('q') ?? '').toLowerCase().split(/\W+/).filter(Boolean);
      const jur = url.searchParams.get('jurisdiction_code');
      const hits = companies.filter(
        (c) => (!jur || c.jurisdiction_code === jur) && words.some((w) => c.name.toLowerCase().includes(w)),
      );
      return json(res, 200, {
        api_version: '0.4',
        results: { companies: hits.map((c) => ({ company: summary(c) })), page: 1, per_page: 30, total_pages: 1, total_count: hits.length },
      });
    }
    const m = /^\/v0\.4\/companies\/([a-z_]+)\/([^/]+)$/.exec(url.pathname);
    const c = m ? companies.find((x) => x.jurisdiction_code === m[1] && x.company_number === decodeURIComponent(m[2]!)) : undefined;
    if (!c) return json(res, 404, { error: { message: 'No such company' } });
    return json(res, 200, {
      api_version: '0.4',
      results: {
        company: {
          ...summary(c),
          officers: (c.officers ?? []).map((o, i) => ({ officer: { id: i + 1, name: o.name, position: o.position, start_date: o.start_date ?? null, end_date: o.end_date ?? null, opencorporates_url: `https://opencorporates.com/officers/${i + 1}` } })),
          filings: (c.filings ?? []).map((f, i) => ({ filing: { id: i + 1, title: f.title, date: f.date, filing_type: f.filing_type ?? null, opencorporates_url: `https://opencorporates.com/statements/${i + 1}`, url: null } })),
        },
      },
    });
  };
  return { handler, state };
}
