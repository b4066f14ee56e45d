/**
 * Company-name matching. Names are compared on their distinctive part ("base"), after folding
 * case, diacritics, punctuation and "&"/"and", with the legal-form words at the end taken off and
 * kept aside as a canonical form (Ltd = Limited, Inc = Incorporated, …). "ACME WIDGETS LTD",
 * "Acme Widgets Limited" and "acme widgets" all have the base "acme widgets".
 *
 * Similarity (0–1) is the mean of two views of the bases: the Dice coefficient of character
 * bigrams (robust to typos and spacing) and the Jaccard overlap of words (robust to word order).
 * Two different explicit legal forms ("Acme Ltd" vs "Acme LLP") cost LEGAL_FORM_PENALTY: they are
 * usually different entities. MATCH_THRESHOLD is the least similarity accepted as "the same
 * name"; it was set on the labelled pairs in test/unit/business/names.test.ts (docs/business.md).
 */

export const MATCH_THRESHOLD = 0.82;
export const LEGAL_FORM_PENALTY = 0.2;

/** Legal-form spellings (after punctuation folding) → canonical form. Multi-word first. */
export const LEGAL_FORMS: ReadonlyArray<readonly [string, string]> = [
  ['public limited company', 'plc'],
  ['limited liability company', 'llc'],
  ['limited liability partnership', 'llp'],
  ['limited partnership', 'lp'],
  ['community interest company', 'cic'],
  ['societe anonyme', 'sa'],
  ['sociedad anonima', 'sa'],
  ['societa per azioni', 'spa'],
  ['naamloze vennootschap', 'nv'],
  ['besloten vennootschap', 'bv'],
  ['aktiengesellschaft', 'ag'],
  ['gesellschaft mit beschrankter haftung', 'gmbh'],
  ['pty ltd', 'pty ltd'],
  ['proprietary limited', 'pty ltd'],
  ['co ltd', 'co ltd'],
  ['company limited', 'co ltd'],
  ['limited', 'ltd'],
  ['ltd', 'ltd'],
  ['incorporated', 'inc'],
  ['inc', 'inc'],
  ['corporation', 'corp'],
  ['corp', 'corp'],
  ['company', 'co'],
  ['co', 'co'],
  ['plc', 'plc'],
  ['llc', 'llc'],
  ['llp', 'llp'],
  ['lp', 'lp'],
  ['cic', 'cic'],
  ['gmbh', 'gmbh'],
  ['ag', 'ag'],
  ['sa', 'sa'],
  ['sas', 'sas'],
  ['sarl', 'sarl'],
  ['srl', 'srl'],
  ['spa', 'spa'],
  ['bv', 'bv'],
  ['nv', 'nv'],
  ['ab', 'ab'],
  ['oy', 'oy'],
  ['oyj', 'oyj'],
  ['as', 'as'],
  ['asa', 'asa'],
  ['aps', 'aps'],
  ['kk', 'kk'],
  ['pte', 'pte'],
  ['pty', 'pty'],
  ['ltda', 'ltda'],
];
// Indexed by last word, longest spelling first, so stripping costs one map look-up per word.
const FORMS_BY_LAST_WORD = new Map<string, Array<readonly [string, string]>>();
for (const [spelling, canon] of LEGAL_FORMS) {
  const last = spelling.split(' ').at(-1)!;
  const list = FORMS_BY_LAST_WORD.get(last) ?? [];
  list.push([spelling, canon]);
  list.sort((a, b) => b[0].split(' ').length - a[0].split(' ').length);
  FORMS_BY_LAST_WORD.set(last, list);
}

const PLAIN_NAME = /^[\x20-\x25\x28-\x2a\x2c\x2d\x2f-\x5f\x61-\x7e]*$/;

