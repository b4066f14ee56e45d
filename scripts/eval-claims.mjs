#!/usr/bin/env node
/**
 * Evaluation (and fitting) of the claim engine across three domains, through the BUILT engine
 * (dist/; `npm run eval:claims` builds first):
 *
 *   averitec     ../shared/fixtures/claims/averitec-dev.json — 500 fact-checked claims (MichSchli/AVeriTeC
 *                data/dev.json, commit 7c62d1ec, CC BY-NC 4.0); each claim's question/answer pairs
 *                play the retrieved items. Labels Supported / Refuted / Not Enough Evidence /
 *                Conflicting → true / false / unverifiable / conflicting.
 *   check-covid  ../shared/fixtures/claims/check-covid/ — 1,504 news claims (posuer/Check-COVID, commit
 *                3ae70f8c, MIT) against its 347 abstracts, imported as a local corpus and searched
 *                like `--sources local`; SUPPORT / REFUTE / NOTENOUGHINFO → true / false /
 *                unverifiable; gold sentences from `evidence_set`.
 *   fool-me-twice ../shared/fixtures/claims/fool-me-twice/{dev,test}.jsonl — 2,549 claims
 *                (google-research/fool-me-twice, commit d9db753e, Apache-2.0, evidence CC BY-SA);
 *                every gold and retrieved Wikipedia sentence of both files forms one local corpus
 *                (one row per sentence, its page's URL), searched like `--sources local`;
 *                SUPPORTS / REFUTES → true / false; gold sentences from `gold_evidence`.
 *
 *   node scripts/eval-claims.mjs          leave-one-domain-out: for each domain, fit the stance
 *                                         model and the verdict parameters on the other two and
 *                                         measure on it; then the shipped weights on all three
 *   node scripts/eval-claims.mjs --fit    the same, then fit on all three and rewrite
 *                                         src/engine/claim/claim-weights.ts (rebuild after)
 *   --no-lodo                             skip the leave-one-domain-out fits (shipped weights only)
 *   --json                                also print the figures as JSON
 *   --legacy DIR                          measure an earlier build instead (DIR holds its dist/; the
 *                                         pipeline before issue 11, commit e7aaad8): same data, same
 *                                         measures, its own retrieval (FTS top 10, URL de-dup)
 *   --l2 X, --iters N                     stance fit: L2 strength toward the prior (default 0.05), steps (400)
 *   --neutral-weight X                    stance fit: weight of the neutral class against supports
 *                                         and refutes (default 1; an experiment knob)
 *   --two-stage                           experiment, measured only (not with --fit): the 3-class
 *                                         model says whether a passage takes a side, a binary model
 *                                         fitted on gold supports/refutes pairs says which side
 *   --objective macro-f1|utility          what minEvidence is fitted on (default macro-f1); utility
 *                                         scores a right answer 1, a wrong verdict −WRONG_COST (1.5,
 *                                         verdict.ts), an abstention 0 (precision first; measured)
 *   --fit-confidence, --fit-conflict      experiments: also fit the confidence a verdict needs and the
 *                                         conflict floor (stated policies in verdict.ts otherwise)
 *   --dump FILE                           write each held-out domain's (gold, S, R) per claim to FILE
 *   --nli DIR                             stances from the NLI model in DIR (a `verity models pull nli`
 *                                         folder) through the engine's runner instead of the local
 *                                         model; only the verdict parameters are fitted (LODO); prints
 *                                         the cost per passage. Not with --fit
 *   --nli-fold D=DIR,…                    stances of each domain D from the model in its DIR (a model
 *                                         trained without D: scripts/train-stance/), so every held-out
 *                                         domain is read by a model that never saw it; only the verdict
 *                                         parameters are fitted (LODO), and the lexical model's LODO
 *                                         runs beside it on the same passages, with the AUC gain per
 *                                         domain. Not with --fit or --nli
 *   --sample N                            every k-th claim, N per domain (for slow stance readers)
 *   --precision-target X                  experiment: the precision each committed verdict needs on the
 *                                         training domains (default verdict.ts PRECISION_TARGET)
 *   --no-pairs                            skip the NLI pair files (../shared/fixtures/nli/)
 *   --cache FILE                          keep the retrieved, ranked passages in FILE (reused while
 *                                         the retrieval/ranking code is unchanged); stance features
 *                                         are recomputed on every run
 *   --fit-cache FILE                      also fit leave-one-domain-out on the passages in FILE (a
 *                                         --cache file written by another build: the retrieval before
 *                                         a change) and measure on the current passages, beside the
 *                                         fit on the current ones: whether weights fitted on what
 *                                         retrieval returned before hold up on what it returns now
 *                                         (a refit's go/no-go, issue 31). Not with --nli / --nli-fold
 *
 * Fitting, both stages on the training domains only, each domain weighing the same:
 *   1. stance model: multinomial logistic regression over the local stance features (stance.ts),
 *      L2 toward the hand-set prior (stance-prior.ts), class-balanced within each domain. Passage
 *      labels: a gold sentence takes its claim's label (supports/refutes; an NEI claim's → neutral),
 *      other retrieved sentences are neutral; AVeriTeC answers take their claim's label (weak).
 *   2. verdict, precision first (issue 34): the slope of P(true) = σ(a (S − R)) by log-loss on the
 *      true/false claims; then, for each evidence floor minEvidence, the lowest confidence a `true`
 *      needs (confidenceTrue) at which `true` is right at least PRECISION_TARGET (0.8, verdict.ts)
 *      of the time on every training domain where it is given at least 10 times and over them
 *      pooled, the same for `false`, and of the floors the one that covers most true/false claims
 *      (mean over the training domains). The floor both sides need for `conflicting`
 *      (CONFLICT_FLOOR = 0.6) is a stated policy.
 *      The baseline (the lexical model shipped before issue 34, eval-claims-baseline.mjs) is fitted
 *      by its own recipe in the same run: minEvidence on mean macro-F1, CONFIDENCE 0.6.
 * Measures, per domain: accuracy, macro-F1 (over the labels the domain has), the always-majority
 * baseline, precision and count of `true` and of `false` verdicts, coverage (share of the true/false
 * claims that get a true/false verdict), share answered `unverifiable` (all claims and NEI claims), retrieval recall@5/@10 of the gold sentences, and how well trust_score reads as
 * P(true) on the true/false claims (Brier score, expected calibration error over 10 bins), and how
 * well it ranks them whatever the thresholds (AUC: the chance that a true claim scores above a
 * false one; 0.5 = no discrimination). Each table says whether the issue's bar holds (each verdict
 * right ≥ 0.70 where given ≥ 20 times). Then the NLI pair files' held-out parts (nliPairs below).
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync, existsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { createHash } from 'node:crypto';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const args = process.argv.slice(2);
const FIT = args.includes('--fit');
if (FIT && args.includes('--nli')) {
  console.error('eval-claims: --nli measures an NLI model through the verdict; claim-weights.ts holds the local model, so it cannot be combined with --fit');
  process.exit(2);
}
if (args.includes('--nli-fold') && (FIT || args.includes('--nli'))) {
  console.error('eval-claims: --nli-fold reads each domain with its own fold\'s model; it cannot be combined with --fit or --nli');
  process.exit(2);
}
if (FIT && args.includes('--sample')) {
  console.error('eval-claims: --sample measures a subset; --fit fits on every claim');
  process.exit(2);
}
if (args.includes('--fit-cache') && (args.includes('--nli') || args.includes('--nli-fold'))) {
  console.error('eval-claims: --fit-cache fits the local model on another retrieval\'s passages; it cannot be combined with --nli or --nli-fold');
  process.exit(2);
}
if (args.includes('--fit-cache') && args.includes('--no-lodo') && !FIT) {
  console.error('eval-claims: --fit-cache is measured leave-one-domain-out; it cannot be combined with --no-lodo');
  process.exit(2);
}
if (FIT && args.includes('--two-stage')) {
  console.error('eval-claims: --two-stage is a measured experiment; claim-weights.ts has no place for its direction model, so it cannot be combined with --fit');
  process.exit(2);
}
const fixturesDir = process.env.VERITY_FIXTURES ?? resolve(root, '..', 'shared', 'fixtures');
const claimsDir = resolve(fixturesDir, 'claims');
if (!existsSync(claimsDir)) {
  console.error(`eval-claims: fixtures not found at ${claimsDir} (the shared fixtures live beside the repo)`);
  process.exit(2);
}
if (!existsSync(resolve(root, 'dist/engine/claim/assess.js'))) {
  console.error('eval-claims: dist/ is not built; run `npm run build` (or npx tsc -p tsconfig.build.json) first');
  process.exit(2);
}
const dist = (p) => import(new URL(`../dist/${p}`, import.meta.url).href);
const { scoreHits, dedupeHits, fillItems } = await dist('engine/claim/assess.js');
const { rankPassages } = await dist('engine/claim/passages.js');
const { FEATURES, STANCES, predictStance, stanceFeatures } = await dist('engine/claim/stance.js');
const { STANCE_PRIOR } = await dist('engine/claim/stance-prior.js');
const { STANCE_MODEL, VERDICT_PARAMS, WEIGHTS_PROVENANCE } = await dist('engine/claim/claim-weights.js');
const { decideVerdict, truthProbability, CONFIDENCE, CONFLICT_FLOOR, WRONG_COST, PRECISION_TARGET } = await dist('engine/claim/verdict.js');
const { BASELINE_NAME, BASELINE_MODEL, BASELINE_VERDICT, BASELINE_FEATURES, baselineFeatures } = await import('./eval-claims-baseline.mjs');
const { aggregate } = await dist('engine/claim/aggregate.js');
const { buildQuery } = await dist('engine/claim/query.js');
const { SOURCE_LIMITS } = await dist('engine/claim/retrieve.js');
const { passageKey } = await dist('engine/claim/text.js');
const { importCorpus, searchCorpus } = await dist('sources/local-corpus.js');
const { openStore } = await dist('store/local/database.js');

const VERDICTS = ['true', 'false', 'unverifiable', 'conflicting'];
const NOW = new Date('2021-01-01T00:00:00Z');
const sha = (p) => createHash('sha256').update(readFileSync(p)).digest('hex').slice(0, 12);
const jsonl = (p) => readFileSync(p, 'utf8').split('\n').filter((l) => l.trim()).map((l) => JSON.parse(l));

// ---- data
function loadAveritec() {
  const path = resolve(claimsDir, 'averitec-dev.json');
  const LABELS = { Supported: 'true', Refuted: 'false', 'Not Enough Evidence': 'unverifiable', 'Conflicting Evidence/Cherrypicking': 'conflicting' };
  const claims = JSON.parse(readFileSync(path, 'utf8')).map((c) => ({
    claim: c.claim,
    gold: LABELS[c.label],
    hits: (c.questions ?? []).flatMap((q) =>
      (q.answers ?? []).map((a) => {
        const parts = [q.question.trim().replace(/\?*$/, '?'), a.answer.trim()];
        if (a.answer_type === 'Boolean' && a.boolean_explanation) parts.push(a.boolean_explanation.trim());
        return { source: 'local', url: a.source_url ?? '', title: q.question, text: parts.join(' ').replace(/\s+/g, ' '), published_at: null, publisher: null, declared_authority: null };
      }),
    ),
  }));
  return { name: 'averitec', files: [`averitec-dev.json (sha256 ${sha(path)}…)`], claims, corpus: null };
}

function loadCheckCovid() {
  const dir = resolve(claimsDir, 'check-covid');
  const LABELS = { SUPPORT: 'true', REFUTE: 'false', NOTENOUGHINFO: 'unverifiable' };
  const abstracts = new Map(jsonl(resolve(dir, 'corpus.json')).map((d) => [d.cord_id, d]));
  const corpus = [...abstracts.values()].map((d) => ({
    // One sentence a line, so sentence splitting keeps the corpus's own sentence boundaries.
    text: [d.title, ...d.abstract].join('\n'),
    url: `https://cord19.example/${d.cord_id}`,
    source: 'CORD-19',
  }));
  const claims = jsonl(resolve(dir, 'Check-COVID_all.json')).map((c) => {
    const abs = abstracts.get(c.cord_id);
    const gold = LABELS[c.label];
    const goldKeys = gold === 'unverifiable' || !abs ? [] : (c.evidence_set ?? []).map((e) => abs.abstract[e.sent_index]).filter(Boolean).map(passageKey);
    return { claim: c.claim.trim(), gold, goldKeys };
  });
  return { name: 'check-covid', files: ['Check-COVID_all.json', 'corpus.json'].map((f) => `${f} (sha256 ${sha(resolve(dir, f))}…)`), claims, corpus };
}

function loadFoolMeTwice() {
  const dir = resolve(claimsDir, 'fool-me-twice');
  const rows = [...jsonl(resolve(dir, 'dev.jsonl')), ...jsonl(resolve(dir, 'test.jsonl'))];
  const LABELS = { SUPPORTS: 'true', REFUTES: 'false' };
  const seen = new Set();
  const corpus = [];
  for (const r of rows) {
    const url = `https://en.wikipedia.org/wiki/${encodeURIComponent(String(r.wikipedia_page).replace(/ /g, '_'))}`;
    for (const e of [...(r.gold_evidence ?? []), ...(r.retrieved_evidence ?? [])]) {
      const key = `${url}\u0000${e.text}`;
      if (!e.text?.trim() || seen.has(key)) continue;
      seen.add(key);
      corpus.push({ text: e.text, url, source: 'Wikipedia' });
    }
  }
  const claims = rows.map((r) => ({ claim: r.text, gold: LABELS[r.label], goldKeys: (r.gold_evidence ?? []).map((e) => passageKey(e.text)) }));
  return { name: 'fool-me-twice', files: ['dev.jsonl', 'test.jsonl'].map((f) => `${f} (sha256 ${sha(resolve(dir, f))}…)`), claims, corpus };
}

/** Retrieval through the real local-corpus path: import into an in-memory store, search per claim. */
async function retrieveAll(domain) {
  if (!domain.corpus) return;
  const tmp = mkdtempSync(join(tmpdir(), 'verity-eval-'));
  const file = join(tmp, `${domain.name}.jsonl`);
  writeFileSync(file, domain.corpus.map((r) => JSON.stringify(r)).join('\n'));
  const store = await openStore(':memory:');
  await importCorpus(store, file, { now: () => NOW });
  rmSync(tmp, { recursive: true, force: true });
  for (const c of domain.claims) {
    c.hits = searchCorpus(store.db, buildQuery(c.claim, 'en'), SOURCE_LIMITS.local);
    if (c.goldKeys?.length) {
      const ranked = rankPassages(c.claim, c.hits.map((h) => h.text), { limit: 10, after: fillItems(c.hits) }).map((p) => passageKey(p.text));
      const gold = new Set(c.goldKeys);
      c.recall5 = ranked.slice(0, 5).filter((k) => gold.has(k)).length / gold.size;
      c.recall10 = ranked.slice(0, 10).filter((k) => gold.has(k)).length / gold.size;
    }
  }
  store.close();
}

