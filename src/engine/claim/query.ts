/**
 * Query building: from the claim, what each kind of search engine needs.
 * - `keywords`/`terms` for keyword engines that AND their terms (Wikipedia, Semantic Scholar):
 *   named entities (multi-word names kept together), numbers and years, then the longest other
 *   content words — at most eight, specific without starving the result list;
 * - `content`: every content word, as written and stemmed, for the local full-text index, which
 *   ORs them and lets BM25 rank (nothing is dropped for brevity).
 */
import type { ClaimQuery } from '../../sources/claim-types.js';
import { ENGLISH, entities, terms, words, years, type Lang } from './text.js';

export function buildQuery(claim: string, language: string, lang: Lang = ENGLISH): ClaimQuery {
  const text = claim.replace(/\s+/g, ' ').trim();
  const ents = entities(text);
  const inEntity = new Set(ents.flatMap((e) => words(e, lang.code)));
  const nums = [...years(text).map(String), ...(text.match(/\d{1,3}(?:,\d{3})+|\d+(?:\.\d+)?%?/g) ?? [])]
    .filter((n, i, a) => a.indexOf(n) === i)
    .slice(0, 3);
  const contentWords = [...new Set(words(text, lang.code).filter((w) => !lang.stop.has(w) && (w.length > 1 || /[^\p{Script=Latin}\d]/u.test(w))))];
  const others = contentWords
    .filter((w) => w.length > 2 && !inEntity.has(w) && !/^\d/.test(w))
    .map((w, i) => ({ w, i }))
    .sort((a, b) => b.w.length - a.w.length || a.i - b.i)
    .slice(0, 6)
    .sort((a, b) => a.i - b.i)
    .map((x) => x.w);
  const termList = [...ents.slice(0, 4), ...nums, ...others].filter((t, i, a) => a.indexOf(t) === i);
  const keywords = termList.slice(0, 8).join(' ') || text.slice(0, 200);
  const stems = [...new Set(terms(text, lang))];
  return { claim: text, keywords, terms: termList, language, content: { words: contentWords, stems } };
}