/** Lowercase, no diacritics, "&" → "and", punctuation → space ("S.A." → "s a" → joined below). */
export function foldName(raw: string): string {
  // Bulk imports fold millions of names. Printable ASCII without & + . ' ` (most register names)
  // needs only case and punctuation folding: the same result as the general path below, which
  // the tests check on generated and real names.
  if (PLAIN_NAME.test(raw)) return raw.toLowerCase().replace(/[^a-z0-9]+/g, ' ').trim();
  const ascii = /^[\x20-\x7e]*$/.test(raw);
  let s = ascii ? raw.toLowerCase() : raw.normalize('NFKD').replace(/\p{M}+/gu, '').toLowerCase();
  if (!ascii) s = s.replace(/ß/g, 'ss').replace(/æ/g, 'ae').replace(/ø/g, 'o').replace(/œ/g, 'oe').replace(/ł/g, 'l');
  s = s.replace(/&/g, ' and ').replace(/\+/g, ' and ');
  // Dotted abbreviations (S.A., L.L.C., B.V.) become one word before punctuation goes.
  if (ascii) {
    s = s.replace(/\b((?:[a-z]\.){2,})/g, (m) => m.replace(/\./g, ''));
    s = s.replace(/['`]/g, '').replace(/[^a-z0-9]+/g, ' ');
  } else {
    s = s.replace(/\b((?:\p{L}\.){2,})/gu, (m) => m.replace(/\./g, ''));
    s = s.replace(/['’`]/g, '').replace(/[^\p{L}\p{N}]+/gu, ' ');
  }
  return s.trim().replace(/\s+/g, ' ');
}

export interface NameKey {
  /** The distinctive part, legal forms removed: the matching key. */
  base: string;
  /** Canonical legal form ("ltd", "inc", …) or "" when none is written. */
  form: string;
}

export function nameKey(raw: string): NameKey {
  // Works on the folded string (single spaces, trimmed) without splitting it: bulk imports key
  // millions of names.
  const folded = foldName(raw);
  const start = folded.startsWith('the ') ? 4 : 0;
  let end = folded.length;
  let forms = '';
  // Strip trailing legal forms (possibly several: "Acme Holdings Co Ltd"), keeping one word at least.
  for (;;) {
    const space = folded.lastIndexOf(' ', end - 1);
    if (space < start) break; // one word left
    const list = FORMS_BY_LAST_WORD.get(folded.slice(space + 1, end));
    if (!list) break;
    let stripped = false;
    for (const [spelling, canon] of list) {
      const at = end - spelling.length; // where the spelling starts
      // It must be whole words, and leave a word before it.
      if (at - 1 > start && folded.charCodeAt(at - 1) === 32 && folded.startsWith(spelling, at)) {
        forms = forms ? `${canon} ${forms}` : canon;
        end = at - 1;
        stripped = true;
        break;
      }
    }
    if (!stripped) break;
  }
  return { base: start === 0 && end === folded.length ? folded : folded.slice(start, end), form: forms };
}

/** The key a name is indexed under (exact look-ups in the local store). */
export const matchKey = (raw: string): string => nameKey(raw).base;

function bigrams(s: string): Map<string, number> {
  const m = new Map<string, number>();
  const t = s.replace(/ /g, '');
  for (let i = 0; i < t.length - 1; i++) {
    const g = t.slice(i, i + 2);
    m.set(g, (m.get(g) ?? 0) + 1);
  }
  return m;
}

function dice(a: string, b: string): number {
  if (a === b) return 1;
  const A = bigrams(a);
  const B = bigrams(b);
  let total = 0;
  let common = 0;
  for (const n of A.values()) total += n;
  for (const n of B.values()) total += n;
  for (const [g, n] of A) common += Math.min(n, B.get(g) ?? 0);
  return total === 0 ? 0 : (2 * common) / total;
}

// Plural and singular are one word for matching ("Widget" / "Widgets").
const stem = (w: string): string => (w.length > 3 && w.endsWith('s') && !w.endsWith('ss') ? w.slice(0, -1) : w);

function jaccard(a: string, b: string): number {
  const A = new Set(a.split(' ').filter(Boolean).map(stem));
  const B = new Set(b.split(' ').filter(Boolean).map(stem));
  let inter = 0;
  for (const w of A) if (B.has(w)) inter++;
  const union = A.size + B.size - inter;
  return union === 0 ? 0 : inter / union;
}

const formOf = (form: string): string => form.split(' ').at(-1) ?? '';

/** Similarity of two company names in [0, 1] (see the module comment). */
export function nameSimilarity(a: string, b: string): number {
  const ka = nameKey(a);
  const kb = nameKey(b);
  if (!ka.base || !kb.base) return 0;
  let s = ka.base === kb.base ? 1 : (dice(ka.base, kb.base) + jaccard(ka.base, kb.base)) / 2;
  const fa = formOf(ka.form);
  const fb = formOf(kb.form);
  if (fa && fb && fa !== fb && !EQUIVALENT_FORMS.has(`${fa}|${fb}`)) s -= LEGAL_FORM_PENALTY;
  return Math.max(0, s);
}

// Forms that registries write interchangeably for the same entity.
const EQUIVALENT_FORMS = new Set(['inc|corp', 'corp|inc', 'co|inc', 'inc|co', 'co|corp', 'corp|co', 'co|ltd', 'ltd|co']);

/** Full names equal after folding and legal-form canonicalisation ("Acme Ltd" = "ACME LIMITED"). */
export function sameLegalName(a: string, b: string): boolean {
  const ka = nameKey(a);
  const kb = nameKey(b);
  return ka.base === kb.base && formOf(ka.form) === formOf(kb.form);
}