/** Per claim: its passages' stance features, relevance, authority, and a training label each. */
function featurize(domain) {
  for (const c of domain.claims) {
    const scored = scoreHits(c.claim, dedupeHits(c.hits), { limit: 20 });
    const gold = new Set(c.goldKeys ?? []);
    const target = { true: 'supports', false: 'refutes' }[c.gold] ?? 'neutral';
    c.passages = scored.map((s) => {
      let label;
      if (domain.name === 'averitec') label = /no answer could be found/i.test(s.hit.text) ? 'neutral' : c.gold === 'conflicting' ? null : target;
      else label = gold.has(passageKey(s.passage)) ? target : 'neutral';
      return { text: s.passage, relevance: s.relevance, authority: s.authority, publisher: s.hit.url, label };
    });
  }
}

// ---- model pieces
/**
 * The stance models measured side by side: the current local model (stance.ts, what --fit fits
 * and ships) and the lexical model as shipped before issue 34 (eval-claims-baseline.mjs), each
 * fitted leave-one-domain-out by its own recipe: the current one precision first (verdict.ts
 * PRECISION_TARGET), the baseline as it was (minEvidence on mean macro-F1, CONFIDENCE 0.6).
 */
const SPECS = {
  current: { key: 'x', name: 'current local model', features: FEATURES, featurize: stanceFeatures, recipe: 'precision' },
  baseline: { key: 'xb', name: BASELINE_NAME, features: BASELINE_FEATURES, featurize: baselineFeatures, recipe: 'baseline' },
};
const toX = (v, features = FEATURES) => Object.fromEntries(features.map((f, i) => [f, v[i]]));
/** Experimental (--two-stage): the 3-class model says whether a passage takes a side, a binary
 *  model fitted on gold supports/refutes pairs only says which side. */
