#!/usr/bin/env node
/**
 * Offline evaluation of the claim engine's stance and verdict stages on AVeriTeC dev
 * (../shared/fixtures/claims/averitec-dev.json, 500 fact-checked claims, CC BY-NC 4.0).
 * Each claim's question/answer pairs play the part of retrieved evidence from the `local` corpus
 * (authority from the answer's source domain, as in live mode); labels map to verdicts
 * Supported→true, Refuted→false, Not Enough Evidence→unverifiable, Conflicting…→conflicting.
 *
 *   node scripts/eval-claims.mjs           evaluate the shipped weights (dist/ must be built)
 *   node scripts/eval-claims.mjs --fit     5-fold cross-validated fit (folds by claim, seeded
 *                                          shuffle), report held-out figures for the first
 *                                          model's method and the current one, then fit on all
 *                                          500 and rewrite src/engine/claim/stance-weights.ts
 *                                          (rebuild after)
 * Options: --data PATH (default ../shared/fixtures/claims/averitec-dev.json), --json,
 *          --seed N (fold shuffle, default 7), --alpha A (class rebalancing of the verdict
 *          model, 0 = natural prior, 1 = balanced; default 0.5), --prior fitted|uniform
 *
 * Two stages are fitted, both multinomial logistic regression by full-batch gradient descent:
 *   1. the stance model, per answer, on weak labels (the claim's label; "No answer could be found"
 *      → neutral; conflicting claims left out), L2 toward the hand-set prior (stance-prior.ts);
 *   2. the verdict model, per claim, on set-level summaries of stage 1's stances (verdict-model.ts),
 *      L2 toward zero, class weights (N / (K n_c))^alpha.
 */
import { createHash } from 'node:crypto';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const args = process.argv.slice(2);
const opt = (name) => {
  const i = args.indexOf(name);
  return i >= 0 ? args[i + 1] : undefined;
};
const fixturesDir = process.env.VERITY_FIXTURES ?? resolve(root, '..', 'shared', 'fixtures');
const dataPath = resolve(opt('--data') ?? resolve(fixturesDir, 'claims', 'averitec-dev.json'));
if (!existsSync(dataPath)) {
  console.error(`eval-claims: dataset not found at ${dataPath} (the shared fixtures live beside the repo)`);
  process.exit(2);
}
const dist = (p) => new URL(`../dist/${p}`, import.meta.url).href;
if (!existsSync(resolve(root, 'dist/engine/claim/assess.js'))) {
  console.error('eval-claims: dist/ is not built; run `npx tsc -p tsconfig.build.json` (or npm run build) first');
  process.exit(2);
}
const { scoreHits, conclude, claimVerdictFeatures } = await import(dist('engine/claim/assess.js'));
const { FEATURES, STANCES } = await import(dist('engine/claim/stance.js'));
const { VERDICT_FEATURES, VERDICTS: MODEL_VERDICTS } = await import(dist('engine/claim/verdict-model.js'));
const { VERDICT_THRESHOLDS, WEIGHTS_PROVENANCE } = await import(dist('engine/claim/stance-weights.js'));
const { STANCE_PRIOR } = await import(dist('engine/claim/stance-prior.js'));
const L2 = Number(opt('--l2') ?? 0.1);
const L2_VERDICT = Number(opt('--l2-verdict') ?? 0.01);
const SEED = Number(opt('--seed') ?? 7);
const ALPHA = Number(opt('--alpha') ?? 0.5);
const PRIOR = opt('--prior') ?? 'fitted';
/** The first model's 15 features: refitting with only these reproduces it under the same folds. */
const V1_FEATURES = STANCE_PRIOR.features.slice(0, 15);

const LABELS = { Supported: 'true', Refuted: 'false', 'Not Enough Evidence': 'unverifiable', 'Conflicting Evidence/Cherrypicking': 'conflicting' };
const VERDICTS = ['true', 'false', 'unverifiable', 'conflicting'];
const data = JSON.parse(readFileSync(dataPath, 'utf8'));

/** The answers as retrieved items: question + answer (+ the explanation of a yes/no answer). */
function hitsOf(claim) {
  const hits = [];
  for (const q of claim.questions ?? []) {
    for (const a of q.answers ?? []) {
      const parts = [q.question.trim().replace(/\?*$/, '?'), a.answer.trim()];
      if (a.answer_type === 'Boolean' && a.boolean_explanation) parts.push(a.boolean_explanation.trim());
      hits.push({
        source: 'local',
        url: a.source_url ?? '',
        title: q.question,
        // One sentence-ish block: passage selection should not split the answer from its question.
        text: parts.join(' ').replace(/\s+/g, ' '),
        published_at: null,
        publisher: null,
        declared_authority: null,
      });
    }
  }
  return hits;
}

