/**
 * A tiny NLI cross-encoder the tests build themselves: a real ONNX graph (token embedding gather
 * → masked mean → linear layer), a WordPiece tokenizer.json with a BERT template, and a
 * config.json whose id2label puts contradiction first (as MNLI cross-encoders do). Its logits
 * depend on the words: "paris" pushes entailment, "london" and "not" push contradiction, any
 * other word neutral, so tests can assert which way a pair goes.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { encodeModel, FLOAT, i64, INT64, type GraphSpec, type Node } from './onnx-writer.js';

const SPECIALS = ['[PAD]', '[UNK]', '[CLS]', '[SEP]'] as const;
const WORDS = ['the', 'tower', 'is', 'in', 'paris', 'london', 'not', 'sky', 'blue', 'tall', 'it', 'stands', 'a', 'city', '##s', '.'];
export const TINY_VOCAB: string[] = [...SPECIALS, ...WORDS];

/** Per token: [entailment, contradiction, neutral] evidence. */
function embedding(token: string): [number, number, number] {
  if (token === 'paris') return [1, 0, 0];
  if (token === 'london' || token === 'not') return [0, 3, 0];
  if (token === '[PAD]' || token === '[CLS]' || token === '[SEP]') return [0, 0, 0];
  return [0, 0, 0.2];
}

export interface TinyModelOptions {
  /** Give the graph a token_type_ids input (BERT-style exports have one; DeBERTa-v3's do not). */
  tokenTypes?: boolean;
  /** config.json's id2label (default: contradiction, entailment, neutral). */
  id2label?: Record<string, string>;
  maxPositions?: number;
}

export const TINY_ID2LABEL = { '0': 'CONTRADICTION', '1': 'ENTAILMENT', '2': 'NEUTRAL' };

/** Output column of each evidence dimension, following id2label. */
function columns(id2label: Record<string, string>): [number, number, number] {
  const find = (name: string) => Number(Object.entries(id2label).find(([, l]) => l.toLowerCase() === name)?.[0] ?? -1);
  return [find('entailment'), find('contradiction'), find('neutral')];
}

export function tinyOnnxGraph(o: TinyModelOptions = {}): Uint8Array {
  const D = 3;
  const V = TINY_VOCAB.length;
  const emb = new Float32Array(V * D);
  TINY_VOCAB.forEach((t, i) => emb.set(embedding(t), i * D));
  const [ce, cc, cn] = columns(o.id2label ?? TINY_ID2LABEL);
  const W = new Float32Array(D * 3);
  // A scale of 10 turns the small mean into clearly separated probabilities.
  W[0 * 3 + ce] = 10;
  W[1 * 3 + cc] = 10;
  W[2 * 3 + cn] = 10;
  const nodes: Node[] = [{ op: 'Gather', inputs: ['embeddings', 'input_ids'], outputs: ['tok'] }];
  let hidden = 'tok';
  const initializers: GraphSpec['initializers'] = [
    { name: 'embeddings', dims: [V, D], data: emb },
    { name: 'W', dims: [D, 3], data: W },
    { name: 'bias', dims: [3], data: new Float32Array([0, 0, 0]) },
    { name: 'axis_last', dims: [1], data: i64([-1]) },
    { name: 'axis_seq', dims: [1], data: i64([1]) },
  ];
  const inputs: GraphSpec['inputs'] = [
    { name: 'input_ids', type: INT64, shape: ['batch', 'sequence'] },
    { name: 'attention_mask', type: INT64, shape: ['batch', 'sequence'] },
  ];
  if (o.tokenTypes) {
    inputs.push({ name: 'token_type_ids', type: INT64, shape: ['batch', 'sequence'] });
    // Segment embeddings of zero: the input is read, the result unchanged.
    initializers.push({ name: 'type_embeddings', dims: [2, D], data: new Float32Array(2 * D) });
    nodes.push({ op: 'Gather', inputs: ['type_embeddings', 'token_type_ids'], outputs: ['typ'] });
    nodes.push({ op: 'Add', inputs: ['tok', 'typ'], outputs: ['tok_typ'] });
    hidden = 'tok_typ';
  }
  nodes.push(
    { op: 'Cast', inputs: ['attention_mask'], outputs: ['mask_f'], attrs: { to: FLOAT } },
    { op: 'Unsqueeze', inputs: ['mask_f', 'axis_last'], outputs: ['mask3'] },
    { op: 'Mul', inputs: [hidden, 'mask3'], outputs: ['masked'] },
    { op: 'ReduceSum', inputs: ['masked', 'axis_seq'], outputs: ['summed'], attrs: { keepdims: 0 } },
    { op: 'ReduceSum', inputs: ['mask3', 'axis_seq'], outputs: ['count'], attrs: { keepdims: 0 } },
    { op: 'Div', inputs: ['summed', 'count'], outputs: ['mean'] },
    { op: 'MatMul', inputs: ['mean', 'W'], outputs: ['mm'] },
    { op: 'Add', inputs: ['mm', 'bias'], outputs: ['logits'] },
  );
  return encodeModel({ inputs, outputs: [{ name: 'logits', type: FLOAT, shape: ['batch', 3] }], nodes, initializers });
}