function stanceOf(x, model, passage) {
  // --nli: the model's own probabilities, mapped as the engine maps them (assess.ts applyNli).
  if (model.nli) return { supports: passage.nli.entailment, refutes: passage.nli.contradiction, neutral: passage.nli.neutral };
  if (!model.direction) return predictStance(toX(x, model.features), model);
  const p = predictStance(toX(x), model);
  const d = predictStance(toX(x), model.direction);
  const side = 1 - p.neutral;
  return { supports: side * d.supports, refutes: side * d.refutes, neutral: p.neutral };
}
function srOf(c, model, key = 'x') {
  const items = c.passages.map((p) => ({ stance: stanceOf(p[key], model, p), relevance: key === 'x' ? (p.weightRelevance ?? p.relevance) : p.relevance, authority: p.authority, publisher: p.publisher, published_at: null }));
  const a = aggregate(items, { now: NOW });
  return [a.support, a.refute];
}

/** Multinomial logistic regression, MAP with a Gaussian prior centred on W0; per-example weights. */
const opt = (name, d) => (args.includes(name) ? Number(args[args.indexOf(name) + 1]) : d);
const L2 = opt('--l2', 0.05);
const NLI_DIR = args.includes('--nli') ? resolve(args[args.indexOf('--nli') + 1]) : null;
/** --nli-fold: domain name → the folder of the model trained without that domain. */
const NLI_FOLD = args.includes('--nli-fold')
  ? Object.fromEntries(String(args[args.indexOf('--nli-fold') + 1] ?? '').split(',').filter(Boolean).map((s) => [s.slice(0, s.indexOf('=')), resolve(s.slice(s.indexOf('=') + 1))]))
  : null;
const SAMPLE = opt('--sample', 0);
const OBJECTIVE = args.includes('--objective') ? args[args.indexOf('--objective') + 1] : 'macro-f1';
if (!['utility', 'macro-f1'].includes(OBJECTIVE)) {
  console.error(`eval-claims: --objective is utility or macro-f1, not ${OBJECTIVE}`);
  process.exit(2);
}
const ITERS = opt('--iters', 400);
function fitSoftmax(xs, ys, ws, W0, { l2 = L2, iters = ITERS, lr = 1 } = {}) {
  const K = W0.length;
  const F = W0[0].length;
  const W = W0.map((w) => [...w]);
  const wsum = ws.reduce((a, b) => a + b, 0);
  for (let it = 0; it < iters; it++) {
    const G = Array.from({ length: K }, () => new Array(F).fill(0));
    for (let n = 0; n < xs.length; n++) {
      const x = xs[n];
      const z = W.map((w) => w.reduce((a, wi, i) => a + wi * x[i], 0));
      const m = Math.max(...z);
      const e = z.map((v) => Math.exp(v - m));
      const s = e.reduce((a, b) => a + b, 0);
      for (let k = 0; k < K; k++) {
        const g = (e[k] / s - (ys[n] === k ? 1 : 0)) * ws[n];
        if (g !== 0) for (let i = 0; i < F; i++) G[k][i] += g * x[i];
      }
    }
    for (let k = 0; k < K; k++) for (let i = 0; i < F; i++) W[k][i] -= lr * (G[k][i] / wsum + (i === 0 ? 0 : l2 * (W[k][i] - W0[k][i])));
  }
  return W.map((w) => w.map((v) => Math.round(v * 1000) / 1000));
}

