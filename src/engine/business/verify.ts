/**
 * Live business verification (SPEC 2.3, 4.2): ask the registries that can hold the company —
 * local bulk data first, APIs for what it lacks — then reconcile their answers into one result.
 */
import { VerityError } from '../../api/errors.js';
import { OPENCORPORATES_PLAN, planAtLeast } from '../../api/plans.js';
import { BUSINESS_SOURCES, type BusinessRequest, type BusinessSource } from '../../api/requests.js';
import type { BusinessResult, Filing, Officer } from '../../api/results.js';
import { UpstreamError } from '../../sources/http.js';
import type { Store } from '../../store/local/database.js';
import type { Computed, EnginePorts, VerifyOptions } from '../types.js';
import { sourceApplies } from './jurisdictions.js';
import { interruptedImport } from './local-registry.js';
import { reconcile } from './reconcile.js';
import type { RegistryRecord } from './records.js';
import {
  searchCompaniesHouse,
  searchGleif,
  searchOpenCorporates,
  searchSecEdgar,
  type SearchContext,
  type SourceOutcome,
} from './registry-search.js';

export const FILINGS_LIMIT = 20;

const SEARCHERS: Record<BusinessSource, (ctx: SearchContext) => Promise<SourceOutcome>> = {
  companies_house: searchCompaniesHouse,
  sec_edgar: searchSecEdgar,
  gleif: searchGleif,
  opencorporates: searchOpenCorporates,
};

/** Which sources to ask, and the warnings for those left out. */
export function chooseSources(req: BusinessRequest, opts: VerifyOptions): { sources: BusinessSource[]; warnings: string[] } {
  const explicit = req.sources !== undefined;
  const asked = [...new Set(req.sources ?? BUSINESS_SOURCES)];
  // Embedded mode passes no plan: every source is available there.
  const ocAllowed = planAtLeast(opts.plan ?? 'enterprise', OPENCORPORATES_PLAN);
  if (explicit && asked.includes('opencorporates') && !ocAllowed)
    throw new VerityError('FORBIDDEN', `the opencorporates source needs the ${OPENCORPORATES_PLAN} plan`, {
      requiredPlan: OPENCORPORATES_PLAN,
    });
  const warnings: string[] = [];
  const sources = asked.filter((s) => {
    if (s === 'opencorporates' && !ocAllowed) return false;
    if (!sourceApplies(s, req.jurisdiction)) {
      // Named explicitly: ask anyway (a foreign filer can be in EDGAR); by default: skip quietly.
      if (explicit) return true;
      return false;
    }
    return true;
  });
  return { sources, warnings };
}

async function openStore(ports: EnginePorts, warnings: string[]): Promise<Pick<Store, 'db'> | null> {
  if (!ports.store) return null;
  try {
    return await ports.store();
  } catch {
    warnings.push('local registry data unavailable: the embedded store could not be opened');
    return null;
  }
}

/** Officers/filings from the cluster's sources, the primary's first; failures become warnings. */
async function gather<T>(
  records: RegistryRecord[],
  load: (r: RegistryRecord) => (() => Promise<T[]>) | undefined,
  what: 'officers' | 'filings',
  warnings: string[],
): Promise<T[]> {
  const out: T[] = [];
  let asked = 0;
  for (const r of records) {
    const fn = load(r);
    if (!fn) continue;
    asked++;
    try {
      out.push(...(await fn()));
    } catch (err) {
      if (!(err instanceof UpstreamError)) throw err;
      warnings.push(`${r.source}: ${what} unavailable (${err.kind === 'rate_limited' ? 'rate limited' : err.message})`);
    }
  }
  if (!asked)
    warnings.push(
      `${what} requested but none of the matching sources (${records.map((r) => r.source).join(', ')}) can provide them` +
        (records.some((r) => r.source === 'companies_house') ? ' (Companies House needs sources.companies_house.api_key)' : ''),
    );
  return out;
}

/** The bulk data each source answers from first (`verity data import DATASET`). */
const LOCAL_DATASETS: Partial<Record<BusinessSource, string>> = {
  companies_house: 'companies-house',
  gleif: 'gleif',
  sec_edgar: 'sec-tickers',
};

