/**
 * One shape for what any registry says about a company, and the converters from each source's
 * own format (API answers and local bulk rows) into it.
 */
import type { BusinessSource } from '../../api/requests.js';
import type { CompanyStatus, Filing, Officer } from '../../api/results.js';
import { chCompanyWebUrl, type ChProfile, type ChSearchItem } from '../../sources/companies-house.js';
import { gleifRecordWebUrl, type GleifRecord } from '../../sources/gleif.js';
import type { OcCompany } from '../../sources/opencorporates.js';
import { padCik, recentFilings, secCompanyWebUrl, type SecSubmissions } from '../../sources/sec-edgar.js';
import { registeredAsKey } from './bulk-import.js';
import { fromIso, fromOpenCorporates as ocJurisdiction, fromSecState } from './jurisdictions.js';
import type { LocalRow } from './local-registry.js';
import { companiesHouseStatus, freeTextStatus, gleifStatus, inferSecStatus } from './statuses.js';

export interface RegistryRecord {
  source: BusinessSource;
  /** `api`: fetched now; `local`: from an imported bulk file (as of `asOf`). */
  via: 'api' | 'local';
  /** The source's own key: company number, 10-digit CIK, LEI, or "jurisdiction/number". */
  id: string;
  name: string;
  /** Number in the company register of its jurisdiction (null when the source has none: SEC). */
  regNumber: string | null;
  jurisdiction: string | null;
  incorporationDate: string | null;
  rawStatus: string | null;
  status: CompanyStatus | null;
  /** How the status was obtained when it is not the registry's own field (SEC). */
  statusNote?: string;
  url: string;
  otherNames: string[];
  /** When the data was true: now for live answers, the import time for bulk data. */
  asOf: string;
  /** Other facts worth a line in the evidence (e.g. a lapsed LEI). */
  notes: string[];
  loadOfficers?: () => Promise<Officer[]>;
  loadFilings?: () => Promise<Filing[]>;
}

const dateOnly = (s: string | null | undefined): string | null => (s && /^\d{4}-\d{2}-\d{2}/.test(s) ? s.slice(0, 10) : null);

export function fromChSearch(item: ChSearchItem, asOf: string): RegistryRecord {
  return {
    source: 'companies_house',
    via: 'api',
    id: item.company_number,
    name: item.title,
    regNumber: item.company_number,
    jurisdiction: 'gb',
    incorporationDate: dateOnly(item.date_of_creation),
    rawStatus: item.company_status ?? null,
    status: companiesHouseStatus(item.company_status),
    url: chCompanyWebUrl(item.company_number),
    otherNames: [],
    asOf,
    notes: [],
  };
}

export function fromChProfile(p: ChProfile, asOf: string): RegistryRecord {
  const notes: string[] = [];
  if (p.company_status_detail) notes.push(`status detail: ${p.company_status_detail}`);
  if (p.date_of_cessation) notes.push(`ceased ${p.date_of_cessation}`);
  if (p.has_insolvency_history) notes.push('has an insolvency history');
  return {
    ...fromChSearch({ title: p.company_name, company_number: p.company_number, company_status: p.company_status, date_of_creation: p.date_of_creation }, asOf),
    notes,
  };
}

export function fromLocalRow(r: LocalRow, asOf: string): RegistryRecord {
  let detail: Record<string, string | undefined> = {};
  try {
    detail = r.detail ? (JSON.parse(r.detail) as Record<string, string>) : {};
  } catch {
    // A damaged detail blob only costs the notes.
  }
  const notes: string[] = [];
  if (r.source === 'companies_house') {
    if (detail.category) notes.push(`category: ${detail.category}`);
    return {
      source: 'companies_house',
      via: 'local',
      id: r.record_id,
      name: r.name,
      regNumber: r.reg_number,
      jurisdiction: r.jurisdiction ?? 'gb',
      incorporationDate: r.incorporated_on,
      rawStatus: r.status,
      status: companiesHouseStatus(r.status),
      url: chCompanyWebUrl(r.record_id),
      otherNames: [],
      asOf,
      notes,
    };
  }
  if (detail.registration_status && detail.registration_status !== 'ISSUED') notes.push(`LEI registration ${detail.registration_status}`);
  return {
    source: 'gleif',
    via: 'local',
    id: r.record_id,
    name: r.name,
    regNumber: r.reg_number,
    jurisdiction: r.jurisdiction,
    incorporationDate: r.incorporated_on,
    rawStatus: r.status,
    status: gleifStatus(r.status, detail.expiration_reason),
    url: gleifRecordWebUrl(r.record_id),
    otherNames: [],
    asOf,
    notes,
  };
}