/** Neutral passages kept per claim for fitting (the best-ranked: the hard negatives). */
const NEUTRAL_PER_CLAIM = 4;
/** Weight of the neutral class relative to supports/refutes in the stance fit (--neutral-weight). */
const NEUTRAL_WEIGHT = opt('--neutral-weight', 1);
function fitStance(domains, spec = SPECS.current, { lexical = false } = {}) {
  // The NLI model is used as it is: only the verdict parameters are fitted on its readings.
  if ((NLI_DIR || NLI_FOLD) && !lexical) return { nli: true };
  const { key, features: FEATURES } = spec;
  const xs = [];
  const ys = [];
  const ws = [];
  for (const d of domains) {
    const ex = [];
    for (const c of d.claims) {
      let neutral = 0;
      for (const p of c.passages) {
        if (!p.label) continue;
        if (p.label === 'neutral' && neutral++ >= NEUTRAL_PER_CLAIM) continue;
        ex.push(p);
      }
    }
    // Balanced classes within the domain, and every domain the same total weight.
    const counts = Object.fromEntries(STANCES.map((s) => [s, ex.filter((p) => p.label === s).length]));
    const present = STANCES.filter((s) => counts[s] > 0).length;
    for (const p of ex) {
      xs.push(p[key]);
      ys.push(STANCES.indexOf(p.label));
      ws.push((p.label === 'neutral' ? NEUTRAL_WEIGHT : 1) / (present * counts[p.label]));
    }
  }
  const W0 = STANCES.map((c) => FEATURES.map((f) => STANCE_PRIOR.weights[STANCE_PRIOR.classes.indexOf(c)][STANCE_PRIOR.features.indexOf(f)] ?? 0));
  const tri = { features: [...FEATURES], classes: [...STANCES], weights: fitSoftmax(xs, ys, ws, W0) };
  if (!args.includes('--two-stage')) return tri;
  // Direction: gold supports vs refutes pairs only, balanced within each domain.
  const dx = [], dy = [], dw = [];
  for (const d of domains) {
    const ex = d.claims.flatMap((c) => c.passages.filter((p) => p.label === 'supports' || p.label === 'refutes'));
    const n = { supports: ex.filter((p) => p.label === 'supports').length, refutes: ex.filter((p) => p.label === 'refutes').length };
    for (const p of ex) { dx.push(p[key]); dy.push(p.label === 'supports' ? 0 : 1); dw.push(1 / (2 * n[p.label])); }
  }
  const D0 = [W0[0], W0[1]];
  tri.direction = { features: [...FEATURES], classes: ['supports', 'refutes'], weights: fitSoftmax(dx, dy, dw, D0) };
  return tri;
}

const grid = (a, b, s) => Array.from({ length: Math.round((b - a) / s) + 1 }, (_, i) => Math.round((a + i * s) * 1000) / 1000);
function fitVerdict(domains, model, spec = SPECS.current) {
  const sets = domains.map((d) => ({ gold: d.claims.map((c) => c.gold), sr: d.claims.map((c) => srOf(c, model, spec.key)) }));
  // Calibration slope first: log-loss of σ(a (S − R)) on the true/false claims, domains weighted alike.
  let bestA = { loss: Infinity, a: 1 };
  for (const a of grid(0.25, 30, 0.25)) {
    let loss = 0;
    for (const s of sets) {
      let l = 0;
      let n = 0;
      s.sr.forEach(([S, R], i) => {
        const g = s.gold[i];
        if (g !== 'true' && g !== 'false') return;
        const q = Math.min(1 - 1e-6, Math.max(1e-6, truthProbability(S, R, { calibration: a })));
        l -= g === 'true' ? Math.log(q) : Math.log(1 - q);
        n++;
      });
      loss += n ? l / n : 0;
    }
    if (loss < bestA.loss) bestA = { loss, a };
  }
  if (spec.recipe === 'precision') return fitPrecisionFirst(sets, bestA.a);
  // Then the evidence floor (and, with --fit-conflict / --fit-confidence, the conflict floor and the
  // confidence a verdict needs, both stated policies otherwise), on the mean over the training
  // domains of the objective.
  let best = { score: -Infinity, p: null };
  const confidences = args.includes('--fit-confidence') ? grid(0.5, 0.8, 0.025) : [CONFIDENCE];
  for (const confidence of confidences)
    for (const minEvidence of grid(0.05, 0.9, 0.025))
      for (const conflictFloor of args.includes('--fit-conflict') ? [...grid(0.3, 0.95, 0.05), 1.01] : [CONFLICT_FLOOR]) {
        const p = args.includes('--fit-confidence') ? { minEvidence, conflictFloor, calibration: bestA.a, confidence } : { minEvidence, conflictFloor, calibration: bestA.a };
        let score = 0;
        for (const s of sets) {
          const pred = s.sr.map(([S, R]) => decideVerdict(S, R, p));
          score += OBJECTIVE === 'utility' ? utility(s.gold, pred) : metrics(s.gold, pred).macroF1;
        }
        score /= sets.length;
        if (score > best.score + 1e-9) best = { score, p };
      }
  return best.p;
}

/**
 * Precision first (issue 34): for each evidence floor, the lowest confidence a `true` needs at
 * which `true` is right at least PRECISION_TARGET of the time on every training domain where it
 * is given at least MIN_COMMITTED times (and over the training domains pooled), and the same for
 * `false`; a side with no such threshold is never given (threshold above 1). Of the floors, the
 * one whose thresholds commit on the largest mean coverage (share of the true/false claims that
 * get a true/false verdict) over the training domains.
 */
const MIN_COMMITTED = 10;
const TARGET = opt('--precision-target', PRECISION_TARGET);
function fitPrecisionFirst(sets, calibration) {
  const sides = ['true', 'false'];
  let best = { score: -Infinity, p: null };
  const floors = args.includes('--max-floor') ? grid(0.05, opt('--max-floor', 0.9), 0.025) : grid(0.05, 0.9, 0.025);
  for (const minEvidence of floors) {
    const p = { minEvidence, conflictFloor: CONFLICT_FLOOR, calibration };
    const chosen = {};
    for (const side of sides) {
      chosen[side] = 1.01;
      for (const conf of grid(0.5, 1, 0.0125)) {
        const q = side === 'true' ? { ...p, confidenceTrue: conf, confidenceFalse: 1.01 } : { ...p, confidenceTrue: 1.01, confidenceFalse: conf };
        let ok = true;
        let right = 0;
        let given = 0;
        for (const s of sets) {
          let r = 0;
          let g = 0;
          s.sr.forEach(([S, R], i) => {
            if (decideVerdict(S, R, q) !== side) return;
            g++;
            if (s.gold[i] === side) r++;
          });
          if (g >= MIN_COMMITTED && r / g < TARGET) ok = false;
          right += r;
          given += g;
        }
        if (ok && given > 0 && right / given >= TARGET) {
          chosen[side] = conf;
          break;
        }
      }
    }
    const q = { ...p, confidenceTrue: chosen.true, confidenceFalse: chosen.false };
    let score = 0;
    for (const s of sets) score += coverage(s.gold, s.sr.map(([S, R]) => decideVerdict(S, R, q)));
    score /= sets.length;
    if (score > best.score + 1e-9) best = { score, p: q };
  }
  return best.p;
}
/** Share of the claims whose gold label is true or false that get a true or false verdict. */
function coverage(gold, pred) {
  let n = 0;
  let c = 0;
  gold.forEach((g, i) => {
    if (g !== 'true' && g !== 'false') return;
    n++;
    if (pred[i] === 'true' || pred[i] === 'false') c++;
  });
  return n ? c / n : null;
}

