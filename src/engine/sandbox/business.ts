import { VerityError } from '../../api/errors.js';
import { OPENCORPORATES_PLAN, planAtLeast } from '../../api/plans.js';
import type { BusinessRequest } from '../../api/requests.js';
import { COMPANY_STATUSES, type CompanyStatus } from '../../api/enums.js';
import type { BusinessResult } from '../../api/results.js';
import type { Computed, VerifyOptions } from '../types.js';
import { maybeUnavailable, sandboxUrl, Seed, triggersIn } from './seed.js';

const FIRST = ['Alex', 'Sam', 'Jordan', 'Priya', 'Chen', 'Maria', 'Tomasz', 'Aisha', 'Lars', 'Noor'];
const LAST = ['Morgan', 'Okafor', 'Lindqvist', 'Haddad', 'Nakamura', 'Silva', 'Novak', 'Ellis', 'Kaur', 'Moreau'];
const ROLES = ['director', 'secretary', 'chief-executive-officer', 'chief-financial-officer'];

const SOURCE_LABEL: Record<string, [string, number]> = {
  companies_house: ['Companies House', 0.95],
  sec_edgar: ['SEC EDGAR', 0.9],
  gleif: ['GLEIF', 0.85],
  opencorporates: ['OpenCorporates', 0.7],
};

export function sandboxBusiness(req: BusinessRequest, opts: VerifyOptions): Computed<BusinessResult> {
  if (req.sources?.includes('opencorporates') && opts.plan && !planAtLeast(opts.plan, OPENCORPORATES_PLAN))
    throw new VerityError('FORBIDDEN', 'The opencorporates source needs the enterprise plan', { requiredPlan: OPENCORPORATES_PLAN });
  // Names are matched by word, case-insensitively: "Globex Dissolved Ltd" → dissolved.
  const words = new Set(req.company_name.toLowerCase().split(/[^a-z_]+/));
  const triggers = triggersIn(req.company_name, [...COMPANY_STATUSES, 'not_found'], { hashtags: true });
  maybeUnavailable(triggers);
  if (words.has('notfound') || words.has('nonexistent') || triggers.has('not_found'))
    throw new VerityError('NOT_FOUND', `Sandbox: no company named "${req.company_name}" in ${(req.sources ?? ['companies_house', 'sec_edgar', 'gleif']).join(', ')}`);
  const status: CompanyStatus = COMPANY_STATUSES.find((s) => words.has(s) || triggers.has(s)) ?? 'active';
  const jurisdiction = req.jurisdiction ?? 'gb';
  const seed = Seed.of({ kind: 'business', name: req.company_name.toLowerCase().trim(), jurisdiction, number: req.registration_number ?? null });
  const us = jurisdiction.startsWith('us');
  const registration_number = req.registration_number ?? (us ? String(seed.int(1_000_000, 1_999_999)) : String(seed.int(1_000_000, 15_999_999)).padStart(8, '0'));
  const year = seed.int(1985, 2021);
  const date = (y: number) => `${y}-${String(seed.int(1, 12)).padStart(2, '0')}-${String(seed.int(1, 28)).padStart(2, '0')}`;
  const sources = req.sources ?? (us ? ['sec_edgar', 'gleif'] : ['companies_house', 'gleif']);
  const result: Computed<BusinessResult> = {
    trust_score: status === 'active' ? seed.between(0.8, 0.97) : seed.between(0.55, 0.8),
    status,
    legal_name: req.company_name.trim(),
    registration_number,
    jurisdiction,
    incorporation_date: date(year),
    evidence: sources.map((s, i) => {
      const [name, authority] = SOURCE_LABEL[s] ?? [s, 0.5];
      const compared: ('legal_name' | 'status' | 'registration_number')[] = i === 0 ? [] : ['legal_name', 'status', 'registration_number'];
      return {
        source: name,
        url: sandboxUrl(s, seed),
        authority_score: authority,
        finding: `[sandbox] ${name} lists "${req.company_name.trim()}" (${registration_number}) as ${status}`,
        record: { role: i === 0 ? ('basis' as const) : ('corroborating' as const), name: req.company_name.trim(), registration_number, jurisdiction, status, raw_status: null, incorporation_date: null, as_of: 'sandbox', agrees: compared, disagrees: [] },
      };
    }),
    dimensions: {
      source_authority: seed.between(0.8, 0.95),
      cross_reference: sources.length > 1 ? seed.between(0.75, 0.95) : seed.between(0.4, 0.6),
      recency: seed.between(0.6, 0.95),
      llm_analysis: 0.5,
    },
    dimension_producers: { llm_analysis: 'simulated analysis' },
    warnings: ['sandbox: simulated data (test mode); the company, its officers and the registry answers are made up, no registry was contacted'],
  };
  // The records carry the same (simulated) date; set after the fact so the seed's draw order is unchanged.
  for (const e of result.evidence) if (e.record) e.record.incorporation_date = result.incorporation_date;
  if (req.officers) {
    // Each role at most once (a company has one CFO), and names that say they are simulated.
    const rest = ROLES.slice(1);
    for (let i = rest.length - 1; i > 0; i--) {
      const j = seed.int(0, i);
      [rest[i], rest[j]] = [rest[j]!, rest[i]!];
    }
    const roles = ['director', ...rest];
    result.officers = Array.from({ length: seed.int(2, 4) }, (_, i) => ({
      name: `${seed.pick(LAST).toUpperCase()}, ${seed.pick(FIRST)} (simulated)`,
      role: roles[i]!,
      appointed_on: date(seed.int(year, 2025)),
    }));
  }
  if (req.filings)
    result.filings = (us ? ['10-K', '10-Q', '8-K'] : ['AA', 'CS01', 'CH01']).map((type) => ({
      type,
      filed_at: date(seed.int(2024, 2025)),
      url: sandboxUrl(`filings/${type.toLowerCase()}`, seed),
    }));
  return result;
}