export function fromGleif(rec: GleifRecord, asOf: string): RegistryRecord {
  const e = rec.attributes.entity;
  const reg = rec.attributes.registration;
  const jurisdiction = fromIso(e.jurisdiction);
  const notes: string[] = [];
  if (reg?.status && reg.status !== 'ISSUED') notes.push(`LEI registration ${reg.status}`);
  if (e.expiration?.reason) notes.push(`expiration reason ${e.expiration.reason}`);
  return {
    source: 'gleif',
    via: 'api',
    id: rec.attributes.lei ?? rec.id,
    name: e.legalName.name,
    regNumber: e.registeredAs ? registeredAsKey(e.registeredAs, jurisdiction) : null,
    jurisdiction,
    incorporationDate: dateOnly(e.creationDate),
    rawStatus: e.status ?? null,
    status: gleifStatus(e.status, e.expiration?.reason),
    url: gleifRecordWebUrl(rec.attributes.lei ?? rec.id),
    otherNames: (e.otherNames ?? []).map((n) => n.name).filter(Boolean),
    asOf,
    notes,
  };
}

export function fromSecSubmissions(sub: SecSubmissions, now: Date): RegistryRecord {
  const inferred = inferSecStatus(recentFilings(sub), now);
  const notes: string[] = [];
  if (sub.tickers?.length) notes.push(`tickers ${sub.tickers.join(', ')}`);
  if (sub.stateOfIncorporation && !fromSecState(sub.stateOfIncorporation))
    notes.push(`incorporated outside the US (EDGAR code ${sub.stateOfIncorporation}${sub.stateOfIncorporationDescription ? `, ${sub.stateOfIncorporationDescription}` : ''})`);
  return {
    source: 'sec_edgar',
    via: 'api',
    id: padCik(sub.cik),
    name: sub.name,
    regNumber: null,
    jurisdiction: fromSecState(sub.stateOfIncorporation),
    incorporationDate: null,
    rawStatus: null,
    status: inferred.status,
    statusNote: `status inferred from filing activity: ${inferred.reason}`,
    url: secCompanyWebUrl(sub.cik),
    otherNames: (sub.formerNames ?? []).map((n) => n.name).filter(Boolean),
    asOf: now.toISOString(),
    notes,
  };
}

export function fromOpenCorporates(c: OcCompany, asOf: string): RegistryRecord {
  let status = freeTextStatus(c.current_status);
  if (!status && c.dissolution_date) status = 'dissolved';
  if (!status && c.inactive === true) status = 'inactive';
  if (!status && c.inactive === false) status = 'active';
  const jurisdiction = ocJurisdiction(c.jurisdiction_code);
  return {
    source: 'opencorporates',
    via: 'api',
    id: `${c.jurisdiction_code}/${c.company_number}`,
    name: c.name,
    regNumber: registeredAsKey(c.company_number, jurisdiction),
    jurisdiction,
    incorporationDate: dateOnly(c.incorporation_date),
    rawStatus: c.current_status ?? (c.inactive === true ? 'inactive' : null),
    status,
    url: c.opencorporates_url ?? `https://opencorporates.com/companies/${c.jurisdiction_code}/${encodeURIComponent(c.company_number)}`,
    otherNames: (c.previous_names ?? []).map((p) => p.company_name).filter(Boolean),
    asOf,
    notes: c.dissolution_date ? [`dissolved ${c.dissolution_date}`] : [],
  };
}