export function tinyTokenizerJson(): object {
  const special = (content: string, id: number) => ({ id, content, single_word: false, lstrip: false, rstrip: false, normalized: false, special: true });
  const tok = (id: string, type_id: number) => ({ SpecialToken: { id, type_id } });
  const seq = (id: 'A' | 'B', type_id: number) => ({ Sequence: { id, type_id } });
  return {
    version: '1.0',
    truncation: null,
    padding: null,
    added_tokens: SPECIALS.map((s, i) => special(s, i)),
    normalizer: { type: 'BertNormalizer', clean_text: true, handle_chinese_chars: true, strip_accents: null, lowercase: true },
    pre_tokenizer: { type: 'BertPreTokenizer' },
    post_processor: {
      type: 'TemplateProcessing',
      single: [tok('[CLS]', 0), seq('A', 0), tok('[SEP]', 0)],
      pair: [tok('[CLS]', 0), seq('A', 0), tok('[SEP]', 0), seq('B', 1), tok('[SEP]', 1)],
      special_tokens: {
        '[CLS]': { id: '[CLS]', ids: [2], tokens: ['[CLS]'] },
        '[SEP]': { id: '[SEP]', ids: [3], tokens: ['[SEP]'] },
      },
    },
    decoder: { type: 'WordPiece', prefix: '##', cleanup: true },
    model: {
      type: 'WordPiece',
      unk_token: '[UNK]',
      continuing_subword_prefix: '##',
      max_input_chars_per_word: 100,
      vocab: Object.fromEntries(TINY_VOCAB.map((t, i) => [t, i])),
    },
  };
}

/** Writes config.json, tokenizer.json, tokenizer_config.json and model.onnx into `dir`; returns their bytes by name. */
export function writeTinyNliModel(dir: string, o: TinyModelOptions = {}): Record<string, Buffer> {
  mkdirSync(dir, { recursive: true });
  const id2label = o.id2label ?? TINY_ID2LABEL;
  const files: Record<string, Buffer> = {
    'config.json': Buffer.from(
      JSON.stringify({
        architectures: ['TinyNliForSequenceClassification'],
        model_type: 'bert',
        id2label,
        label2id: Object.fromEntries(Object.entries(id2label).map(([k, v]) => [v, Number(k)])),
        max_position_embeddings: o.maxPositions ?? 512,
      }),
    ),
    'tokenizer.json': Buffer.from(JSON.stringify(tinyTokenizerJson())),
    'tokenizer_config.json': Buffer.from(
      JSON.stringify({ do_lower_case: true, model_max_length: 512, pad_token: '[PAD]', cls_token: '[CLS]', sep_token: '[SEP]', unk_token: '[UNK]' }),
    ),
    'model.onnx': Buffer.from(tinyOnnxGraph(o)),
  };
  for (const [name, bytes] of Object.entries(files)) writeFileSync(join(dir, name), bytes);
  return files;
}