const claims = data.map((c, i) => ({ i, claim: c.claim, gold: LABELS[c.label], hits: hitsOf(c) }));
const NOW = new Date('2021-01-01T00:00:00Z');

/** Verdicts through the engine's own code path (assess.ts): passages, stances, aggregation, verdict. */
function predict(items, { stance, thresholds, verdictModel, prior } = {}) {
  return items.map((c) => {
    const scored = scoreHits(c.claim, c.hits, stance);
    return conclude(scored, { now: NOW, retrievedAt: NOW.toISOString(), maxEvidence: 20, claim: c.claim, thresholds, verdictModel, prior }).verdict;
  });
}

/** mulberry32: a small seeded PRNG, so the folds are the same on every run and machine. */
function rng(seed) {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}
function foldsOf(n, k, seed) {
  const order = Array.from({ length: n }, (_, i) => i);
  const r = rng(seed);
  for (let i = n - 1; i > 0; i--) {
    const j = Math.floor(r() * (i + 1));
    [order[i], order[j]] = [order[j], order[i]];
  }
  const fold = new Array(n);
  order.forEach((idx, pos) => (fold[idx] = pos % k));
  return fold;
}

function metrics(gold, pred) {
  const cm = Object.fromEntries(VERDICTS.map((g) => [g, Object.fromEntries(VERDICTS.map((p) => [p, 0]))]));
  gold.forEach((g, i) => cm[g][pred[i]]++);
  const per = {};
  for (const v of VERDICTS) {
    const tp = cm[v][v];
    const fp = VERDICTS.reduce((a, g) => a + (g !== v ? cm[g][v] : 0), 0);
    const fn = VERDICTS.reduce((a, p) => a + (p !== v ? cm[v][p] : 0), 0);
    const P = tp + fp ? tp / (tp + fp) : 0;
    const R = tp + fn ? tp / (tp + fn) : 0;
    per[v] = { precision: P, recall: R, f1: P + R ? (2 * P * R) / (P + R) : 0, support: tp + fn };
  }
  const accuracy = gold.filter((g, i) => g === pred[i]).length / gold.length;
  const macroF1 = VERDICTS.reduce((a, v) => a + per[v].f1, 0) / VERDICTS.length;
  return { accuracy, macroF1, per, cm };
}

// ---- fitting
/** Per-answer stance examples: features of every answer, its claim's label as a weak label. */
function stanceExamples(items, features) {
  const xs = [];
  const ys = [];
  for (const c of items) {
    const target = { true: 'supports', false: 'refutes', unverifiable: 'neutral' }[c.gold];
    if (!target) continue; // conflicting claims have answers on both sides: no per-answer label
    const scored = scoreHits(c.claim, c.hits);
    for (const s of scored) {
      const x = s.stance.features;
      xs.push(features.map((f) => x[f]));
      ys.push(STANCES.indexOf(/no answer could be found/i.test(s.hit.text) ? 'neutral' : target));
    }
  }
  return { xs, ys };
}

/**
 * Multinomial logistic regression, MAP with a Gaussian prior centred on W0 (the bias column is
 * not penalized), class weights cw; full-batch gradient descent.
 */
function fitSoftmax({ xs, ys }, { K, F, W0, cw, l2, iters = 1500, lr = 0.5 }) {
  const W = W0.map((w) => [...w]);
  for (let it = 0; it < iters; it++) {
    const G = Array.from({ length: K }, () => new Array(F).fill(0));
    let wsum = 0;
    for (let n = 0; n < xs.length; n++) {
      const x = xs[n];
      const z = W.map((w) => w.reduce((a, wi, i) => a + wi * x[i], 0));
      const m = Math.max(...z);
      const e = z.map((v) => Math.exp(v - m));
      const s = e.reduce((a, b) => a + b, 0);
      const c = cw[ys[n]];
      wsum += c;
      for (let k = 0; k < K; k++) {
        const g = (e[k] / s - (ys[n] === k ? 1 : 0)) * c;
        for (let i = 0; i < F; i++) G[k][i] += g * x[i];
      }
    }
    for (let k = 0; k < K; k++) for (let i = 0; i < F; i++) W[k][i] -= lr * (G[k][i] / wsum + (i === 0 ? 0 : l2 * (W[k][i] - W0[k][i])));
  }
  return W.map((w) => w.map((v) => Math.round(v * 1000) / 1000));
}
const classWeights = (ys, K, alpha) => {
  const counts = new Array(K).fill(0);
  ys.forEach((y) => counts[y]++);
  return counts.map((n) => (n ? (ys.length / (K * n)) ** alpha : 0));
};

