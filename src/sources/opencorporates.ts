/**
 * OpenCorporates API v0.4 client (api.opencorporates.com): the extra registry source of the
 * highest plan. Authenticated with `api_token` as a query parameter, so request URLs hold the
 * token: errors built here name the host and status only, never the URL.
 * - `GET /companies/search?q=…&jurisdiction_code=…` → `results.companies[].company`;
 * - `GET /companies/{jurisdiction_code}/{company_number}` → `results.company`, with `officers`
 *   and `filings` when the account's plan includes them.
 * `current_status` is the registry's own free text ("Active", "Dissolved", "Good Standing", …).
 */
import { UpstreamError, type HttpClient } from './http.js';

export const OPENCORPORATES_BASE_URL = 'https://api.opencorporates.com/v0.4';

export interface OcCompany {
  name: string;
  company_number: string;
  jurisdiction_code: string;
  incorporation_date?: string | null;
  dissolution_date?: string | null;
  company_type?: string | null;
  current_status?: string | null;
  inactive?: boolean | null;
  registry_url?: string | null;
  opencorporates_url?: string;
  previous_names?: { company_name: string }[] | null;
  officers?: { officer: { name: string; position?: string | null; start_date?: string | null; end_date?: string | null } }[];
  filings?: { filing: { title?: string | null; date?: string | null; filing_type?: string | null; url?: string | null; opencorporates_url?: string | null } }[];
}
interface OcSearch {
  results?: { companies?: { company: OcCompany }[]; total_count?: number };
}
interface OcOne {
  results?: { company?: OcCompany };
}

export interface OpenCorporatesClientOptions {
  apiToken: string;
  baseUrl?: string;
  signal?: AbortSignal;
}

export interface OpenCorporatesClient {
  search(query: string, jurisdictionCode?: string, limit?: number): Promise<OcCompany[]>;
  company(jurisdictionCode: string, number: string): Promise<OcCompany | null>;
}

export function createOpenCorporatesClient(http: HttpClient, o: OpenCorporatesClientOptions): OpenCorporatesClient {
  const base = (o.baseUrl ?? OPENCORPORATES_BASE_URL).replace(/\/+$/, '');
  const get = async <T>(path: string, params: Record<string, string>): Promise<T | null> => {
    const q = new URLSearchParams({ ...params, api_token: o.apiToken });
    try {
      return await http.getJson<T>(`${base}${path}?${q}`, { signal: o.signal, cacheTtlMs: 3_600_000 });
    } catch (err) {
      if (err instanceof UpstreamError && err.status === 404) return null;
      // OpenCorporates answers 401 for a bad token and 403 when the plan's quota is used up.
      if (err instanceof UpstreamError && (err.status === 401 || err.status === 403))
        throw new UpstreamError(err.host, 'http', `${err.host} refused the API token (HTTP ${err.status})`, err.status);
      throw err;
    }
  };
  return {
    async search(query, jurisdictionCode, limit = 20) {
      const params: Record<string, string> = { q: query, per_page: String(limit) };
      if (jurisdictionCode) params.jurisdiction_code = jurisdictionCode;
      const body = await get<OcSearch>('/companies/search', params);
      return (body?.results?.companies ?? []).map((c) => c.company).filter((c) => c && typeof c.name === 'string');
    },
    async company(jurisdictionCode, number) {
      const body = await get<OcOne>(`/companies/${encodeURIComponent(jurisdictionCode)}/${encodeURIComponent(number)}`, {});
      return body?.results?.company ?? null;
    },
  };
}
