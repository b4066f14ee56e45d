#!/usr/bin/env node
/**
 * Offline evaluation of the claim engine's stance and verdict stages on AVeriTeC dev
 * (../shared/fixtures/claims/averitec-dev.json, 500 fact-checked claims, CC BY-NC 4.0).
 * Each claim's question/answer pairs play the part of retrieved evidence from the `local` corpus
 * (authority from the answer's source domain, as in live mode); labels map to verdicts
 * Supported→true, Refuted→false, Not Enough Evidence→unverifiable, Conflicting…→conflicting.
 *
 *   node scripts/eval-claims.mjs           evaluate the shipped weights (dist/ must be built)
 *   node scripts/eval-claims.mjs --fit     5-fold cross-validated fit, report held-out figures,
 *                                          then fit on all 500 and rewrite
 *                                          src/engine/claim/stance-weights.ts (rebuild after)
 * Options: --data PATH (default ../shared/fixtures/claims/averitec-dev.json), --json
 */
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
const { scoreHits, conclude } = await import(dist('engine/claim/assess.js'));
const { stanceFeatures, FEATURES, STANCES } = await import(dist('engine/claim/stance.js'));
const { STANCE_MODEL, VERDICT_THRESHOLDS, WEIGHTS_PROVENANCE } = await import(dist('engine/claim/stance-weights.js'));
const { STANCE_PRIOR } = await import(dist('engine/claim/stance-prior.js'));
const L2 = Number(opt('--l2') ?? 0.1);

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