/** Stage 1. `features` is FEATURES (current model) or V1_FEATURES (the first model, for "before"). */
function fitStance(items, features = FEATURES) {
  const ex = stanceExamples(items, features);
  const W0 = STANCES.map((c) => features.map((f) => STANCE_PRIOR.weights[STANCE_PRIOR.classes.indexOf(c)][STANCE_PRIOR.features.indexOf(f)] ?? 0));
  // Balanced class weights: the answers' weak labels are 2:1 refutes, and neutral is rare.
  const W = fitSoftmax(ex, { K: STANCES.length, F: features.length, W0, cw: classWeights(ex.ys, STANCES.length, 1), l2: L2 });
  return { features: [...features], classes: [...STANCES], weights: W };
}

/** Stage 2: the verdict model on the training claims' stance summaries. */
function fitVerdict(items, stance, alpha = ALPHA) {
  const xs = [];
  const ys = [];
  for (const c of items) {
    const scored = scoreHits(c.claim, c.hits, stance);
    const r = conclude(scored, { now: NOW, retrievedAt: NOW.toISOString(), maxEvidence: 20, thresholds: VERDICT_THRESHOLDS });
    const f = claimVerdictFeatures(c.claim, scored, r.support, r.refute);
    xs.push(VERDICT_FEATURES.map((k) => f[k]));
    ys.push(MODEL_VERDICTS.indexOf(c.gold));
  }
  const K = MODEL_VERDICTS.length;
  const F = VERDICT_FEATURES.length;
  const cw = classWeights(ys, K, alpha);
  const W = fitSoftmax({ xs, ys }, { K, F, W0: Array.from({ length: K }, () => new Array(F).fill(0)), cw, l2: L2_VERDICT, iters: 3000, lr: 1 });
  // The prior the bias terms now encode: training frequencies times class weights.
  const counts = new Array(K).fill(0);
  ys.forEach((y) => counts[y]++);
  const eff = counts.map((n, k) => n * cw[k]);
  const tot = eff.reduce((a, b) => a + b, 0);
  return { features: [...VERDICT_FEATURES], classes: [...MODEL_VERDICTS], weights: W, prior: eff.map((e) => Math.round((e / tot) * 1e4) / 1e4) };
}

/** The first model's verdict stage: thresholds on S and R by grid search (macro-F1, then accuracy). */
function tuneThresholds(items, stance) {
  const sr = items.map((c) => {
    const r = conclude(scoreHits(c.claim, c.hits, stance), { now: NOW, retrievedAt: NOW.toISOString(), maxEvidence: 20, thresholds: VERDICT_THRESHOLDS });
    return [r.support, r.refute];
  });
  const gold = items.map((c) => c.gold);
  let best = { score: -1, t: VERDICT_THRESHOLDS };
  const grid = (a, b, s) => Array.from({ length: Math.round((b - a) / s) + 1 }, (_, i) => Math.round((a + i * s) * 1000) / 1000);
  for (const minEvidence of grid(0.05, 0.6, 0.025))
    for (const conflictFloor of grid(0.1, 0.9, 0.05))
      for (const conflictRatio of grid(0.5, 1.0, 0.05)) {
        const t = { minEvidence, conflictFloor, conflictRatio };
        const m = metrics(gold, sr.map(([S, R]) => decide(S, R, t)));
        const score = m.macroF1 + 0.25 * m.accuracy;
        if (score > best.score) best = { score, t };
      }
  return best.t;
}
function decide(S, R, t) {
  const hi = Math.max(S, R);
  const lo = Math.min(S, R);
  if (hi < t.minEvidence) return 'unverifiable';
  if (lo >= t.conflictFloor && lo >= t.conflictRatio * hi) return 'conflicting';
  return S >= R ? 'true' : 'false';
}

