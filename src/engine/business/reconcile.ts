/**
 * Reconciliation: several registries' candidates → one company, one score, one evidence chain.
 *
 * 1. The primary record is the best top candidate over sources: an exact registration number
 *    first, then name similarity plus the source's authority.
 * 2. From every other source, the best candidate that is the same legal entity joins the
 *    cluster: same registry number when both carry one (GLEIF `registeredAs` = Companies House
 *    number), otherwise a matching name in a compatible jurisdiction.
 * 3. Each cluster member is compared with the primary field by field (legal name, status,
 *    incorporation date, jurisdiction). Agreements raise `cross_reference`; disagreements lower
 *    it and the trust score, and are written into the evidence.
 * 4. Near-equal candidates that are other entities are listed as alternatives.
 * Formulas and weights: docs/business.md.
 */
import type { BusinessSource } from '../../api/requests.js';
import type { BusinessEvidence, CompanyStatus, Dimensions, RegistryFacts } from '../../api/results.js';
import { clamp01, round3, weightedMean } from '../scoring.js';
import { compatible, country } from './jurisdictions.js';
import { AMBIGUITY_PENALTY, DISAGREEMENT_CAP, DISAGREEMENT_PENALTY, NUMBER_MISMATCH_PENALTY, STATUS_FACTOR, TRUST_WEIGHTS } from './trust-weights.js';
import { MATCH_THRESHOLD, nameSimilarity, sameLegalName } from './names.js';
import type { RegistryRecord } from './records.js';
import { AMBIGUITY_MARGIN, type Candidate, type SourceOutcome } from './registry-search.js';

/** How much each registry is trusted as a statement of record (official registers highest). */
export const SOURCE_AUTHORITY: Readonly<Record<BusinessSource, number>> = {
  companies_house: 0.95, // the statutory register itself
  sec_edgar: 0.9, // statutory filings; status only inferred
  gleif: 0.85, // LEI data validated against registers by the issuing LOU
  opencorporates: 0.75, // an aggregator of registers, refreshed at intervals
};
/** Bulk files are copies of the same register, as old as the download. */
export const LOCAL_AUTHORITY_FACTOR = 0.97;
/** Freshness half-life of imported bulk data, in days (recency dimension). */
export const LOCAL_HALF_LIFE_DAYS = 60;
export { AMBIGUITY_PENALTY, DISAGREEMENT_CAP, DISAGREEMENT_PENALTY, NUMBER_MISMATCH_PENALTY, STATUS_FACTOR, TRUST_WEIGHTS } from './trust-weights.js';

export const authorityOf = (r: RegistryRecord): number => SOURCE_AUTHORITY[r.source] * (r.via === 'local' ? LOCAL_AUTHORITY_FACTOR : 1);

export interface Comparison {
  field: 'legal_name' | 'status' | 'incorporation_date' | 'jurisdiction' | 'registration_number';
  agree: boolean;
  /** 1 for a plain disagreement; less when one side is inferred or only a spelling. */
  weight: number;
  detail: string;
}

export interface Reconciled {
  primary: Candidate;
  cluster: Candidate[];
  alternatives: Candidate[];
  comparisons: Map<Candidate, Comparison[]>;
  status: CompanyStatus;
  legal_name: string;
  registration_number: string;
  jurisdiction: string;
  incorporation_date: string | null;
  dimensions: Dimensions;
  trust_score: number;
  evidence: BusinessEvidence[];
  warnings: string[];
}

function primaryScore(c: Candidate): number {
  return (c.numberMatch ? 2 : 0) + c.similarity + authorityOf(c.record);
}

/** Same legal entity? Registry numbers decide when both have one in the same country. */
export function sameEntity(a: RegistryRecord, b: RegistryRecord): boolean {
  if (!compatible(a.jurisdiction, b.jurisdiction)) return false;
  const sameCountry = !a.jurisdiction || !b.jurisdiction || country(a.jurisdiction) === country(b.jurisdiction);
  if (a.regNumber && b.regNumber && sameCountry) return a.regNumber === b.regNumber;
  const names = (r: RegistryRecord) => [r.name, ...r.otherNames];
  return names(a).some((x) => names(b).some((y) => nameSimilarity(x, y) >= MATCH_THRESHOLD));
}

