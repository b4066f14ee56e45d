/**
 * A transformer encoder of a chosen size with random weights, as an ONNX graph, for measuring
 * what an NLI cross-encoder of that size costs per passage (bench/nli.mjs). BERT-style
 * self-attention (DeBERTa's disentangled attention adds two relative-position score products per
 * layer, so a DeBERTa of the same dimensions costs somewhat more), post-layer-norm, erf GELU,
 * classification from the first token. The answers are meaningless; the arithmetic is real.
 */
import { encodeModel, FLOAT, i64, INT64, type GraphSpec, type Node } from './onnx-writer.js';

export interface EncoderDims {
  vocab: number;
  hidden: number;
  layers: number;
  heads: number;
  intermediate: number;
  maxPositions: number;
  labels: number;
}

/** DeBERTa-v3-xsmall's dimensions (vocabulary shrunk: it changes the file size, not the cost). */
export const XSMALL: EncoderDims = { vocab: 8000, hidden: 384, layers: 12, heads: 6, intermediate: 1536, maxPositions: 512, labels: 3 };

export function randomEncoderGraph(d: EncoderDims, seed = 1): Uint8Array {
  let s = seed >>> 0 || 1;
  // xorshift32: fast, deterministic; weights ~ U(-0.05, 0.05) keep activations finite.
  const rand = (n: number, scale = 0.05): Float32Array => {
    const a = new Float32Array(n);
    for (let i = 0; i < n; i++) {
      s ^= s << 13;
      s ^= s >>> 17;
      s ^= s << 5;
      a[i] = ((s >>> 0) / 4294967296 - 0.5) * 2 * scale;
    }
    return a;
  };
  const H = d.hidden;
  const dh = H / d.heads;
  const nodes: Node[] = [];
  const inits: GraphSpec['initializers'] = [];
  const w = (name: string, dims: number[], data?: Float32Array | BigInt64Array) => {
    inits.push({ name, dims, data: data ?? rand(dims.reduce((a, b) => a * b, 1)) });
    return name;
  };
  const ones = (n: number) => new Float32Array(n).fill(1);
  let k = 0;
  const op = (type: string, inputs: string[], attrs?: Node['attrs']): string => {
    const out = `t${k++}`;
    nodes.push({ op: type, inputs, outputs: [out], ...(attrs ? { attrs } : {}) });
    return out;
  };
  const linear = (x: string, name: string, inDim: number, outDim: number) =>
    op('Add', [op('MatMul', [x, w(`${name}.w`, [inDim, outDim])]), w(`${name}.b`, [outDim], new Float32Array(outDim))]);
  const norm = (x: string, name: string) =>
    op('LayerNormalization', [x, w(`${name}.g`, [H], ones(H)), w(`${name}.b`, [H], new Float32Array(H))], { axis: -1, epsilon: { float: 1e-7 } });

  inits.push({ name: 'split_heads', dims: [4], data: i64([0, 0, d.heads, dh]) });
  inits.push({ name: 'merge_heads', dims: [3], data: i64([0, 0, H]) });
  inits.push({ name: 'axes_12', dims: [2], data: i64([1, 2]) });
  inits.push({ name: 'zero_i', dims: [], data: i64([0]) });
  w('one', [], new Float32Array([1]));
  w('neg_big', [], new Float32Array([-10000]));
  w('scale', [], new Float32Array([1 / Math.sqrt(dh)]));
  w('half', [], new Float32Array([0.5]));
  w('inv_sqrt2', [], new Float32Array([Math.SQRT1_2]));

  // Embeddings: words + positions (positions 0..L-1 taken from the id tensor's shape).
  const words = op('Gather', [w('word_emb', [d.vocab, H]), 'input_ids']);
  const len = op('Gather', [op('Shape', ['input_ids']), w('one_i', [], i64([1]))]);
  const positions = op('Range', ['zero_i', len, w('step_i', [], i64([1]))]);
  const pos = op('Gather', [w('pos_emb', [d.maxPositions, H]), positions]);
  let x = norm(op('Add', [words, pos]), 'emb.ln');

  // Additive mask: 0 where attended, -10000 on padding; [B, 1, 1, L].
  const maskF = op('Cast', ['attention_mask'], { to: FLOAT });
  const bias = op('Unsqueeze', [op('Mul', [op('Sub', ['one', maskF]), 'neg_big']), 'axes_12']);

  for (let l = 0; l < d.layers; l++) {
    const p = `l${l}`;
    const heads = (t: string, perm: number[]) => op('Transpose', [op('Reshape', [t, 'split_heads'])], { perm });
    const q = heads(linear(x, `${p}.q`, H, H), [0, 2, 1, 3]);
    const kT = heads(linear(x, `${p}.k`, H, H), [0, 2, 3, 1]);
    const v = heads(linear(x, `${p}.v`, H, H), [0, 2, 1, 3]);
    const scores = op('Add', [op('Mul', [op('MatMul', [q, kT]), 'scale']), bias]);
    const ctx = op('MatMul', [op('Softmax', [scores], { axis: -1 }), v]);
    const merged = op('Reshape', [op('Transpose', [ctx], { perm: [0, 2, 1, 3] }), 'merge_heads']);
    x = norm(op('Add', [x, linear(merged, `${p}.o`, H, H)]), `${p}.ln1`);
    const up = linear(x, `${p}.ff1`, H, d.intermediate);
    const gelu = op('Mul', [op('Mul', [up, 'half']), op('Add', ['one', op('Erf', [op('Mul', [up, 'inv_sqrt2'])])])]);
    x = norm(op('Add', [x, linear(gelu, `${p}.ff2`, d.intermediate, H)]), `${p}.ln2`);
  }
  const cls = op('Gather', [x, 'zero_i'], { axis: 1 });
  const pooled = op('Tanh', [linear(cls, 'pool', H, H)]);
  const logits = linear(pooled, 'cls', H, d.labels);
  nodes.push({ op: 'Identity', inputs: [logits], outputs: ['logits'] });

  return encodeModel({
    inputs: [
      { name: 'input_ids', type: INT64, shape: ['batch', 'sequence'] },
      { name: 'attention_mask', type: INT64, shape: ['batch', 'sequence'] },
    ],
    outputs: [{ name: 'logits', type: FLOAT, shape: ['batch', d.labels] }],
    nodes,
    initializers: inits,
  });
}