// ---- reporting
const pct = (x) => (100 * x).toFixed(1).padStart(5);
function report(title, gold, pred) {
  const m = metrics(gold, pred);
  console.log(`\n${title}`);
  console.log(`  accuracy ${pct(m.accuracy)} %   macro-F1 ${m.macroF1.toFixed(3)}`);
  console.log('  class          precision  recall     F1   support');
  for (const v of VERDICTS) {
    const p = m.per[v];
    console.log(`  ${v.padEnd(14)} ${p.precision.toFixed(3).padStart(9)} ${p.recall.toFixed(3).padStart(7)} ${p.f1.toFixed(3).padStart(6)} ${String(p.support).padStart(9)}`);
  }
  console.log('  confusion (rows gold, columns predicted)');
  console.log(`  ${''.padEnd(14)}${VERDICTS.map((v) => v.slice(0, 12).padStart(13)).join('')}`);
  for (const g of VERDICTS) console.log(`  ${g.padEnd(14)}${VERDICTS.map((p) => String(m.cm[g][p]).padStart(13)).join('')}`);
  return m;
}

const gold = claims.map((c) => c.gold);
const counts = Object.fromEntries(VERDICTS.map((v) => [v, gold.filter((g) => g === v).length]));
const majority = VERDICTS.reduce((a, v) => (counts[v] > counts[a] ? v : a), VERDICTS[0]);
console.log(`AVeriTeC dev: ${claims.length} claims (${VERDICTS.map((v) => `${v} ${counts[v]}`).join(', ')}), ${claims.reduce((a, c) => a + c.hits.length, 0)} answers as evidence`);
const base = report(`Majority-class baseline (always "${majority}")`, gold, gold.map(() => majority));

const summary = [];
const summarize = (name, m) => summary.push({ name, accuracy: m.accuracy, macroF1: m.macroF1, f1: VERDICTS.map((v) => m.per[v].f1) });
summarize(`majority class (always "${majority}")`, base);
const dataSha = createHash('sha256').update(readFileSync(dataPath)).digest('hex').slice(0, 16);

function printSummary() {
  console.log('\nSummary (rows as above)');
  console.log(`  ${'method'.padEnd(58)} acc %  macroF1   F1: ${VERDICTS.map((v) => v.slice(0, 6).padStart(6)).join(' ')}`);
  for (const r of summary) console.log(`  ${r.name.padEnd(58)} ${pct(r.accuracy)}  ${r.macroF1.toFixed(3).padStart(7)}       ${r.f1.map((f) => f.toFixed(3).padStart(6)).join(' ')}`);
}