/** Warnings for local bulk data whose last import was interrupted: it holds part of a register. */
function incompleteLocalData(store: Pick<Store, 'db'>, sources: BusinessSource[]): string[] {
  const out: string[] = [];
  for (const s of sources) {
    const dataset = LOCAL_DATASETS[s];
    const mark = dataset ? interruptedImport(store, dataset) : null;
    if (mark)
      out.push(
        `${s}: the local ${dataset} data is incomplete: its import of ${mark.file} was interrupted after ` +
          `${mark.rows_committed.toLocaleString('en')} rows (${mark.at.slice(0, 16).replace('T', ' ')} UTC); re-run that import to complete it`,
      );
  }
  return out;
}

// Registries write "SMITH, Jane" or "JANE SMITH": the same person is the same set of name words.
const officerKey = (o: Officer) =>
  `${o.name.toLowerCase().split(/[^\p{L}]+/u).filter(Boolean).sort().join(' ')}|${o.role.toLowerCase()}`;

export async function verifyBusiness(req: BusinessRequest, ports: EnginePorts, opts: VerifyOptions): Promise<Computed<BusinessResult>> {
  const { sources, warnings } = chooseSources(req, opts);
  if (!sources.length)
    throw new VerityError('VALIDATION_FAILED', `no business source can hold a company of jurisdiction "${req.jurisdiction}" on this plan`, {
      details: [{ field: 'jurisdiction', issue: 'no registry source applies' }],
    });
  const now = ports.clock.now();
  const ctx: SearchContext = {
    req,
    ports,
    now,
    signal: opts.signal,
    store: await openStore(ports, warnings),
    filingsLimit: FILINGS_LIMIT,
  };
  if (ctx.store) warnings.push(...incompleteLocalData(ctx.store, sources));
  const outcomes = await Promise.all(sources.map((s) => SEARCHERS[s](ctx)));
  opts.signal?.throwIfAborted();
  for (const o of outcomes) if (o.warning) warnings.push(o.warning);

  const rec = reconcile(req.company_name, req.registration_number, outcomes, now);
  if (!rec) {
    const searched = outcomes.filter((o) => o.state === 'matched' || o.state === 'no_match').map((o) => o.searchedAs ?? o.source);
    // Each source that could not be searched, with its reason (its warning: "gleif: DNS failure: …").
    const why = (o: SourceOutcome) => o.warning ?? `${o.source}: ${o.state}`;
    const failed = outcomes.filter((o) => o.state === 'failed').map(why);
    const skipped = outcomes.filter((o) => o.state === 'skipped').map(why);
    const tail = [failed.length ? `unavailable: ${failed.join('; ')}` : '', skipped.length ? `not asked: ${skipped.join('; ')}` : '']
      .filter(Boolean)
      .join('; ');
    if (!searched.length)
      throw new VerityError(
        'UNAVAILABLE',
        `no business source could be searched for "${req.company_name}"${tail ? ` (${tail})` : ''}`,
      );
    throw new VerityError(
      'NOT_FOUND',
      `no company matching "${req.company_name}"${req.registration_number ? ` (number ${req.registration_number})` : ''}${req.jurisdiction ? ` in ${req.jurisdiction}` : ''} was found in ${searched.join(', ')}${tail ? ` (${tail})` : ''}`,
    );
  }
  warnings.push(...rec.warnings);
  const records = rec.cluster.map((c) => c.record);

  const result: Computed<BusinessResult> = {
    trust_score: rec.trust_score,
    dimensions: rec.dimensions,
    // The fourth dimension is SPEC's "llm_analysis" slot; for companies no model runs there: it
    // is how closely the registry's name matches the name asked for (reconcile.ts).
    dimension_producers: { llm_analysis: 'name match' },
    status: rec.status,
    legal_name: rec.legal_name,
    registration_number: rec.registration_number,
    jurisdiction: rec.jurisdiction,
    incorporation_date: rec.incorporation_date,
    evidence: rec.evidence,
  };
  if (req.officers) {
    const all = await gather(records, (r) => r.loadOfficers, 'officers', warnings);
    const seen = new Set<string>();
    result.officers = all.filter((o) => !seen.has(officerKey(o)) && seen.add(officerKey(o)));
  }
  if (req.filings) {
    const all = await gather(records, (r) => r.loadFilings, 'filings', warnings);
    const seen = new Set<string>();
    result.filings = all
      .filter((f) => !seen.has(f.url) && seen.add(f.url))
      .sort((a, b) => (a.filed_at < b.filed_at ? 1 : a.filed_at > b.filed_at ? -1 : 0))
      .slice(0, FILINGS_LIMIT) satisfies Filing[];
  }
  if (warnings.length) result.warnings = warnings;
  return result;
}
