/**
 * Per-source look-up: local bulk data first, the live API for what it lacks. Each source gives
 * back its acceptable candidates, best first, or says why it has none (skipped for want of
 * credentials, failed upstream, or searched without a match).
 */
import type { BusinessRequest, BusinessSource } from '../../api/requests.js';
import type { Filing, Officer } from '../../api/results.js';
import { chFilingDocumentUrl, createCompaniesHouseClient, normalizeCompanyNumber } from '../../sources/companies-house.js';
import { createGleifClient, LEI_PATTERN, type GleifRecord } from '../../sources/gleif.js';
import { UpstreamError } from '../../sources/http.js';
import { createOpenCorporatesClient } from '../../sources/opencorporates.js';
import { createSecEdgarClient, recentFilings, secDocumentUrl, type SecTicker } from '../../sources/sec-edgar.js';
import type { Store } from '../../store/local/database.js';
import type { EnginePorts } from '../types.js';
import { registeredAsKey } from './bulk-import.js';
import { compatible } from './jurisdictions.js';
import { allLocalTickers, findLocal, findLocalTickers, importInfo, interruptedImport, type LocalTicker } from './local-registry.js';
import { MATCH_THRESHOLD, matchKey, nameSimilarity, sameLegalName } from './names.js';
import { fromChProfile, fromChSearch, fromGleif, fromLocalRow, fromOpenCorporates, fromSecSubmissions, type RegistryRecord } from './records.js';

export interface Candidate {
  record: RegistryRecord;
  /** Name similarity to the request (names.ts), former/other names counted at 0.95. */
  similarity: number;
  /** The requested registration number is this record's number (or LEI/CIK). */
  numberMatch: boolean;
}

export interface SourceOutcome {
  source: BusinessSource;
  state: 'matched' | 'no_match' | 'skipped' | 'failed';
  candidates: Candidate[];
  /** Why skipped/failed, or a remark about a partial answer: becomes a result warning. */
  warning?: string;
  /** What was searched when it was not the source's API, e.g. "Companies House bulk data of 2026-11-01". */
  searchedAs?: string;
}

export interface SearchContext {
  req: BusinessRequest;
  ports: EnginePorts;
  now: Date;
  signal?: AbortSignal;
  store: Pick<Store, 'db'> | null;
  /** Filings per source, most recent first. */
  filingsLimit: number;
}

const SIMILARITY_OF_OTHER_NAMES = 0.95;
/** Candidates within this much of the best are "ambiguous" alternatives worth showing. */
export const AMBIGUITY_MARGIN = 0.02;

export function rankCandidates(req: BusinessRequest, records: RegistryRecord[], numberOf: (r: RegistryRecord) => boolean): Candidate[] {
  const out: Candidate[] = [];
  const seen = new Set<string>();
  for (const record of records) {
    if (seen.has(record.id)) continue;
    seen.add(record.id);
    if (req.jurisdiction && !compatible(req.jurisdiction, record.jurisdiction)) continue;
    const direct = nameSimilarity(req.company_name, record.name);
    const other = Math.max(0, ...record.otherNames.map((n) => nameSimilarity(req.company_name, n) * SIMILARITY_OF_OTHER_NAMES));
    const c: Candidate = { record, similarity: Math.max(direct, other), numberMatch: numberOf(record) };
    if (c.numberMatch || c.similarity >= MATCH_THRESHOLD) out.push(c);
  }
  const exact = (c: Candidate) => (sameLegalName(req.company_name, c.record.name) ? 1 : 0);
  const alive = (c: Candidate) => (c.record.status === 'active' ? 1 : 0);
  return out.sort(
    (a, b) =>
      Number(b.numberMatch) - Number(a.numberMatch) ||
      b.similarity - a.similarity ||
      exact(b) - exact(a) ||
      alive(b) - alive(a),
  );
}

const outcome = (source: BusinessSource, candidates: Candidate[], warning?: string): SourceOutcome => ({
  source,
  state: candidates.length ? 'matched' : 'no_match',
  candidates,
  ...(warning ? { warning } : {}),
});