// ---- measures
/**
 * The verdict's utility per claim (--objective utility): a right answer scores 1, a wrong true /
 * false / conflicting verdict costs WRONG_COST (verdict.ts), abstaining (`unverifiable` on a claim
 * that has an answer) scores 0. With WRONG_COST = 1.5 a verdict pays only when it is right at least
 * 3 times in 5 — the same break-even as Chow's rule at CONFIDENCE 0.6 — so fitting the confidence on
 * this utility corrects the calibration's error on the training domains, not the policy.
 */
function utility(gold, pred) {
  let u = 0;
  gold.forEach((g, i) => {
    if (pred[i] === g) u += 1;
    else if (pred[i] !== 'unverifiable') u -= WRONG_COST;
  });
  return u / gold.length;
}
function metrics(gold, pred) {
  const labels = VERDICTS.filter((v) => gold.includes(v));
  const per = {};
  for (const v of VERDICTS) {
    let tp = 0;
    let fp = 0;
    let fn = 0;
    gold.forEach((g, i) => {
      if (pred[i] === v && g === v) tp++;
      else if (pred[i] === v) fp++;
      else if (g === v) fn++;
    });
    const P = tp + fp ? tp / (tp + fp) : 0;
    const R = tp + fn ? tp / (tp + fn) : 0;
    per[v] = { precision: P, recall: R, f1: P + R ? (2 * P * R) / (P + R) : 0, predicted: tp + fp, support: tp + fn };
  }
  const accuracy = gold.filter((g, i) => g === pred[i]).length / gold.length;
  const macroF1 = labels.reduce((a, v) => a + per[v].f1, 0) / labels.length;
  return { accuracy, macroF1, per };
}

function evaluate(d, model, params, key = 'x') {
  const sr = d.claims.map((c) => srOf(c, model, key));
  return measure(
    d.claims,
    sr.map(([S, R]) => decideVerdict(S, R, params)),
    sr.map(([S, R]) => truthProbability(S, R, params)),
  );
}

/**
 * How well trust_score reads as P(true) on the claims that are true or false: Brier score and
 * expected calibration error (10 equal-width bins).
 */
function calibration(gold, trust) {
  const pts = gold.map((g, i) => [trust[i], g === 'true' ? 1 : g === 'false' ? 0 : null]).filter(([, y]) => y !== null);
  if (!pts.length) return { brier: null, ece: null, auc: null };
  const brier = pts.reduce((a, [p, y]) => a + (p - y) ** 2, 0) / pts.length;
  const bins = Array.from({ length: 10 }, () => ({ n: 0, p: 0, y: 0 }));
  for (const [p, y] of pts) {
    const b = bins[Math.min(9, Math.floor(p * 10))];
    b.n++;
    b.p += p;
    b.y += y;
  }
  const ece = bins.reduce((a, b) => a + (b.n ? (b.n / pts.length) * Math.abs(b.p / b.n - b.y / b.n) : 0), 0);
  // AUC: the chance that a true claim gets a higher trust_score than a false one (ties count half);
  // 0.5 is no discrimination, whatever the thresholds.
  const pos = pts.filter(([, y]) => y === 1).map(([p]) => p);
  const neg = pts.filter(([, y]) => y === 0).map(([p]) => p);
  let wins = 0;
  const sorted = [...neg].sort((a, b) => a - b);
  const below = (v) => { let lo = 0, hi = sorted.length; while (lo < hi) { const m = (lo + hi) >> 1; if (sorted[m] < v) lo = m + 1; else hi = m; } return lo; };
  const atOrBelow = (v) => { let lo = 0, hi = sorted.length; while (lo < hi) { const m = (lo + hi) >> 1; if (sorted[m] <= v) lo = m + 1; else hi = m; } return lo; };
  for (const v of pos) wins += below(v) + (atOrBelow(v) - below(v)) / 2;
  const auc = pos.length && neg.length ? wins / (pos.length * neg.length) : null;
  return { brier, ece, auc };
}

function measure(claims, pred, trust) {
  const d = { claims };
  const gold = d.claims.map((c) => c.gold);
  const m = metrics(gold, pred);
  const cal = calibration(gold, trust);
  const counts = Object.fromEntries(VERDICTS.map((v) => [v, gold.filter((g) => g === v).length]));
  const majority = VERDICTS.reduce((a, v) => (counts[v] > counts[a] ? v : a), VERDICTS[0]);
  const nei = d.claims.map((c, i) => (c.gold === 'unverifiable' ? i : -1)).filter((i) => i >= 0);
  const withGold = d.claims.filter((c) => c.recall5 !== undefined);
  const mean = (xs) => (xs.length ? xs.reduce((a, b) => a + b, 0) / xs.length : null);
  return {
    n: gold.length,
    majority,
    majorityAccuracy: counts[majority] / gold.length,
    accuracy: m.accuracy,
    macroF1: m.macroF1,
    precisionTrue: m.per.true.predicted ? m.per.true.precision : null,
    precisionFalse: m.per.false.predicted ? m.per.false.precision : null,
    predicted: Object.fromEntries(VERDICTS.map((v) => [v, m.per[v].predicted])),
    unverifiableShare: m.per.unverifiable.predicted / gold.length,
    coverage: coverage(gold, pred),
    unverifiableOnNei: nei.length ? nei.filter((i) => pred[i] === 'unverifiable').length / nei.length : null,
    brier: cal.brier,
    ece: cal.ece,
    auc: cal.auc,
    recall5: mean(withGold.map((c) => c.recall5)),
    recall10: mean(withGold.map((c) => c.recall10)),
  };
}

const f3 = (x) => (x === null || x === undefined ? '    –' : x.toFixed(3).padStart(5));
function table(title, rows) {
  console.log(`\n${title}`);
  console.log(`  ${'domain'.padEnd(14)} ${'n'.padStart(5)}    AUC  accuracy  majority  P(true)  #true  P(false)  #false  coverage  unverif.|NEI  recall@5  macroF1  Brier    ECE`);
  for (const [name, r] of rows)
    console.log(
      `  ${name.padEnd(14)} ${String(r.n).padStart(5)}  ${f3(r.auc)}     ${f3(r.accuracy)}     ${f3(r.majorityAccuracy)}    ${f3(r.precisionTrue)}  ${String(r.predicted.true).padStart(5)}     ${f3(r.precisionFalse)}  ${String(r.predicted.false).padStart(6)}     ${f3(r.coverage)}         ${f3(r.unverifiableOnNei)}     ${f3(r.recall5)}    ${f3(r.macroF1)}  ${f3(r.brier)}  ${f3(r.ece)}`,
    );
  // The issue's bar: each committed verdict right at least 70 % of the time where given 20 times or more.
  const short = rows.flatMap(([name, r]) =>
    ['true', 'false'].filter((v) => r.predicted[v] >= 20 && (v === 'true' ? r.precisionTrue : r.precisionFalse) < 0.7).map((v) => `${name} P(${v})`),
  );
  console.log(`  precision bar (≥ 0.70 where a verdict is given ≥ 20 times): ${short.length ? `missed on ${short.join(', ')}` : 'met on every domain'}`);
}

