/**
 * Query building: from the claim, the terms a search engine needs, in order of specificity:
 * named entities (multi-word names kept together), numbers and years, then the longest other
 * content words (longer words are rarer and more specific, a cheap stand-in for IDF).
 */
import type { ClaimQuery } from '../../sources/claim-types.js';
import { entities, STOPWORDS, words, years } from './text.js';

export function buildQuery(claim: string, language: string): ClaimQuery {
  const text = claim.replace(/\s+/g, ' ').trim();
  const ents = entities(text);
  const inEntity = new Set(ents.flatMap((e) => words(e)));
  const nums = [...years(text).map(String), ...text.match(/\d{1,3}(?:,\d{3})+|\d+(?:\.\d+)?%?/g) ?? []]
    .filter((n, i, a) => a.indexOf(n) === i)
    .slice(0, 3);
  const seen = new Set<string>();
  const others = words(text)
    .filter((w) => w.length > 2 && !STOPWORDS.has(w) && !inEntity.has(w) && !/^\d/.test(w))
    .filter((w) => (seen.has(w) ? false : (seen.add(w), true)))
    .map((w, i) => ({ w, i }))
    .sort((a, b) => b.w.length - a.w.length || a.i - b.i)
    .slice(0, 6)
    .sort((a, b) => a.i - b.i)
    .map((x) => x.w);
  const termList = [...ents.slice(0, 4), ...nums, ...others].filter((t, i, a) => a.indexOf(t) === i);
  // Keyword engines AND their terms: eight is specific without starving the result list.
  const keywords = termList.slice(0, 8).join(' ') || text.slice(0, 200);
  return { claim: text, keywords, terms: termList, language };
}