/** The cause of an upstream failure in words (DNS failure, timeout, refused…), with the technical code after it. */
export function failureReason(err: UpstreamError): string {
  const code = /\((E[A-Z_]+|UND_ERR_[A-Z_]+)\)/.exec(err.message)?.[1];
  switch (err.kind) {
    case 'rate_limited':
      return 'rate limited (HTTP 429)';
    case 'timeout':
      return `timed out: ${err.message}`;
    case 'network':
      if (code === 'ENOTFOUND' || code === 'EAI_AGAIN') return `DNS failure: ${err.host} could not be resolved (${code})`;
      if (code === 'ECONNREFUSED') return `connection refused by ${err.host} (${code})`;
      if (code === 'ECONNRESET' || code === 'UND_ERR_SOCKET') return `connection to ${err.host} broken (${code})`;
      return err.message;
    default:
      if (err.status === 401 || err.status === 403) return `refused our credentials (HTTP ${err.status})`;
      return err.message;
  }
}

/** An upstream failure becomes a warning naming the source and the kind of failure, no URL (tokens). */
export function failure(source: BusinessSource, err: unknown): SourceOutcome {
  if (err instanceof UpstreamError) {
    return { source, state: 'failed', candidates: [], warning: `${source}: ${failureReason(err)}` };
  }
  throw err;
}

/**
 * The date of the local bulk data, or null when there is none. Rows of an import that was
 * interrupted count too (they are real register rows; verify.ts warns that they are not all).
 */
const localAsOf = (ctx: SearchContext, dataset: 'companies-house' | 'gleif' | 'sec-tickers'): string | null =>
  ctx.store ? (importInfo(ctx.store, dataset)?.imported_at ?? interruptedImport(ctx.store, dataset)?.at ?? null) : null;

/** Whether the local bulk data holds only part of its register (an import did not finish). */
const localIncomplete = (ctx: SearchContext, dataset: 'companies-house' | 'gleif' | 'sec-tickers'): boolean =>
  ctx.store !== null && interruptedImport(ctx.store, dataset) !== null;

// ---------------------------------------------------------------- Companies House

export async function searchCompaniesHouse(ctx: SearchContext): Promise<SourceOutcome> {
  const { req, ports } = ctx;
  const conf = ports.config.sources?.companies_house;
  const number = req.registration_number ? normalizeCompanyNumber(req.registration_number) : null;
  const isNumber = (r: RegistryRecord) => number !== null && r.regNumber === number;
  const client = conf?.api_key
    ? createCompaniesHouseClient(ports.http, { apiKey: conf.api_key, baseUrl: conf.base_url, signal: ctx.signal })
    : null;
  const attachDetails = (r: RegistryRecord): RegistryRecord => {
    if (!client) return r;
    r.loadOfficers = async (): Promise<Officer[]> =>
      (await client.officers(r.id))
        .filter((o) => !o.resigned_on)
        .map((o) => ({ name: o.name, role: o.officer_role, appointed_on: o.appointed_on ?? null }));
    r.loadFilings = async (): Promise<Filing[]> =>
      (await client.filingHistory(r.id, ctx.filingsLimit))
        .filter((f) => /^\d{4}-\d{2}-\d{2}$/.test(f.date))
        .map((f) => ({ type: f.type ?? f.category ?? 'filing', filed_at: f.date, url: chFilingDocumentUrl(r.id, f.transaction_id) }));
    return r;
  };

  const asOf = localAsOf(ctx, 'companies-house');
  if (ctx.store && asOf) {
    const rows = findLocal(ctx.store, { source: 'companies_house', key: matchKey(req.company_name), number: number ?? undefined });
    const ranked = rankCandidates(req, rows.map((r) => fromLocalRow(r, asOf)), isNumber);
    // The bulk file holds live companies only: a miss there is asked of the API (dissolved ones).
    if (ranked.length) return outcome('companies_house', ranked.map((c) => ({ ...c, record: attachDetails(c.record) })));
  }
  if (!client)
    return asOf && !localIncomplete(ctx, 'companies-house')
      ? {
          // The imported register was searched: a miss there is an answer, not a skip.
          source: 'companies_house',
          state: 'no_match',
          candidates: [],
          searchedAs: `Companies House bulk data of ${asOf.slice(0, 10)}`,
          warning: `companies_house: no match in the Companies House bulk data of ${asOf.slice(0, 10)}; the API, which also knows dissolved companies, was not asked (no API key configured: sources.companies_house.api_key)`,
        }
      : {
          source: 'companies_house',
          state: 'skipped',
          candidates: [],
          warning: asOf
            ? 'companies_house: no match in the local bulk data, which is incomplete (its import did not finish), and no API key configured (sources.companies_house.api_key)'
            : 'companies_house: skipped, no API key configured (sources.companies_house.api_key)',
        };
  const nowIso = ctx.now.toISOString();
  try {
    if (number) {
      const p = await client.profile(number);
      if (p) {
        const ranked = rankCandidates(req, [fromChProfile(p, nowIso)], isNumber);
        if (ranked.length) return outcome('companies_house', ranked.map((c) => ({ ...c, record: attachDetails(c.record) })));
      }
    }
    const items = await client.search(req.company_name, 20);
    const ranked = rankCandidates(req, items.map((i) => fromChSearch(i, nowIso)), isNumber);
    // The search index is enough to rank; the profile of the winner adds status detail.
    const best = ranked[0];
    if (best) {
      const p = await client.profile(best.record.id);
      if (p) best.record = { ...fromChProfile(p, nowIso) };
    }
    return outcome('companies_house', ranked.map((c) => ({ ...c, record: attachDetails(c.record) })));
  } catch (err) {
    return failure('companies_house', err);
  }
}

