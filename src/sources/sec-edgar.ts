/**
 * SEC EDGAR client. Two public JSON resources (sec.gov/os/accessing-edgar-data):
 * - `www.sec.gov/files/company_tickers.json`: `{"0":{"cik_str":320193,"ticker":"AAPL","title":"Apple Inc."},…}`,
 *   about 10,000 listed filers; fetched once a day (HTTP-layer cache) and matched locally by name;
 * - `data.sec.gov/submissions/CIK##########.json` (CIK zero-padded to 10 digits): the filer's
 *   name, state of incorporation and `filings.recent`, whose fields are parallel arrays (columnar).
 * SEC fair access asks for at most 10 requests per second and a User-Agent that names the caller
 * with a contact address: the HTTP client's `userAgent` carries the configured contact.
 */
import { UpstreamError, type HttpClient } from './http.js';

export const SEC_DATA_BASE_URL = 'https://data.sec.gov';
export const SEC_TICKERS_URL = 'https://www.sec.gov/files/company_tickers.json';
export const SEC_WEB = 'https://www.sec.gov';

export interface SecTicker {
  cik_str: number;
  ticker: string;
  title: string;
}

export interface SecRecentFilings {
  accessionNumber: string[];
  filingDate: string[];
  reportDate?: string[];
  form: string[];
  items?: string[];
  primaryDocument: string[];
  primaryDocDescription?: string[];
}

export interface SecSubmissions {
  cik: string;
  name: string;
  entityType?: string;
  sic?: string;
  sicDescription?: string;
  tickers?: string[];
  exchanges?: string[];
  stateOfIncorporation?: string;
  stateOfIncorporationDescription?: string;
  formerNames?: { name: string; from?: string; to?: string }[];
  filings: { recent: SecRecentFilings; files?: unknown[] };
}

/** One row of `filings.recent`, turned from columns into an object. */
export interface SecFiling {
  accessionNumber: string;
  filingDate: string;
  form: string;
  items: string;
  primaryDocument: string;
  description: string;
}

export const padCik = (cik: number | string): string => String(cik).replace(/^0+/, '').padStart(10, '0');

/** Reads the columnar `filings.recent` into rows; tolerates arrays of unequal length. */
export function recentFilings(sub: SecSubmissions): SecFiling[] {
  const r = sub.filings?.recent;
  if (!r || !Array.isArray(r.form)) return [];
  const out: SecFiling[] = [];
  for (let i = 0; i < r.form.length; i++) {
    out.push({
      accessionNumber: r.accessionNumber?.[i] ?? '',
      filingDate: r.filingDate?.[i] ?? '',
      form: r.form[i] ?? '',
      items: r.items?.[i] ?? '',
      primaryDocument: r.primaryDocument?.[i] ?? '',
      description: r.primaryDocDescription?.[i] ?? '',
    });
  }
  return out;
}

/** The filing's primary document in the EDGAR archive (folder = accession number without dashes). */
export function secDocumentUrl(cik: string | number, f: Pick<SecFiling, 'accessionNumber' | 'primaryDocument'>): string {
  const folder = `${SEC_WEB}/Archives/edgar/data/${Number(String(cik))}/${f.accessionNumber.replace(/-/g, '')}`;
  return f.primaryDocument ? `${folder}/${encodeURIComponent(f.primaryDocument)}` : `${folder}/`;
}
export const secCompanyWebUrl = (cik: string | number): string =>
  `${SEC_WEB}/cgi-bin/browse-edgar?action=getcompany&CIK=${padCik(cik)}`;

export interface SecEdgarClientOptions {
  baseUrl?: string;
  tickersUrl?: string;
  signal?: AbortSignal;
}

export interface SecEdgarClient {
  tickers(): Promise<SecTicker[]>;
  /** null when EDGAR has no filer with that CIK (404). */
  submissions(cik: number | string): Promise<SecSubmissions | null>;
}

export function createSecEdgarClient(http: HttpClient, o: SecEdgarClientOptions = {}): SecEdgarClient {
  const base = (o.baseUrl ?? SEC_DATA_BASE_URL).replace(/\/+$/, '');
  const tickersUrl = o.tickersUrl ?? SEC_TICKERS_URL;
  return {
    async tickers() {
      // ~1 MB that changes daily: cache it for a day rather than fetching it per request.
      const body = await http.getJson<Record<string, SecTicker>>(tickersUrl, {
        signal: o.signal,
        cacheTtlMs: 86_400_000,
        timeoutMs: 20_000,
      });
      if (!body || typeof body !== 'object')
        throw new UpstreamError(new URL(tickersUrl).host, 'bad_body', 'company_tickers.json is not an object');
      return Object.values(body).filter((t) => t && typeof t.title === 'string' && Number.isFinite(Number(t.cik_str)));
    },
    async submissions(cik) {
      try {
        return await http.getJson<SecSubmissions>(`${base}/submissions/CIK${padCik(cik)}.json`, {
          signal: o.signal,
          cacheTtlMs: 3_600_000,
          timeoutMs: 20_000,
        });
      } catch (err) {
        if (err instanceof UpstreamError && err.status === 404) return null;
        throw err;
      }
    },
  };
}