// ---- run
const t0 = Date.now();
const domains = [loadAveritec(), loadCheckCovid(), loadFoolMeTwice()];
const legacyAt = args.indexOf('--legacy');
if (legacyAt >= 0) {
  const dir = resolve(args[legacyAt + 1]);
  const L = async (p) => import(new URL(`file://${dir}/dist/${p}`).href);
  const old = { ...(await L('engine/claim/assess.js')), ...(await L('engine/claim/query.js')), ...(await L('engine/claim/passages.js')) };
  const oldCorpus = await L('sources/local-corpus.js');
  const oldStore = await L('store/database.js');
  const rows = [];
  for (const d of domains) {
    let db = null;
    let store = null;
    if (d.corpus) {
      const tmp = mkdtempSync(join(tmpdir(), 'verity-eval-'));
      const file = join(tmp, `${d.name}.jsonl`);
      writeFileSync(file, d.corpus.map((r) => JSON.stringify(r)).join('\n'));
      store = await oldStore.openStore(':memory:');
      await oldCorpus.importCorpus(store, file, { now: () => NOW });
      rmSync(tmp, { recursive: true, force: true });
      db = store.db;
    }
    const trust = [];
    const pred = d.claims.map((c) => {
      const hits = db ? oldCorpus.searchCorpus(db, old.buildQuery(c.claim, 'en'), 10) : c.hits;
      const deduped = old.dedupeHits(hits);
      if (c.goldKeys?.length) {
        // What the old pipeline read first: the chosen sentences of the first 5 and 10 items.
        const passages = old.selectPassages(c.claim, deduped.map((h) => h.text));
        const gold = new Set(c.goldKeys);
        const found = (k) => {
          const text = passages.slice(0, k).map((p) => passageKey(p.text)).join(' | ');
          return [...gold].filter((g) => text.includes(g)).length / gold.size;
        };
        c.recall5 = found(5);
        c.recall10 = found(10);
      }
      const r = old.conclude(old.scoreHits(c.claim, deduped), { now: NOW, retrievedAt: NOW.toISOString(), maxEvidence: 20, claim: c.claim });
      trust.push(r.trust_score);
      return r.verdict;
    });
    store?.close();
    rows.push([d.name, measure(d.claims, pred, trust)]);
    process.stderr.write(`legacy ${d.name} done (${((Date.now() - t0) / 1000).toFixed(0)} s)\n`);
  }
  table(`Earlier build at ${dir} (before issue 11), same data and measures`, rows);
  for (const [name, r] of rows) console.log(`  ${name}: verdicts ${VERDICTS.map((v) => `${v} ${r.predicted[v]}`).join(', ')}`);
  if (args.includes('--json')) console.log(JSON.stringify(Object.fromEntries(rows)));
  process.exit(0);
}
const cacheAt = args.indexOf('--cache');
const cacheFile = cacheAt >= 0 ? resolve(args[cacheAt + 1]) : null;
const codeKey = createHash('sha256')
  .update(['engine/claim/text.js', 'engine/claim/passages.js', 'engine/claim/query.js', 'engine/claim/assess.js', 'sources/local-corpus.js', 'sources/corpus-topk.js', 'engine/claim/retrieve.js'].map((f) => readFileSync(resolve(root, 'dist', f), 'utf8')).join('\u0000'))
  .digest('hex');
const cached = cacheFile && existsSync(cacheFile) ? JSON.parse(readFileSync(cacheFile, 'utf8')) : null;
if (cached?.codeKey === codeKey) {
  for (const d of domains) d.claims = cached.domains[d.name];
  process.stderr.write(`passages and features from ${cacheFile}\n`);
} else {
  for (const d of domains) {
    await retrieveAll(d);
    featurize(d);
    for (const c of d.claims) delete c.hits;
    process.stderr.write(`${d.name}: ${d.claims.length} claims, ${d.claims.reduce((a, c) => a + c.passages.length, 0)} passages (${((Date.now() - t0) / 1000).toFixed(0)} s)\n`);
  }
  if (cacheFile) writeFileSync(cacheFile, JSON.stringify({ codeKey, domains: Object.fromEntries(domains.map((d) => [d.name, d.claims])) }));
}
// --fit-cache FILE: the same claims with the passages another build's retrieval found (its --cache).
const fitCacheAt = args.indexOf('--fit-cache');
const fitCacheFile = fitCacheAt >= 0 ? resolve(String(args[fitCacheAt + 1])) : null;
let fitDomains = null;
if (fitCacheFile) {
  if (!existsSync(fitCacheFile)) {
    console.error(`eval-claims: --fit-cache ${fitCacheFile} does not exist (write it with --cache from the other build)`);
    process.exit(2);
  }
  const other = JSON.parse(readFileSync(fitCacheFile, 'utf8'));
  fitDomains = domains.map((d) => {
    const claims = other.domains?.[d.name];
    if (!Array.isArray(claims) || claims.length !== d.claims.length || claims.some((c, i) => c.claim !== d.claims[i].claim)) {
      console.error(`eval-claims: --fit-cache ${fitCacheFile} does not hold the same ${d.name} claims`);
      process.exit(2);
    }
    return { ...d, claims };
  });
  if (other.codeKey === codeKey) process.stderr.write(`--fit-cache ${fitCacheFile} was written by this build's retrieval: both fits see the same passages\n`);
}
// Stance features are computed here, not cached: the cache holds what retrieval and ranking found.
for (const d of [...domains, ...(fitDomains ?? [])])
  for (const c of d.claims)
    for (const p of c.passages)
      for (const spec of Object.values(SPECS)) {
        const { x, relevance } = spec.featurize(c.claim, p.text, p.relevance);
        p[spec.key] = spec.features.map((f) => x[f]);
        // The current model weighs a passage with a swapped slot by its frame's relevance (assess.ts).
        if (spec.key === 'x') p.weightRelevance = relevance ?? p.relevance;
      }

// --sample N: every k-th claim of each domain (deterministic), so that a slow stance reader (an NLI
// model on this machine) can be measured on a subset.
if (SAMPLE > 0)
  for (const d of domains) {
    const step = Math.max(1, Math.floor(d.claims.length / SAMPLE));
    d.claims = d.claims.filter((_, i) => i % step === 0).slice(0, SAMPLE);
  }