// ---------------------------------------------------------------- SEC EDGAR

export async function searchSecEdgar(ctx: SearchContext): Promise<SourceOutcome> {
  const { req, ports } = ctx;
  if (!ports.config.contact)
    return {
      source: 'sec_edgar',
      state: 'skipped',
      candidates: [],
      warning: 'sec_edgar: skipped, SEC requires a contact address in the User-Agent (config `contact`)',
    };
  const conf = ports.config.sources?.sec_edgar;
  const client = createSecEdgarClient(ports.http, { baseUrl: conf?.base_url, tickersUrl: conf?.tickers_url, signal: ctx.signal });
  const rawNumber = req.registration_number?.replace(/^cik\s*/i, '').trim() ?? '';
  const cikAsked = /^\d{1,10}$/.test(rawNumber) ? Number(rawNumber) : null;
  const key = matchKey(req.company_name);
  try {
    let tickers: LocalTicker[] = [];
    if (ctx.store && localAsOf(ctx, 'sec-tickers')) {
      tickers = findLocalTickers(ctx.store, cikAsked !== null ? { cik: cikAsked } : { key });
      if (!tickers.length && cikAsked !== null) tickers = findLocalTickers(ctx.store, { key });
      if (!tickers.length) tickers = similarTickers(req.company_name, allLocalTickers(ctx.store));
    }
    if (!tickers.length) {
      const live = await client.tickers();
      const byCik = cikAsked !== null ? live.filter((t) => Number(t.cik_str) === cikAsked) : [];
      tickers = byCik.length ? byCik.map(asLocal) : similarTickers(req.company_name, live.map(asLocal));
    }
    // One filer can have several tickers (share classes): one candidate per CIK, at most three.
    const ciks = [...new Set(tickers.map((t) => t.cik))].slice(0, 3);
    if (!ciks.length && cikAsked !== null) ciks.push(cikAsked);
    const records: RegistryRecord[] = [];
    for (const cik of ciks) {
      const sub = await client.submissions(cik);
      if (!sub) continue;
      const r = fromSecSubmissions(sub, ctx.now);
      const filings = recentFilings(sub);
      r.loadFilings = async () =>
        filings
          .filter((f) => /^\d{4}-\d{2}-\d{2}$/.test(f.filingDate))
          .slice(0, ctx.filingsLimit)
          .map((f) => ({ type: f.form, filed_at: f.filingDate, url: secDocumentUrl(sub.cik, f) }));
      records.push(r);
    }
    const ranked = rankCandidates(req, records, (r) => cikAsked !== null && Number(r.id) === cikAsked);
    return outcome('sec_edgar', ranked);
  } catch (err) {
    return failure('sec_edgar', err);
  }
}

const asLocal = (t: SecTicker | LocalTicker): LocalTicker => ({ cik: Number('cik' in t ? t.cik : t.cik_str), ticker: t.ticker, title: t.title });

/** The tickers file is small (~10k filers): score every title, keep the acceptable ones. */
function similarTickers(name: string, all: LocalTicker[]): LocalTicker[] {
  const key = matchKey(name);
  const exact = all.filter((t) => matchKey(t.title) === key);
  if (exact.length) return exact;
  return all
    .map((t) => ({ t, s: nameSimilarity(name, t.title) }))
    .filter((x) => x.s >= MATCH_THRESHOLD)
    .sort((a, b) => b.s - a.s)
    .slice(0, 5)
    .map((x) => x.t);
}

// ---------------------------------------------------------------- GLEIF