function compare(p: RegistryRecord, c: RegistryRecord): Comparison[] {
  const out: Comparison[] = [];
  const same = sameLegalName(p.name, c.name);
  out.push({
    field: 'legal_name',
    agree: same,
    weight: 0.5, // spelling of the same entity's name differs more often than facts do
    detail: same ? 'legal name' : `legal name "${c.name}" vs "${p.name}"`,
  });
  if (p.status && c.status) {
    const agree = p.status === c.status;
    out.push({
      field: 'status',
      agree,
      weight: p.statusNote || c.statusNote ? 0.5 : 1,
      detail: agree ? 'status' : `status ${c.status} (${c.rawStatus ?? 'inferred'}) vs ${p.status}`,
    });
  }
  if (p.incorporationDate && c.incorporationDate) {
    const agree = p.incorporationDate === c.incorporationDate;
    out.push({
      field: 'incorporation_date',
      agree,
      weight: 1,
      detail: agree ? 'incorporation date' : `incorporation date ${c.incorporationDate} vs ${p.incorporationDate}`,
    });
  }
  if (p.jurisdiction && c.jurisdiction) {
    const agree = compatible(p.jurisdiction, c.jurisdiction);
    out.push({ field: 'jurisdiction', agree, weight: 1, detail: agree ? 'jurisdiction' : `jurisdiction ${c.jurisdiction} vs ${p.jurisdiction}` });
  }
  if (p.regNumber && c.regNumber) {
    const agree = p.regNumber === c.regNumber;
    out.push({
      field: 'registration_number',
      agree,
      weight: 1,
      detail: agree ? 'registration number' : `registration number ${c.regNumber} vs ${p.regNumber}`,
    });
  }
  return out;
}

const sourceLabel = (r: RegistryRecord): string => (r.via === 'local' ? `${r.source} (bulk data of ${r.asOf.slice(0, 10)})` : r.source);

function facts(r: RegistryRecord): string {
  const parts = [`${r.name}`];
  parts.push(r.source === 'sec_edgar' ? `CIK ${r.id}` : r.source === 'gleif' ? `LEI ${r.id}` : `no. ${r.regNumber ?? r.id}`);
  if (r.source === 'gleif' && r.regNumber) parts.push(`registered as ${r.regNumber}`);
  if (r.jurisdiction) parts.push(r.jurisdiction);
  if (r.status) parts.push(r.rawStatus && r.rawStatus.toLowerCase() !== r.status ? `status ${r.status} ("${r.rawStatus}")` : `status ${r.status}`);
  if (r.statusNote) parts.push(r.statusNote);
  if (r.incorporationDate) parts.push(`incorporated ${r.incorporationDate}`);
  parts.push(...r.notes);
  return parts.join('; ');
}

/** The evidence's additive `record`: the same facts as `facts`, as fields, with the comparison's outcome. */
function factsOf(r: RegistryRecord, role: RegistryFacts['role'], cmp: Comparison[] | undefined): RegistryFacts {
  return {
    role,
    name: r.name,
    registration_number: r.regNumber,
    jurisdiction: r.jurisdiction,
    status: r.status,
    raw_status: r.rawStatus,
    incorporation_date: r.incorporationDate,
    as_of: r.asOf,
    agrees: (cmp ?? []).filter((x) => x.agree).map((x) => x.field),
    disagrees: (cmp ?? []).filter((x) => !x.agree).map((x) => x.field),
  };
}

export function recencyOf(r: RegistryRecord, now: Date): number {
  if (r.via === 'api') return 1;
  const ageDays = Math.max(0, (now.getTime() - Date.parse(r.asOf)) / 86_400_000);
  return Number.isFinite(ageDays) ? 0.5 ** (ageDays / LOCAL_HALF_LIFE_DAYS) : 0.5;
}

