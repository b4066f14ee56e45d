#!/usr/bin/env node
/**
 * Checks a trained fold folder through the engine's own ONNX runner: the reference pairs that
 * train.py scored with PyTorch (validation.json) must get the same probabilities from
 * onnxruntime-node, and a text pair must go through the engine's tokenizer and encoder.
 *
 *   node scripts/train-stance/check-onnx.mjs stance-model/without-averitec
 */
import { readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';

const dir = resolve(process.argv[2] ?? 'stance-model/all');
const { createOnnxNliClassifier } = await import(new URL('../../dist/engine/claim/nli/classifier.js', import.meta.url).href);
const ort = await import('onnxruntime-node');
const v = JSON.parse(readFileSync(join(dir, 'validation.json'), 'utf8'));
const session = await ort.InferenceSession.create(join(dir, 'model.onnx'));
let worst = 0;
for (const r of v.reference) {
  const n = r.ids.length;
  const t = (a) => new ort.Tensor('int64', BigInt64Array.from(a.map(BigInt)), [1, n]);
  const out = await session.run({ input_ids: t(r.ids), attention_mask: t(r.ids.map(() => 1)), token_type_ids: t(r.typeIds) });
  const z = [...out.logits.data];
  const m = Math.max(...z);
  const e = z.map((x) => Math.exp(x - m));
  const s = e.reduce((a, b) => a + b, 0);
  e.forEach((x, i) => (worst = Math.max(worst, Math.abs(x / s - r.probs[i]))));
}
await session.release();
console.log(`ONNX vs PyTorch on ${v.reference.length} reference pairs: largest probability difference ${worst.toExponential(2)}`);
const nli = createOnnxNliClassifier({ dir });
const pairs = [
  { premise: 'The Eiffel Tower is a wrought-iron lattice tower on the Champ de Mars in Paris, France.', hypothesis: 'The Eiffel Tower is in Paris.' },
  { premise: 'The Eiffel Tower is a wrought-iron lattice tower on the Champ de Mars in Paris, France.', hypothesis: 'The Eiffel Tower is in Berlin.' },
  { premise: 'Bananas are rich in potassium.', hypothesis: 'The Eiffel Tower is in Paris.' },
];
const scores = await nli.classify(pairs);
pairs.forEach((p, i) => console.log(`${JSON.stringify(p.hypothesis)}: ${Object.entries(scores[i]).map(([k, x]) => `${k} ${x.toFixed(3)}`).join(', ')}`));
await nli.close();
if (worst > 1e-3) process.exit(1);