export async function searchGleif(ctx: SearchContext): Promise<SourceOutcome> {
  const { req, ports } = ctx;
  const raw = req.registration_number?.trim().toUpperCase() ?? '';
  const lei = LEI_PATTERN.test(raw) ? raw : null;
  const regKey = raw && !lei ? registeredAsKey(raw, req.jurisdiction ?? (normalizeCompanyNumber(raw) ? 'gb' : null)) : null;
  const isNumber = (r: RegistryRecord) => (lei !== null && r.id === lei) || (regKey !== null && r.regNumber === regKey);

  const asOf = localAsOf(ctx, 'gleif');
  if (ctx.store && asOf) {
    const rows = findLocal(ctx.store, { source: 'gleif', key: matchKey(req.company_name), number: lei ?? regKey ?? undefined });
    const ranked = rankCandidates(req, rows.map((r) => fromLocalRow(r, asOf)), isNumber);
    if (ranked.length) return outcome('gleif', ranked);
  }
  const conf = ports.config.sources?.gleif;
  const client = createGleifClient(ports.http, { baseUrl: conf?.base_url, signal: ctx.signal });
  const nowIso = ctx.now.toISOString();
  try {
    let found: GleifRecord[] = [];
    if (lei) {
      const one = await client.byLei(lei);
      if (one) found = [one];
    } else if (regKey) {
      found = await client.byRegisteredAs(regKey);
      if (!found.length && raw.replace(/\s+/g, '') !== regKey) found = await client.byRegisteredAs(raw.replace(/\s+/g, ''));
    }
    let ranked = rankCandidates(req, found.map((g) => fromGleif(g, nowIso)), isNumber);
    if (!ranked.length) {
      found = await client.byLegalName(req.company_name);
      ranked = rankCandidates(req, found.map((g) => fromGleif(g, nowIso)), isNumber);
    }
    if (!ranked.length) {
      // Full text on the distinctive words only: "Acme Widgets" finds "ACME WIDGETS LIMITED".
      found = await client.byFullText(matchKey(req.company_name) || req.company_name);
      ranked = rankCandidates(req, found.map((g) => fromGleif(g, nowIso)), isNumber);
    }
    return outcome('gleif', ranked);
  } catch (err) {
    return failure('gleif', err);
  }
}

// ---------------------------------------------------------------- OpenCorporates

export async function searchOpenCorporates(ctx: SearchContext): Promise<SourceOutcome> {
  const { req, ports } = ctx;
  const conf = ports.config.sources?.opencorporates;
  if (!conf?.api_token)
    return {
      source: 'opencorporates',
      state: 'skipped',
      candidates: [],
      warning: 'opencorporates: skipped, no API token configured (sources.opencorporates.api_token)',
    };
  const client = createOpenCorporatesClient(ports.http, { apiToken: conf.api_token, baseUrl: conf.base_url, signal: ctx.signal });
  const nowIso = ctx.now.toISOString();
  const numberKey = req.registration_number ? registeredAsKey(req.registration_number, req.jurisdiction ?? null) : null;
  const isNumber = (r: RegistryRecord) => numberKey !== null && r.regNumber === numberKey;
  const attach = (r: RegistryRecord): RegistryRecord => {
    const [jur, ...rest] = r.id.split('/');
    const num = rest.join('/');
    let detail: ReturnType<typeof client.company> | null = null;
    const load = () => (detail ??= client.company(jur!, num));
    r.loadOfficers = async () =>
      ((await load())?.officers ?? [])
        .map((o) => o.officer)
        .filter((o) => o?.name && !o.end_date)
        .map((o) => ({ name: o.name, role: o.position ?? 'officer', appointed_on: o.start_date?.slice(0, 10) ?? null }));
    r.loadFilings = async () =>
      ((await load())?.filings ?? [])
        .map((f) => f.filing)
        .filter((f) => f?.date && /^\d{4}-\d{2}-\d{2}/.test(f.date))
        .slice(0, ctx.filingsLimit)
        .map((f) => ({ type: f.filing_type ?? f.title ?? 'filing', filed_at: f.date!.slice(0, 10), url: f.url ?? f.opencorporates_url ?? r.url }));
    return r;
  };
  try {
    const records: RegistryRecord[] = [];
    if (numberKey && req.jurisdiction) {
      const one = await client.company(req.jurisdiction, req.registration_number!.trim());
      if (one) records.push(fromOpenCorporates(one, nowIso));
    }
    if (!records.length) records.push(...(await client.search(req.company_name, req.jurisdiction)).map((c) => fromOpenCorporates(c, nowIso)));
    return outcome('opencorporates', rankCandidates(req, records, isNumber).map((c) => ({ ...c, record: attach(c.record) })));
  } catch (err) {
    return failure('opencorporates', err);
  }
}