if (args.includes('--fit')) {
  // K-fold cross-validation by claim (seeded shuffle): every claim is predicted by models that
  // never saw it, stance and verdict stages both refitted inside each fold. Then one fit on all.
  const K = 5;
  const folds = foldsOf(claims.length, K, SEED);
  const variants = {
    v1: { name: 'first model refit: 15 features, threshold rules', pred: [] },
    rules: { name: 'v2 stance features, threshold rules', pred: [] },
    a0: { name: 'v2 + verdict model, natural prior (alpha 0)', pred: [] },
    a25: { name: 'v2 + verdict model, alpha 0.25', pred: [] },
    ship: { name: `v2 + verdict model, alpha ${ALPHA} (shipped)`, pred: [] },
    shipUniform: { name: `v2 + verdict model, alpha ${ALPHA}, prior divided out`, pred: [] },
    a1: { name: 'v2 + verdict model, balanced (alpha 1)', pred: [] },
  };
  for (let k = 0; k < K; k++) {
    const train = claims.filter((_, i) => folds[i] !== k);
    const test = claims.filter((_, i) => folds[i] === k);
    const put = (v, preds) => preds.forEach((p, j) => (variants[v].pred[test[j].i] = p));
    const s1 = fitStance(train, V1_FEATURES);
    put('v1', predict(test, { stance: s1, thresholds: tuneThresholds(train, s1) }));
    const s2 = fitStance(train);
    put('rules', predict(test, { stance: s2, thresholds: tuneThresholds(train, s2) }));
    put('a0', predict(test, { stance: s2, verdictModel: fitVerdict(train, s2, 0) }));
    put('a25', predict(test, { stance: s2, verdictModel: fitVerdict(train, s2, 0.25) }));
    const vm = fitVerdict(train, s2, ALPHA);
    put('ship', predict(test, { stance: s2, verdictModel: vm }));
    put('shipUniform', predict(test, { stance: s2, verdictModel: vm, prior: 'uniform' }));
    put('a1', predict(test, { stance: s2, verdictModel: fitVerdict(train, s2, 1) }));
    process.stderr.write(`fold ${k + 1}/${K} done\n`);
  }
  const cv = {};
  for (const [key, v] of Object.entries(variants)) {
    cv[key] = report(`${v.name} — ${K}-fold held out (seed ${SEED})`, gold, v.pred);
    summarize(`${v.name}, held out`, cv[key]);
  }
  const stance = fitStance(claims);
  const verdictModel = fitVerdict(claims, stance, ALPHA);
  const fitted = report('Shipped model fitted on all 500 (in-sample)', gold, predict(claims, { stance, verdictModel }));
  summarize('shipped model, in-sample (all 500)', fitted);
  printSummary();
  const f = (m) => `accuracy ${(m.accuracy * 100).toFixed(1)} %, macro-F1 ${m.macroF1.toFixed(3)}`;
  const date = new Date().toISOString().slice(0, 10);
  const provenance =
    `fitted by scripts/eval-claims.mjs --fit (seed ${SEED}, alpha ${ALPHA}, L2 ${L2}/${L2_VERDICT}) on ${date} on AVeriTeC dev ` +
    `(${claims.length} claims, ${stanceExamples(claims, FEATURES).xs.length} answers; MichSchli/AVeriTeC data/dev.json, commit 7c62d1ec, ` +
    `sha256 ${dataSha}…, CC BY-NC 4.0). Stage 1: balanced multinomial logistic stance model over ${FEATURES.length} features, ` +
    `L2 toward the hand-set prior (stance-prior.ts), 1500 full-batch steps. Stage 2: multinomial logistic verdict model over ` +
    `${VERDICT_FEATURES.length} claim-level features, class weights (N/(K n_c))^${ALPHA}, 3000 steps. ${K}-fold held out: ${f(cv.ship)} ` +
    `(prior divided out: ${f(cv.shipUniform)}); first model under the same folds: ${f(cv.v1)}; in-sample: ${f(fitted)}; ` +
    `majority baseline: ${f(base)}.`;
  const file = resolve(root, 'src/engine/claim/stance-weights.ts');
  writeFileSync(
    file,
    `/**
 * Weights of the local stance model and the verdict model, and the first model's verdict
 * thresholds. GENERATED by \`node scripts/eval-claims.mjs --fit\` (do not edit by hand; re-run).
 *
 * Provenance: ${provenance.replace(/(.{1,96})(\s|$)/g, '$1\n * ').trimEnd()}
 */
import type { StanceModel } from './stance.js';
import type { VerdictModel } from './verdict-model.js';

export const STANCE_MODEL: StanceModel = {
  features: ${JSON.stringify(stance.features)},
  classes: ${JSON.stringify(stance.classes)},
  weights: [
${stance.weights.map((w) => `    ${JSON.stringify(w)},`).join('\n')}
  ],
};

export const VERDICT_MODEL: VerdictModel = {
  features: ${JSON.stringify(verdictModel.features)},
  classes: ${JSON.stringify(verdictModel.classes)},
  weights: [
${verdictModel.weights.map((w) => `    ${JSON.stringify(w)},`).join('\n')}
  ],
  prior: ${JSON.stringify(verdictModel.prior)},
};

/**
 * Threshold rules on the noisy-OR support S and refutation R (aggregate.ts decideVerdict): used
 * only when a caller asks for them (ConcludeOptions.thresholds); the first model's values.
 */
export const VERDICT_THRESHOLDS = ${JSON.stringify(VERDICT_THRESHOLDS)};

export const WEIGHTS_PROVENANCE = ${JSON.stringify(provenance)};
`,
  );
  console.log(`\nwrote ${file}\nrebuild (npx tsc -p tsconfig.build.json) and run without --fit to check`);
} else {
  console.log(`\nweights: ${WEIGHTS_PROVENANCE}`);
  const m = report(`Shipped stance + verdict model (in-sample), prior ${PRIOR}`, gold, predict(claims, { prior: PRIOR }));
  summarize(`shipped model, in-sample, prior ${PRIOR}`, m);
  printSummary();
  console.log('\nheld-out figures: node scripts/eval-claims.mjs --fit (refits; also rewrites the weights)');
  if (args.includes('--json')) console.log(JSON.stringify({ baseline: { accuracy: base.accuracy, macroF1: base.macroF1 }, model: { accuracy: m.accuracy, macroF1: m.macroF1, per: m.per, cm: m.cm } }));
}
