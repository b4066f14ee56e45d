/**
 * A fake SEC EDGAR: `/files/company_tickers.json` (object of `{cik_str, ticker, title}`) and
 * `/submissions/CIK##########.json` with the columnar `filings.recent`. Like the real service it
 * refuses (403) requests whose User-Agent declares no contact address.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { takeFailure, type FakeState } from './companies-house.js';

export interface FakeSecFiler {
  cik: number;
  name: string;
  tickers: string[];
  stateOfIncorporation: string;
  formerNames?: string[];
  filings: { form: string; filingDate: string; accessionNumber: string; primaryDocument: string; items?: string }[];
}

const json = (res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}) => {
  res.writeHead(status, { 'content-type': 'application/json', ...headers });
  res.end(JSON.stringify(body));
};

export function secEdgarFake(filers: FakeSecFiler[]) {
  const state: FakeState = { requests: [], failures: [] };
  const handler = (req: IncomingMessage, res: ServerResponse, url: URL) => {
    state.requests.push({ path: url.pathname, authorization: req.headers.authorization, userAgent: req.headers['user-agent'] });
    const fail = takeFailure(state, url.pathname);
    if (fail) return json(res, fail.status, { message: 'injected' }, fail.retryAfter ? { 'retry-after': fail.retryAfter } : {});
    if (!/@|mailto:|\+https?:/.test(req.headers['user-agent'] ?? '')) {
      res.writeHead(403, { 'content-type': 'text/html' });
      return res.end('<html><body>Your Request Originates from an Undeclared Automated Tool</body></html>');
    }
    if (url.pathname === '/files/company_tickers.json') {
      const body: Record<string, { cik_str: number; ticker: string; title: string }> = {};
      let i = 0;
      for (const f of filers) for (const t of f.tickers) body[String(i++)] = { cik_str: f.cik, ticker: t, title: f.name };
      return json(res, 200, body);
    }
    const m = /^\/submissions\/CIK(\d{10})\.json$/.exec(url.pathname);
    const f = m ? filers.find((x) => x.cik === Number(m[1])) : undefined;
    if (!f) {
      res.writeHead(404, { 'content-type': 'application/xml' });
      return res.end('<?xml version="1.0"?><Error><Code>NoSuchKey</Code></Error>');
    }
    const sorted = [...f.filings].sort((a, b) => (a.filingDate < b.filingDate ? 1 : -1));
    return json(res, 200, {
      cik: String(f.cik),
      entityType: 'operating',
      sic: '3571',
      sicDescription: 'Electronic Computers',
      name: f.name,
      tickers: f.tickers,
      exchanges: f.tickers.map(() => 'Nasdaq'),
      ein: '000000000',
      stateOfIncorporation: f.stateOfIncorporation,
      stateOfIncorporationDescription: f.stateOfIncorporation,
      formerNames: (f.formerNames ?? []).map((name) => ({ name, from: '1994-01-01T00:00:00.000Z', to: '2007-01-01T00:00:00.000Z' })),
      filings: {
        recent: {
          accessionNumber: sorted.map((x) => x.accessionNumber),
          filingDate: sorted.map((x) => x.filingDate),
          reportDate: sorted.map(() => ''),
          acceptanceDateTime: sorted.map((x) => `${x.filingDate}T16:30:00.000Z`),
          act: sorted.map(() => '34'),
          form: sorted.map((x) => x.form),
          fileNumber: sorted.map(() => '001-36743'),
          filmNumber: sorted.map(() => '241000000'),
          items: sorted.map((x) => x.items ?? ''),
          size: sorted.map(() => 1000),
          isXBRL: sorted.map(() => 1),
          isInlineXBRL: sorted.map(() => 1),
          primaryDocument: sorted.map((x) => x.primaryDocument),
          primaryDocDescription: sorted.map((x) => x.form),
        },
        files: [],
      },
    });
  };
  return { handler, state };
}
