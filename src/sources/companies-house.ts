/**
 * Companies House Public Data API client (UK register). Documented at
 * developer.company-information.service.gov.uk: HTTP Basic auth with the API key as the user
 * name and an empty password; 600 requests per 5 minutes per key (enforced by the HTTP layer's
 * table in rate-limits.ts). Company numbers are 8 characters: digits zero-padded, or a two-letter
 * prefix (SC, NI, OC, …) and six digits.
 */
import { UpstreamError, type HttpClient } from './http.js';

export const COMPANIES_HOUSE_BASE_URL = 'https://api.company-information.service.gov.uk';
/** The public web register, for evidence and filing document links humans can open. */
export const COMPANIES_HOUSE_WEB = 'https://find-and-update.company-information.service.gov.uk';

export interface ChSearchItem {
  title: string;
  company_number: string;
  company_status?: string;
  company_type?: string;
  date_of_creation?: string;
  date_of_cessation?: string;
  address_snippet?: string;
  links?: { self?: string };
}
export interface ChSearchResponse {
  items?: ChSearchItem[];
  total_results?: number;
  items_per_page?: number;
  start_index?: number;
  kind?: string;
}
export interface ChProfile {
  company_name: string;
  company_number: string;
  company_status?: string;
  company_status_detail?: string;
  date_of_creation?: string;
  date_of_cessation?: string;
  type?: string;
  jurisdiction?: string;
  has_insolvency_history?: boolean;
  links?: { self?: string; filing_history?: string; officers?: string };
}
export interface ChOfficer {
  name: string;
  officer_role: string;
  appointed_on?: string;
  resigned_on?: string;
}
export interface ChOfficersResponse {
  items?: ChOfficer[];
  active_count?: number;
  resigned_count?: number;
  total_results?: number;
}
export interface ChFiling {
  transaction_id: string;
  type?: string;
  category?: string;
  date: string;
  description?: string;
  links?: { self?: string; document_metadata?: string };
}
export interface ChFilingHistoryResponse {
  items?: ChFiling[];
  total_count?: number;
}

/** 8-character company number: "123" → "00000123", "sc 123" → "SC000123"; null when not a CH number. */
export function normalizeCompanyNumber(raw: string): string | null {
  const s = raw.replace(/\s+/g, '').toUpperCase();
  if (/^\d{1,8}$/.test(s)) return s.padStart(8, '0');
  const m = /^([A-Z]{2})(\d{1,6})$/.exec(s);
  if (m) return m[1]! + m[2]!.padStart(6, '0');
  return null;
}

export const chCompanyWebUrl = (number: string): string => `${COMPANIES_HOUSE_WEB}/company/${encodeURIComponent(number)}`;
export const chFilingDocumentUrl = (number: string, transactionId: string): string =>
  `${chCompanyWebUrl(number)}/filing-history/${encodeURIComponent(transactionId)}/document?format=pdf&download=0`;

export interface CompaniesHouseClientOptions {
  apiKey: string;
  baseUrl?: string;
  signal?: AbortSignal;
}

export interface CompaniesHouseClient {
  search(query: string, limit?: number): Promise<ChSearchItem[]>;
  /** null when the register has no such number (404). */
  profile(number: string): Promise<ChProfile | null>;
  officers(number: string): Promise<ChOfficer[]>;
  filingHistory(number: string, limit?: number): Promise<ChFiling[]>;
}

export function createCompaniesHouseClient(http: HttpClient, o: CompaniesHouseClientOptions): CompaniesHouseClient {
  const base = (o.baseUrl ?? COMPANIES_HOUSE_BASE_URL).replace(/\/+$/, '');
  // The key is the Basic user name with an empty password; it is never logged or put in messages.
  const headers = { authorization: `Basic ${Buffer.from(`${o.apiKey}:`).toString('base64')}` };
  const get = <T>(path: string): Promise<T> =>
    http.getJson<T>(`${base}${path}`, { headers, signal: o.signal, cacheTtlMs: 3_600_000 });
  const orNull = async <T>(p: Promise<T>): Promise<T | null> => {
    try {
      return await p;
    } catch (err) {
      if (err instanceof UpstreamError && err.status === 404) return null;
      throw err;
    }
  };
  const path = (n: string) => `/company/${encodeURIComponent(n)}`;
  return {
    async search(query, limit = 20) {
      const q = new URLSearchParams({ q: query, items_per_page: String(limit) });
      return (await get<ChSearchResponse>(`/search/companies?${q}`)).items ?? [];
    },
    profile: (number) => orNull(get<ChProfile>(path(number))),
    async officers(number) {
      const r = await orNull(get<ChOfficersResponse>(`${path(number)}/officers?items_per_page=100`));
      return r?.items ?? [];
    },
    async filingHistory(number, limit = 25) {
      const r = await orNull(get<ChFilingHistoryResponse>(`${path(number)}/filing-history?items_per_page=${limit}`));
      return r?.items ?? [];
    },
  };
}
