#!/usr/bin/env node
/**
 * How a fold's model reads its held-out domain's gold sentences, retrieval left aside: the AUC of
 * P(entailment) − P(contradiction) between the gold sentences of true claims and those of false
 * claims (0.5 = cannot tell them apart), through onnxruntime-node on the ids prep.mjs wrote with the
 * engine's encoder.
 *
 *   node scripts/train-stance/gold-pairs.mjs stance-model/without-averitec …
 */
import { readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';

const ort = await import('onnxruntime-node');
for (const arg of process.argv.slice(2)) {
  const dir = resolve(arg);
  const rows = readFileSync(join(dir, 'heldout-domain.jsonl'), 'utf8').split('\n').filter(Boolean).map((l) => JSON.parse(l)).filter((r) => r.label === 0 || r.label === 2);
  const session = await ort.InferenceSession.create(join(dir, 'model.onnx'));
  const score = new Float64Array(rows.length);
  const order = rows.map((_, i) => i).sort((a, b) => rows[a].ids.length - rows[b].ids.length);
  for (let s = 0; s < order.length; s += 64) {
    const idx = order.slice(s, s + 64);
    const cols = Math.max(...idx.map((i) => rows[i].ids.length));
    const ids = new BigInt64Array(idx.length * cols);
    const mask = new BigInt64Array(idx.length * cols);
    const types = new BigInt64Array(idx.length * cols);
    idx.forEach((i, r) => rows[i].ids.forEach((id, c) => ((ids[r * cols + c] = BigInt(id)), (mask[r * cols + c] = 1n), (types[r * cols + c] = BigInt(rows[i].typeIds[c])))));
    const t = (a) => new ort.Tensor('int64', a, [idx.length, cols]);
    const z = (await session.run({ input_ids: t(ids), attention_mask: t(mask), token_type_ids: t(types) })).logits.data;
    idx.forEach((i, r) => {
      const [e, n, c] = [z[r * 3], z[r * 3 + 1], z[r * 3 + 2]];
      const m = Math.max(e, n, c);
      const sum = Math.exp(e - m) + Math.exp(n - m) + Math.exp(c - m);
      score[i] = (Math.exp(e - m) - Math.exp(c - m)) / sum;
    });
  }
  await session.release();
  const pos = rows.map((r, i) => (r.label === 0 ? score[i] : null)).filter((v) => v !== null);
  const neg = rows.map((r, i) => (r.label === 2 ? score[i] : null)).filter((v) => v !== null);
  let wins = 0;
  for (const p of pos) for (const q of neg) wins += p > q ? 1 : p === q ? 0.5 : 0;
  console.log(`${arg}: gold sentences of true claims ${pos.length}, of false claims ${neg.length}; AUC of P(entailment) − P(contradiction) ${(wins / (pos.length * neg.length)).toFixed(3)}`);
}