function predict(items, model, thresholds) {
  return items.map((c) => {
    const scored = scoreHits(c.claim, c.hits, model);
    return conclude(scored, { now: NOW, retrievedAt: NOW.toISOString(), maxEvidence: 20, thresholds }).verdict;
  });
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

// ---- fitting: multinomial logistic regression on per-answer features, claim label as weak label
function examplesOf(items) {
  const xs = [];
  const ys = [];
  for (const c of items) {
    const target = { true: 'supports', false: 'refutes', unverifiable: 'neutral' }[c.gold];
    if (!target) continue; // conflicting claims have answers on both sides: no per-answer label
    const scored = scoreHits(c.claim, c.hits);
    for (const s of scored) {
      const { x } = stanceFeatures(c.claim, s.passage, s.relevance);
      xs.push(FEATURES.map((f) => x[f]));
      ys.push(STANCES.indexOf(/no answer could be found/i.test(s.hit.text) ? 'neutral' : target));
    }
  }
  return { xs, ys };
}

function fitLogistic({ xs, ys }, { l2 = L2, iters = 1500, lr = 0.5 } = {}) {
  const K = STANCES.length;
  const F = FEATURES.length;
  // MAP estimate with a Gaussian prior centred on the hand-set weights (stance-prior.ts).
  const W0 = STANCES.map((c) => FEATURES.map((f) => STANCE_PRIOR.weights[STANCE_PRIOR.classes.indexOf(c)][STANCE_PRIOR.features.indexOf(f)] ?? 0));
  const W = W0.map((w) => [...w]);
  // Balanced class weights: macro-F1 is the goal, not agreeing with the majority class.
  const counts = new Array(K).fill(0);
  ys.forEach((y) => counts[y]++);
  const cw = counts.map((n) => (n ? ys.length / (K * n) : 0));
  for (let it = 0; it < iters; it++) {
    const G = Array.from({ length: K }, () => new Array(F).fill(0));
    for (let n = 0; n < xs.length; n++) {
      const x = xs[n];
      const z = W.map((w) => w.reduce((a, wi, i) => a + wi * x[i], 0));
      const m = Math.max(...z);
      const e = z.map((v) => Math.exp(v - m));
      const s = e.reduce((a, b) => a + b, 0);
      for (let k = 0; k < K; k++) {
        const g = (e[k] / s - (ys[n] === k ? 1 : 0)) * cw[ys[n]];
        for (let i = 0; i < F; i++) G[k][i] += g * x[i];
      }
    }
    for (let k = 0; k < K; k++) for (let i = 0; i < F; i++) W[k][i] -= lr * (G[k][i] / xs.length + l2 * (W[k][i] - W0[k][i]));
  }
  return { features: [...FEATURES], classes: [...STANCES], weights: W.map((w) => w.map((v) => Math.round(v * 1000) / 1000)) };
}

function tuneThresholds(items, model) {
  // Precompute S and R per claim once; thresholds only change the decision.
  const sr = items.map((c) => {
    const r = conclude(scoreHits(c.claim, c.hits, model), { now: NOW, retrievedAt: NOW.toISOString(), maxEvidence: 20 });
    return [r.support, r.refute];
  });
  const gold = items.map((c) => c.gold);
  let best = { score: -1, t: VERDICT_THRESHOLDS };
  const grid = (a, b, s) => Array.from({ length: Math.round((b - a) / s) + 1 }, (_, i) => Math.round((a + i * s) * 1000) / 1000);
  for (const minEvidence of grid(0.05, 0.6, 0.025))
    for (const conflictFloor of grid(0.1, 0.9, 0.05))
      for (const conflictRatio of grid(0.5, 1.0, 0.05)) {
        const t = { minEvidence, conflictFloor, conflictRatio };
        const pred = sr.map(([S, R]) => decide(S, R, t));
        const m = metrics(gold, pred);
        const score = m.macroF1 + 0.25 * m.accuracy; // macro-F1 first; accuracy breaks ties
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

if (args.includes('--fit')) {
  // 5-fold cross-validation: held-out predictions for every claim, then one final fit on all.
  const K = 5;
  const folds = claims.map((c) => c.i % K);
  const cvPred = new Array(claims.length);
  for (let k = 0; k < K; k++) {
    const train = claims.filter((_, i) => folds[i] !== k);
    const test = claims.filter((_, i) => folds[i] === k);
    const model = fitLogistic(examplesOf(train));
    const t = tuneThresholds(train, model);
    predict(test, model, t).forEach((p, j) => (cvPred[test[j].i] = p));
    process.stderr.write(`fold ${k + 1}/${K} done\n`);
  }
  const cv = report('Local stance model, 5-fold cross-validated (held-out predictions)', gold, cvPred);
  const model = fitLogistic(examplesOf(claims));
  const t = tuneThresholds(claims, model);
  const fitted = report('Local stance model, fitted on all 500 (in-sample)', gold, predict(claims, model, t));
  const provenance = `fitted by scripts/eval-claims.mjs --fit on AVeriTeC dev (${claims.length} claims, ${examplesOf(claims).xs.length} answers; MichSchli/AVeriTeC data/dev.json, commit 7c62d1ec, CC BY-NC 4.0): balanced multinomial logistic regression, L2 ${L2} toward the hand-set prior (stance-prior.ts), 1500 full-batch steps; thresholds by grid search on macro-F1. 5-fold CV accuracy ${(cv.accuracy * 100).toFixed(1)} %, macro-F1 ${cv.macroF1.toFixed(3)}; in-sample accuracy ${(fitted.accuracy * 100).toFixed(1)} %, macro-F1 ${fitted.macroF1.toFixed(3)}; majority baseline accuracy ${(base.accuracy * 100).toFixed(1)} %, macro-F1 ${base.macroF1.toFixed(3)}.`;
  const file = resolve(root, 'src/engine/claim/stance-weights.ts');
  writeFileSync(
    file,
    `/**
 * Weights of the local stance model and the verdict thresholds. GENERATED by
 * \`node scripts/eval-claims.mjs --fit\` (do not edit by hand; re-run the script).
 *
 * Provenance: ${provenance.replace(/(.{1,96})(\s|$)/g, '$1\n * ').trimEnd()}
 */
import type { StanceModel } from './stance.js';

export const STANCE_MODEL: StanceModel = {
  features: ${JSON.stringify(model.features)},
  classes: ${JSON.stringify(model.classes)},
  weights: [
${model.weights.map((w) => `    ${JSON.stringify(w)},`).join('\n')}
  ],
};

/** Verdict thresholds on the noisy-OR support S and refutation R (see aggregate.ts). */
export const VERDICT_THRESHOLDS = ${JSON.stringify(t)};

export const WEIGHTS_PROVENANCE = ${JSON.stringify(provenance)};
`,
  );
  console.log(`\nwrote ${file}\nrebuild (npx tsc -p tsconfig.build.json) and run without --fit to check`);
} else {
  console.log(`\nweights: ${WEIGHTS_PROVENANCE}`);
  const pred = predict(claims, undefined, undefined);
  const m = report('Local stance model + verdict rules (shipped weights)', gold, pred);
  if (args.includes('--json')) console.log(JSON.stringify({ baseline: { accuracy: base.accuracy, macroF1: base.macroF1 }, model: { accuracy: m.accuracy, macroF1: m.macroF1, per: m.per, cm: m.cm } }));
}
