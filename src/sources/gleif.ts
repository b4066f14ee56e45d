/**
 * GLEIF LEI records API (api.gleif.org/api/v1, JSON:API). Free, no key. Records are searched by
 * legal name (`filter[entity.legalName]`, then `filter[fulltext]`), by the local registry number (`filter[entity.registeredAs]`,
 * the join key to Companies House numbers and state file numbers) and fetched by LEI.
 * `entity.status` (ACTIVE/INACTIVE) is the legal entity's state; `registration.status`
 * (ISSUED, LAPSED, RETIRED, …) is only the LEI's own state.
 */
import { UpstreamError, type HttpClient } from './http.js';

export const GLEIF_BASE_URL = 'https://api.gleif.org/api/v1';
export const gleifRecordWebUrl = (lei: string): string => `https://search.gleif.org/#/record/${encodeURIComponent(lei)}`;

export interface GleifEntity {
  legalName: { name: string; language?: string };
  otherNames?: { name: string; type?: string }[];
  registeredAt?: { id?: string | null; other?: string | null };
  registeredAs?: string | null;
  /** ISO 3166 "GB" or ISO 3166-2 "US-DE". */
  jurisdiction?: string | null;
  legalForm?: { id?: string | null; other?: string | null };
  status?: string;
  expiration?: { date?: string | null; reason?: string | null };
  creationDate?: string | null;
}
export interface GleifRegistration {
  initialRegistrationDate?: string;
  lastUpdateDate?: string;
  status?: string;
  nextRenewalDate?: string;
}
export interface GleifRecord {
  type: 'lei-records';
  id: string;
  attributes: { lei: string; entity: GleifEntity; registration: GleifRegistration };
}
interface GleifList {
  data?: GleifRecord[];
  meta?: { pagination?: { total?: number } };
}
interface GleifOne {
  data?: GleifRecord;
}

export const LEI_PATTERN = /^[A-Z0-9]{18}[0-9]{2}$/;

export interface GleifClientOptions {
  baseUrl?: string;
  signal?: AbortSignal;
}

export interface GleifClient {
  byLegalName(name: string, limit?: number): Promise<GleifRecord[]>;
  /** GLEIF's full-text search over names and other fields: the fallback when no legal name is equal. */
  byFullText(text: string, limit?: number): Promise<GleifRecord[]>;
  byRegisteredAs(number: string, limit?: number): Promise<GleifRecord[]>;
  byLei(lei: string): Promise<GleifRecord | null>;
}

export function createGleifClient(http: HttpClient, o: GleifClientOptions = {}): GleifClient {
  const base = (o.baseUrl ?? GLEIF_BASE_URL).replace(/\/+$/, '');
  const headers = { accept: 'application/vnd.api+json' };
  const list = async (filter: string, value: string, limit: number): Promise<GleifRecord[]> => {
    const q = new URLSearchParams({ [`filter[${filter}]`]: value, 'page[size]': String(limit) });
    const body = await http.getJson<GleifList>(`${base}/lei-records?${q}`, { headers, signal: o.signal, cacheTtlMs: 3_600_000 });
    return Array.isArray(body.data) ? body.data.filter((r) => r?.attributes?.entity?.legalName?.name) : [];
  };
  return {
    byLegalName: (name, limit = 10) => list('entity.legalName', name, limit),
    byFullText: (text, limit = 10) => list('fulltext', text, limit),
    byRegisteredAs: (number, limit = 10) => list('entity.registeredAs', number, limit),
    async byLei(lei) {
      try {
        const body = await http.getJson<GleifOne>(`${base}/lei-records/${encodeURIComponent(lei)}`, {
          headers,
          signal: o.signal,
          cacheTtlMs: 3_600_000,
        });
        return body.data ?? null;
      } catch (err) {
        if (err instanceof UpstreamError && err.status === 404) return null;
        throw err;
      }
    },
  };
}