export function reconcile(companyName: string, requestedNumber: string | undefined, outcomes: SourceOutcome[], now: Date): Reconciled | null {
  const tops = outcomes.filter((o) => o.candidates.length).map((o) => o.candidates[0]!);
  if (!tops.length) return null;
  const primary = [...tops].sort((a, b) => primaryScore(b) - primaryScore(a))[0]!;
  const P = primary.record;
  const cluster: Candidate[] = [primary];
  const alternatives: Candidate[] = [];
  const comparisons = new Map<Candidate, Comparison[]>();
  for (const o of outcomes) {
    if (!o.candidates.length) continue;
    if (o.source === P.source) {
      // Same registry: other near-equal candidates are other companies with the same name.
      for (const c of o.candidates)
        if (c !== primary && !c.numberMatch && c.similarity >= primary.similarity - AMBIGUITY_MARGIN && !primary.numberMatch) alternatives.push(c);
      continue;
    }
    const member = o.candidates.find((c) => sameEntity(P, c.record));
    if (member) {
      cluster.push(member);
      comparisons.set(member, compare(P, member.record));
    }
    const top = o.candidates[0]!;
    if (top !== member && top.similarity >= primary.similarity - AMBIGUITY_MARGIN) alternatives.push(top);
  }

  let agreeCount = 0;
  let disagreeWeight = 0;
  for (const list of comparisons.values())
    for (const c of list) {
      if (c.agree) agreeCount++;
      else disagreeWeight += c.weight;
    }
  const sources = new Set(cluster.map((c) => c.record.source)).size;
  const corroboration = 1 - 0.5 ** sources;
  const agreement = (agreeCount + 1) / (agreeCount + disagreeWeight + 1);
  const cross_reference = clamp01(corroboration * agreement);
  const source_authority = Math.max(...cluster.map((c) => authorityOf(c.record)));
  const recency = Math.max(...cluster.map((c) => recencyOf(c.record, now)));
  const name_match = Math.max(...cluster.map((c) => nameSimilarity(companyName, c.record.name)), primary.similarity);

  const pick = <T>(f: (r: RegistryRecord) => T | null): T | null => {
    for (const c of cluster) {
      const v = f(c.record);
      if (v !== null && v !== undefined) return v;
    }
    return null;
  };
  const warnings: string[] = [];
  let status = pick((r) => r.status);
  if (!status) {
    status = 'inactive';
    warnings.push('no source gave a usable status; reported as inactive');
  }
  const numberMismatch = requestedNumber !== undefined && !cluster.some((c) => c.numberMatch);
  const ambiguous = alternatives.length > 0 && !primary.numberMatch;

  const base = weightedMean([
    [source_authority, TRUST_WEIGHTS.source_authority],
    [cross_reference, TRUST_WEIGHTS.cross_reference],
    [recency, TRUST_WEIGHTS.recency],
    [name_match, TRUST_WEIGHTS.name_match],
  ]);
  const trust =
    base * STATUS_FACTOR[status] -
    Math.min(DISAGREEMENT_CAP, DISAGREEMENT_PENALTY * disagreeWeight) -
    (ambiguous ? AMBIGUITY_PENALTY : 0) -
    (numberMismatch ? NUMBER_MISMATCH_PENALTY : 0);

  const evidence: BusinessEvidence[] = [];
  for (const c of cluster) {
    const r = c.record;
    let finding = facts(r);
    if (c === primary) finding += '; basis of this result';
    const cmp = comparisons.get(c);
    if (cmp) {
      const agreed = cmp.filter((x) => x.agree).map((x) => x.detail);
      const disagreed = cmp.filter((x) => !x.agree).map((x) => x.detail);
      if (agreed.length) finding += `; agrees on ${agreed.join(', ')}`;
      if (disagreed.length) finding += `; DISAGREES: ${disagreed.join('; ')}`;
    }
    if (c.numberMatch) finding += '; matched on the registration number given';
    evidence.push({ source: sourceLabel(r), url: r.url, authority_score: round3(authorityOf(r)), finding, record: factsOf(r, c === primary ? 'basis' : 'corroborating', cmp) });
  }
  if (numberMismatch)
    evidence[0]!.finding += `; the registration number given (${requestedNumber}) is not this company's`;
  for (const a of alternatives.slice(0, 5))
    evidence.push({
      source: sourceLabel(a.record),
      url: a.record.url,
      authority_score: round3(authorityOf(a.record)),
      finding: `alternative match, a different entity (name similarity ${a.similarity.toFixed(2)}): ${facts(a.record)}`,
      record: factsOf(a.record, 'alternative', undefined),
    });

  return {
    primary,
    cluster,
    alternatives,
    comparisons,
    status,
    legal_name: P.name,
    registration_number: P.regNumber ?? pick((r) => r.regNumber) ?? P.id,
    jurisdiction: P.jurisdiction ?? pick((r) => r.jurisdiction) ?? (P.source === 'sec_edgar' ? 'us' : 'unknown'),
    incorporation_date: P.incorporationDate ?? pick((r) => r.incorporationDate),
    dimensions: {
      source_authority: round3(source_authority),
      cross_reference: round3(cross_reference),
      recency: round3(recency),
      llm_analysis: round3(name_match),
    },
    trust_score: round3(trust),
    evidence,
    warnings,
  };
}