// --nli DIR: read every passage against its claim with the NLI model in DIR, through the engine's
// own runner (premise = passage, hypothesis = claim, as verify.ts asks it).
if (NLI_FOLD) {
  const missing = domains.filter((d) => !NLI_FOLD[d.name]).map((d) => d.name);
  if (missing.length) {
    console.error(`eval-claims: --nli-fold names no model for ${missing.join(', ')} (give DOMAIN=DIR for each of ${domains.map((d) => d.name).join(', ')})`);
    process.exit(2);
  }
}
if (NLI_DIR || NLI_FOLD) {
  const { createOnnxNliClassifier } = await dist('engine/claim/nli/classifier.js');
  const started = Date.now();
  const cpu0 = process.cpuUsage();
  let pairs = 0;
  let nli;
  for (const d of domains) {
    if (!nli || (NLI_FOLD && nli.dir !== NLI_FOLD[d.name])) {
      await nli?.close();
      const dir = NLI_FOLD ? NLI_FOLD[d.name] : NLI_DIR;
      nli = Object.assign(createOnnxNliClassifier({ dir }), { dir });
      await nli.load();
    }
    for (const c of d.claims) {
      if (!c.passages.length) continue;
      const scores = await nli.classify(c.passages.map((p) => ({ premise: p.text, hypothesis: c.claim })));
      c.passages.forEach((p, i) => (p.nli = scores[i]));
      pairs += c.passages.length;
    }
    process.stderr.write(`${d.name}: NLI read ${pairs} passages so far (${((Date.now() - started) / 1000).toFixed(0)} s)\n`);
  }
  const cpu = process.cpuUsage(cpu0);
  console.log(`${NLI_FOLD ? `per-fold models (${domains.map((d) => `${d.name}: ${NLI_FOLD[d.name]}`).join(', ')})` : `${nli.name} (${NLI_DIR})`}: ${pairs} passages, ${((Date.now() - started) / Math.max(1, pairs)).toFixed(1)} ms wall and ${((cpu.user + cpu.system) / 1000 / Math.max(1, pairs)).toFixed(1)} ms CPU per passage`);
  await nli.close();
}

const out = { shipped: {}, lodo: {}, params: {} };
const dumpFile = args.includes('--dump') ? resolve(args[args.indexOf('--dump') + 1]) : null;
const dumped = {};
if (FIT || !args.includes('--no-lodo')) {
  const rows = [];
  for (const held of domains) {
    const train = domains.filter((d) => d !== held);
    const model = fitStance(train);
    const params = fitVerdict(train, model);
    out.lodo[held.name] = evaluate(held, model, params);
    out.params[held.name] = params;
    if (dumpFile) dumped[held.name] = { params, claims: held.claims.map((c) => ({ gold: c.gold, sr: srOf(c, model), n: c.passages.length, rel: Math.max(0, ...c.passages.map((p) => p.relevance)) })) };
    rows.push([held.name, out.lodo[held.name]]);
    process.stderr.write(`held out ${held.name}: ${JSON.stringify(params)}\n`);
  }
  table(`Leave-one-domain-out, ${NLI_DIR || NLI_FOLD ? 'NLI model' : SPECS.current.name} (stance model and verdict parameters fitted on the other two domains)`, rows);
  if (NLI_FOLD) {
    // The lexical model on the same passages, in the same run, for the go/no-go (issue 34).
    const lex = [];
    out.lexical = {};
    for (const held of domains) {
      const train = domains.filter((d) => d !== held);
      const model = fitStance(train, SPECS.current, { lexical: true });
      out.lexical[held.name] = evaluate(held, model, fitVerdict(train, model));
      lex.push([held.name, out.lexical[held.name]]);
    }
    table('Lexical model, leave-one-domain-out, same passages (the bar)', lex);
    console.log('\nAUC per held-out domain, trained model (read by the fold that never saw it) vs lexical:');
    for (const d of domains) {
      const [m, l] = [out.lodo[d.name].auc, out.lexical[d.name].auc];
      console.log(`  ${d.name.padEnd(14)} model ${f3(m)}  lexical ${f3(l)}  gain ${(m - l >= 0 ? '+' : '') + (m - l).toFixed(3)}`);
    }
  }
  if (fitDomains) {
    // The same recipe fitted on the other retrieval's passages of the two training domains, measured
    // on the held-out domain's current passages: what the weights fitted before the change give now.
    out.fitCache = {};
    const crows = [];
    for (const held of domains) {
      const train = fitDomains.filter((d) => d.name !== held.name);
      const model = fitStance(train);
      out.fitCache[held.name] = evaluate(held, model, fitVerdict(train, model));
      crows.push([held.name, out.fitCache[held.name]]);
    }
    table(`Leave-one-domain-out, fitted on the passages in ${fitCacheFile}, measured on the current passages`, crows);
    console.log('\nAUC per held-out domain, fitted on the current passages vs on the other retrieval\'s:');
    for (const d of domains) {
      const [m, o] = [out.lodo[d.name].auc, out.fitCache[d.name].auc];
      console.log(`  ${d.name.padEnd(14)} current ${f3(m)}  other ${f3(o)}  difference ${(m - o >= 0 ? '+' : '') + (m - o).toFixed(3)}`);
    }
  }
  if (dumpFile) writeFileSync(dumpFile, JSON.stringify(dumped));
  if (!NLI_DIR && !NLI_FOLD) {
    // The lexical model as shipped before issue 34, fitted the same way by its own recipe.
    out.baseline = {};
    const brows = [];
    for (const held of domains) {
      const train = domains.filter((d) => d !== held);
      const model = fitStance(train, SPECS.baseline);
      const params = fitVerdict(train, model, SPECS.baseline);
      out.baseline[held.name] = evaluate(held, model, params, SPECS.baseline.key);
      brows.push([held.name, out.baseline[held.name]]);
    }
    table(`Leave-one-domain-out, ${BASELINE_NAME} (its features, its recipe: minEvidence on mean macro-F1, confidence ${CONFIDENCE})`, brows);
    const shippedBefore = domains.map((d) => [d.name, evaluate(d, BASELINE_MODEL, BASELINE_VERDICT, SPECS.baseline.key)]);
    table(`${BASELINE_NAME} with the weights it shipped with (fitted on all three domains: in-sample for each)`, shippedBefore);
  }
}
if (FIT) {
  const model = fitStance(domains);
  const params = fitVerdict(domains, model);
  const all = domains.map((d) => [d.name, evaluate(d, model, params)]);
  table('Fitted on all three domains (in-sample; these weights ship)', all);
  const f = (r) =>
    `AUC ${f3(r.auc).trim()}, acc ${r.accuracy.toFixed(3)}, P(true) ${f3(r.precisionTrue).trim()} (${r.predicted.true}), P(false) ${f3(r.precisionFalse).trim()} (${r.predicted.false}), coverage ${f3(r.coverage).trim()}`;
  const provenance =
    `fitted by scripts/eval-claims.mjs --fit on ${new Date().toISOString().slice(0, 10)} on three domains weighted alike: ` +
    domains.map((d) => `${d.name} (${d.claims.length} claims; ${d.files.join(', ')})`).join('; ') +
    `. Stance: ${FEATURES.length}-feature multinomial logistic model, L2 ${L2} toward stance-prior.ts, ${ITERS} steps, class-balanced per domain. ` +
    `Verdict: calibration slope ${params.calibration} by log-loss; precision first: confidenceTrue ${params.confidenceTrue} and confidenceFalse ${params.confidenceFalse}, the lowest at which each verdict is right at least ${PRECISION_TARGET} of the time on every domain, with minEvidence ${params.minEvidence} the floor that keeps most claims covered; conflictFloor ${params.conflictFloor} (verdict.ts CONFLICT_FLOOR, stated). ` +
    `Leave-one-domain-out: ` +
    domains.map((d) => `${d.name} ${f(out.lodo[d.name])}`).join('; ') +
    '.';
  const file = resolve(root, 'src/engine/claim/claim-weights.ts');
  writeFileSync(
    file,
    `/**
 * Weights of the local stance model and the verdict decision's parameters.
 * GENERATED by \`node scripts/eval-claims.mjs --fit\` (do not edit by hand; re-run).
 *
 * Provenance: ${provenance.replace(/(.{1,96})(\s|$)/g, '$1\n * ').trimEnd()}
 */
import type { StanceModel } from './stance-model.js';
import type { VerdictParams } from './verdict.js';

export const STANCE_MODEL: StanceModel = {
  features: ${JSON.stringify(model.features)},
  classes: ${JSON.stringify(model.classes)},
  weights: [
${model.weights.map((w) => `    ${JSON.stringify(w)},`).join('\n')}
  ],
};

export const VERDICT_PARAMS: VerdictParams = ${JSON.stringify(params)};

export const WEIGHTS_PROVENANCE = ${JSON.stringify(provenance)};
`,
  );
  out.params.all = params;
  console.log(`\nwrote ${file}\nrebuild (npm run build) and run without --fit to check the shipped weights`);
} else {
  console.log(`weights: ${WEIGHTS_PROVENANCE}`);
  const rows = domains.map((d) => [d.name, (out.shipped[d.name] = evaluate(d, NLI_DIR || NLI_FOLD ? { nli: true } : STANCE_MODEL, VERDICT_PARAMS))]);
  table(NLI_DIR || NLI_FOLD ? 'NLI stances with the shipped verdict parameters (claim-weights.ts, fitted for the local model)' : 'Shipped weights (claim-weights.ts, fitted on all three domains: in-sample for each)', rows);
  for (const [name, r] of rows) console.log(`  ${name}: verdicts ${VERDICTS.map((v) => `${v} ${r.predicted[v]}`).join(', ')}`);
}
if (!NLI_DIR && !args.includes('--no-pairs')) out.pairs = nliPairs();
if (args.includes('--json')) console.log(JSON.stringify(out));

