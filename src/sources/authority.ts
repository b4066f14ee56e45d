/**
 * Source authority: how much an item's word counts, 0..1, in ONE table.
 *
 * The order of precedence is: a domain listed in DOMAIN_AUTHORITY (fact-checkers, wire services,
 * reference works, platforms) > a public-sector or academic suffix rule (SUFFIX_AUTHORITY) > the
 * source's base score (SOURCE_AUTHORITY). Scholarly papers add a citation bonus; a local corpus row
 * may declare its own authority. The values are editorial judgements, not fitted: signatories of
 * the IFCN Code of Principles and wire services sit highest, government and academic domains next,
 * encyclopedic and established news in the middle, user-generated platforms and known satire
 * lowest. They rank evidence; they do not prove anything about a single page.
 */
import type { ClaimSource } from '../api/requests.js';
import { hostnameOf } from './claim-types.js';

/** Base score per source when the domain says nothing more specific. */
export const SOURCE_AUTHORITY: Record<ClaimSource, number> = {
  google_fact_check: 0.85, // a published ClaimReview by a fact-checking organisation
  semantic_scholar: 0.65, // peer-reviewed or preprint; raised by citations (below)
  wikipedia: 0.7, // tertiary source with editorial process and citations
  gdelt: 0.55, // news article found by GDELT (only the headline is seen)
  web: 0.45, // an arbitrary web page
  local: 0.6, // the user's own corpus, unless a row declares its authority
};

/** Per-domain scores (registrable domain, without "www."). Subdomains inherit. */
export const DOMAIN_AUTHORITY: Record<string, number> = {
  // Fact-checkers (IFCN signatories and long-standing desks)
  'factcheck.org': 0.92,
  'politifact.com': 0.9,
  'fullfact.org': 0.9,
  'snopes.com': 0.88,
  'factcheck.afp.com': 0.9,
  'africacheck.org': 0.88,
  'healthfeedback.org': 0.86,
  'sciencefeedback.co': 0.86,
  'leadstories.com': 0.82,
  'checkyourfact.com': 0.8,
  'boomlive.in': 0.82,
  'altnews.in': 0.8,
  'maldita.es': 0.85,
  'correctiv.org': 0.85,
  'aosfatos.org': 0.85,
  'chequeado.com': 0.85,
  'usatoday.com': 0.78,
  // Wire services and public broadcasters
  'apnews.com': 0.88,
  'reuters.com': 0.88,
  'afp.com': 0.86,
  'bbc.co.uk': 0.84,
  'bbc.com': 0.84,
  'npr.org': 0.8,
  // Established newspapers
  'nytimes.com': 0.8,
  'washingtonpost.com': 0.8,
  'theguardian.com': 0.8,
  'wsj.com': 0.8,
  'ft.com': 0.8,
  'economist.com': 0.8,
  // Reference works and scholarly hosts
  'wikipedia.org': 0.7,
  'britannica.com': 0.8,
  'nature.com': 0.88,
  'science.org': 0.88,
  'thelancet.com': 0.88,
  'nejm.org': 0.88,
  'ncbi.nlm.nih.gov': 0.88,
  'pubmed.ncbi.nlm.nih.gov': 0.88,
  'arxiv.org': 0.7,
  'semanticscholar.org': 0.65,
  // International organisations
  'who.int': 0.9,
  'un.org': 0.88,
  'worldbank.org': 0.86,
  'imf.org': 0.86,
  'oecd.org': 0.86,
  // User-generated platforms: what someone said, not that it is so
  'facebook.com': 0.2,
  'twitter.com': 0.2,
  'x.com': 0.2,
  'instagram.com': 0.2,
  'tiktok.com': 0.15,
  'youtube.com': 0.25,
  'reddit.com': 0.25,
  'medium.com': 0.35,
  'blogspot.com': 0.3,
  'wordpress.com': 0.3,
  'substack.com': 0.35,
  // Known satire
  'theonion.com': 0.1,
  'babylonbee.com': 0.1,
  'scoopertino.com': 0.1,
};

/** Suffix rules for public-sector and academic domains (checked after DOMAIN_AUTHORITY). */
export const SUFFIX_AUTHORITY: ReadonlyArray<readonly [RegExp, number]> = [
  [/\.gov$|\.gov\.[a-z]{2}$|\.gouv\.[a-z]{2}$|\.gob\.[a-z]{2}$|\.gc\.ca$|\.europa\.eu$/, 0.9],
  [/\.int$/, 0.88],
  [/\.mil$/, 0.85],
  [/\.edu$|\.edu\.[a-z]{2}$|\.ac\.[a-z]{2}$/, 0.82],
];

export interface AuthorityInput {
  source: ClaimSource;
  url: string;
  citation_count?: number;
  declared_authority?: number | null;
}

export interface Authority {
  score: number;
  /** Which rule decided: "domain factcheck.org", "suffix .gov", "source wikipedia", … */
  basis: string;
}

export function domainAuthority(url: string): { score: number; basis: string } | undefined {
  const host = hostnameOf(url);
  if (!host) return undefined;
  const parts = host.split('.');
  for (let i = 0; i < parts.length - 1; i++) {
    const d = parts.slice(i).join('.');
    const v = DOMAIN_AUTHORITY[d];
    if (v !== undefined) return { score: v, basis: `domain ${d}` };
  }
  for (const [re, v] of SUFFIX_AUTHORITY) if (re.test(host)) return { score: v, basis: `public/academic suffix of ${host}` };
  return undefined;
}

/**
 * Citation bonus for papers: +0.25 at 1,000 citations, on a log scale
 * (0 → +0, 10 → +0.083, 100 → +0.167, ≥1,000 → +0.25).
 */
export const citationBonus = (citations: number): number => 0.25 * Math.min(1, Math.log10(1 + Math.max(0, citations)) / 3);

export function authorityFor(item: AuthorityInput): Authority {
  if (item.source === 'local' && typeof item.declared_authority === 'number') {
    return { score: Math.min(1, Math.max(0, item.declared_authority)), basis: 'declared in the corpus' };
  }
  if (item.source === 'semantic_scholar') {
    const c = item.citation_count ?? 0;
    return { score: Math.min(0.95, SOURCE_AUTHORITY.semantic_scholar + citationBonus(c)), basis: `paper with ${c} citations` };
  }
  // Wikipedia's own URL would match wikipedia.org anyway; fact-check reviews go by publisher domain.
  const byDomain = domainAuthority(item.url);
  if (byDomain) return byDomain;
  return { score: SOURCE_AUTHORITY[item.source], basis: `source ${item.source}` };
}