/**
 * The local stance model (the shipped weights) and the baseline on the held-out parts of the NLI
 * pair files in ../shared/fixtures/nli/ (premise = passage, hypothesis = claim, relevance from the
 * same passage ranking a claim gets): e-SNLI's test file (3 classes: entailment / contradiction /
 * neutral read as supports / refutes / neutral) and every fifth pair of FEVER-RTE (index % 5 == 0;
 * 2 classes: entailment = supports, not_entailment = refutes or neutral). These are the parts a
 * trained model keeps out of its training data (scripts/train-stance/); the local model is fitted
 * on none of the pairs.
 */
function nliPairs() {
  const dir = resolve(fixturesDir, 'nli');
  if (!existsSync(dir)) {
    console.log(`\nNLI pairs: skipped (no ${dir})`);
    return null;
  }
  const detok = (t) =>
    t.replace(/-LRB-/g, '(').replace(/-RRB-/g, ')').replace(/-LSB-/g, '[').replace(/-RSB-/g, ']').replace(/``|''/g, '"').replace(/\s+([.,;:!?)\]'"])/g, '$1').replace(/([(\[])\s+/g, '$1');
  const sets = [
    { name: 'e-SNLI test', file: 'esnli-test.jsonl', keep: () => true, map: { entailment: 'supports', contradiction: 'refutes', neutral: 'neutral' }, classes: ['supports', 'refutes', 'neutral'] },
    { name: 'FEVER-RTE 1/5', file: 'fever-rte-dev.jsonl', keep: (i) => i % 5 === 0, map: { entailment: 'supports', not_entailment: 'other' }, classes: ['supports', 'other'] },
  ];
  const models = [
    ['current (shipped weights)', STANCE_MODEL, stanceFeatures],
    [BASELINE_NAME, BASELINE_MODEL, baselineFeatures],
  ];
  const res = {};
  console.log('\nNLI pairs, held-out parts (local stance model; accuracy and per-class F1)');
  for (const set of sets) {
    const path = resolve(dir, set.file);
    if (!existsSync(path)) continue;
    const pairs = jsonl(path).filter((_, i) => set.keep(i)).map((r) => ({ premise: detok(r.premise), hypothesis: detok(r.hypothesis), gold: set.map[r.label] })).filter((r) => r.gold);
    for (const [name, model, featurize] of models) {
      const pred = pairs.map((r) => {
        const rel = rankPassages(r.hypothesis, [r.premise], { limit: 1 })[0]?.relevance ?? 0;
        const pr = predictStance(featurize(r.hypothesis, r.premise, rel).x, model);
        if (set.classes.length === 2) return pr.supports >= Math.max(pr.refutes, pr.neutral) ? 'supports' : 'other';
        return pr.supports >= pr.refutes && pr.supports >= pr.neutral ? 'supports' : pr.refutes >= pr.neutral ? 'refutes' : 'neutral';
      });
      const acc = pairs.filter((r, i) => r.gold === pred[i]).length / pairs.length;
      const f1 = {};
      for (const c of set.classes) {
        const tp = pairs.filter((r, i) => r.gold === c && pred[i] === c).length;
        const fp = pairs.filter((r, i) => r.gold !== c && pred[i] === c).length;
        const fn = pairs.filter((r, i) => r.gold === c && pred[i] !== c).length;
        f1[c] = tp ? (2 * tp) / (2 * tp + fp + fn) : 0;
      }
      res[`${set.name} / ${name}`] = { n: pairs.length, accuracy: acc, f1 };
      console.log(`  ${set.name.padEnd(14)} ${String(pairs.length).padStart(5)} pairs  ${name.padEnd(30)} accuracy ${f3(acc)}  F1 ${set.classes.map((c) => `${c} ${f3(f1[c]).trim()}`).join(', ')}`);
    }
  }
  return res;
}
