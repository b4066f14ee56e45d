/**
 * The NLI stance model, run in-process: an ONNX cross-encoder (premise = passage, hypothesis =
 * claim) through onnxruntime-node, its own tokenizer through @huggingface/tokenizers. Both are
 * imported on the first classify() call, so building the classifier costs nothing and commands
 * that never read a claim never load the native runtime.
 */
import { readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { VerityError } from '../../../api/errors.js';
import type { NliClassifier, NliPair, NliScores } from '../nli-port.js';
import { createPairEncoder, type EncodedPair, type PairEncoder } from './encode.js';
import { labelIndex, type LabelIndex } from './labels.js';
import { MODEL_FILES, REQUIRED_FILES, readRecord } from './model-folder.js';

import type { InferenceSession, Tensor } from 'onnxruntime-node';

export interface OnnxNliOptions {
  /** The model folder (config.json, tokenizer.json, tokenizer_config.json, model.onnx). */
  dir: string;
  /** Shown in `name`; defaults to the folder's record or its name. */
  id?: string;
  /** Tokens per pair, special tokens included (default 256, never above the model's limit). */
  maxLength?: number;
  /** Pairs per inference call (default 8). */
  batchSize?: number;
  /** Threads per inference call (default: the runtime's choice, one per core). */
  threads?: number;
  /** The command that installs the model, for messages (default `verity models pull nli`). */
  pullHint?: string;
}

export interface OnnxNliClassifier extends NliClassifier {
  /** Loads the model now (the first classify() does it otherwise); throws what classify would. */
  load(): Promise<void>;
  close(): Promise<void>;
}

interface Loaded {
  session: InferenceSession;
  Tensor: typeof Tensor;
  encoder: PairEncoder;
  labels: LabelIndex;
  inputs: readonly string[];
  output: string;
}

const DEFAULT_MAX_LENGTH = 256;
const DEFAULT_BATCH = 8;

export function createOnnxNliClassifier(o: OnnxNliOptions): OnnxNliClassifier {
  const id = o.id ?? readRecord(o.dir)?.id ?? o.dir.split(/[\\/]/).filter(Boolean).pop() ?? 'nli';
  const hint = o.pullHint ?? 'verity models pull nli';
  const batchSize = Math.max(1, o.batchSize ?? DEFAULT_BATCH);
  let loading: Promise<Loaded> | undefined;

  const load = (): Promise<Loaded> => {
    loading ??= loadModel(o, hint);
    return loading;
  };

  return {
    name: `NLI model (${id})`,
    async load() {
      await load();
    },
    async close() {
      if (!loading) return;
      const m = await loading.catch(() => undefined);
      await m?.session.release();
    },
    async classify(pairs: NliPair[], opts?: { signal?: AbortSignal }): Promise<NliScores[]> {
      const signal = opts?.signal;
      signal?.throwIfAborted();
      if (pairs.length === 0) return [];
      const m = await load();
      const encoded = pairs.map((p) => m.encoder.encode(p));
      // Similar lengths share a batch, so little time goes into padding.
      const order = encoded.map((_, i) => i).sort((x, y) => encoded[x]!.ids.length - encoded[y]!.ids.length);
      const out = new Array<NliScores>(pairs.length);
      for (let start = 0; start < order.length; start += batchSize) {
        signal?.throwIfAborted();
        const idx = order.slice(start, start + batchSize);
        const scores = await runBatch(m, idx.map((i) => encoded[i]!));
        idx.forEach((i, k) => (out[i] = scores[k]!));
      }
      signal?.throwIfAborted();
      return out;
    },
  };
}

function corrupt(file: string, why: string, hint: string): VerityError {
  return new VerityError('UNAVAILABLE', `The NLI model file ${file} cannot be used (${why}); download the model again with \`${hint} --force\``);
}

async function loadModel(o: OnnxNliOptions, hint: string): Promise<Loaded> {
  const dir = o.dir;
  for (const f of REQUIRED_FILES) {
    const path = join(dir, f);
    let size: number;
    try {
      size = statSync(path).size;
    } catch {
      throw new VerityError('UNAVAILABLE', `No NLI model at ${dir} (${f} is missing), and claim.stance is "nli": download it with \`${hint}\`, or set claim.stance back to local`);
    }
    if (size === 0) throw corrupt(path, 'the file is empty', hint);
  }
  // Sizes recorded at download: a truncated file is caught here, before the runtime reads it.
  const record = readRecord(dir);
  for (const [name, want] of Object.entries(record?.files ?? {})) {
    let size = -1;
    try {
      size = statSync(join(dir, name)).size;
    } catch {
      /* reported below */
    }
    if (size !== want.size) throw corrupt(join(dir, name), size < 0 ? 'missing' : `${size} bytes where the download had ${want.size}`, hint);
  }

  const readJson = (name: string, optional = false): Record<string, unknown> => {
    const path = join(dir, name);
    let text: string;
    try {
      text = readFileSync(path, 'utf8');
    } catch (err) {
      if (optional) return {};
      throw corrupt(path, (err as Error).message, hint);
    }
    try {
      const v = JSON.parse(text) as unknown;
      if (!v || typeof v !== 'object' || Array.isArray(v)) throw new Error('not a JSON object');
      return v as Record<string, unknown>;
    } catch (err) {
      throw corrupt(path, `not valid JSON: ${(err as Error).message}`, hint);
    }
  };
  const config = readJson(MODEL_FILES.config);
  const labels = labelIndex(config);
  if (typeof labels === 'string') throw corrupt(join(dir, MODEL_FILES.config), labels, hint);
  const tokJson = readJson(MODEL_FILES.tokenizer);
  const tokConfig = readJson(MODEL_FILES.tokenizerConfig, true);

  const [{ Tokenizer }, ort] = await Promise.all([import('@huggingface/tokenizers'), import('onnxruntime-node')]);
  let encoder: PairEncoder;
  try {
    const tokenizer = new Tokenizer(tokJson, tokConfig);
    encoder = createPairEncoder(tokenizer, maxLengthFor(o.maxLength, config, tokConfig), stringOr(tokConfig.pad_token));
  } catch (err) {
    throw corrupt(join(dir, MODEL_FILES.tokenizer), `the tokenizer cannot be built: ${(err as Error).message}`, hint);
  }

  const onnxPath = join(dir, MODEL_FILES.onnx);
  let session: InferenceSession;
  try {
    session = await ort.InferenceSession.create(onnxPath, {
      executionProviders: ['cpu'],
      graphOptimizationLevel: 'all',
      logSeverityLevel: 3,
      ...(o.threads ? { intraOpNumThreads: o.threads, interOpNumThreads: 1 } : {}),
    });
  } catch (err) {
    // The runtime's message repeats the path; its first line says what failed (protobuf parse…).
    const why = String((err as Error).message ?? err).split('\n')[0]!.replace(onnxPath, 'it').slice(0, 200);
    throw corrupt(onnxPath, why, hint);
  }
  const known = new Set(['input_ids', 'attention_mask', 'token_type_ids']);
  const unknown = session.inputNames.filter((n) => !known.has(n));
  if (unknown.length || !session.inputNames.includes('input_ids')) {
    await session.release();
    throw corrupt(onnxPath, `the graph's inputs are ${session.inputNames.join(', ')}; an NLI cross-encoder takes input_ids, attention_mask and optionally token_type_ids`, hint);
  }
  const output = session.outputNames.includes('logits') ? 'logits' : session.outputNames[0]!;
  return { session, Tensor: ort.Tensor, encoder, labels, inputs: session.inputNames, output };
}

function stringOr(v: unknown): string | undefined {
  if (typeof v === 'string') return v;
  // tokenizer_config.json may spell a token as an AddedToken object.
  if (v && typeof v === 'object' && typeof (v as { content?: unknown }).content === 'string') return (v as { content: string }).content;
  return undefined;
}

/** The requested length, capped by what the model can read (position table, declared maximum). */
function maxLengthFor(requested: number | undefined, config: Record<string, unknown>, tokConfig: Record<string, unknown>): number {
  let max = requested ?? DEFAULT_MAX_LENGTH;
  for (const v of [config.max_position_embeddings, tokConfig.model_max_length]) {
    // Some tokenizer configs say 1e30 for "no limit".
    if (typeof v === 'number' && Number.isFinite(v) && v > 0 && v < 1e6) max = Math.min(max, v);
  }
  return max;
}

async function runBatch(m: Loaded, batch: EncodedPair[]): Promise<NliScores[]> {
  const rows = batch.length;
  const cols = Math.max(...batch.map((e) => e.ids.length));
  const ids = new BigInt64Array(rows * cols).fill(BigInt(m.encoder.padId));
  const mask = new BigInt64Array(rows * cols);
  const types = new BigInt64Array(rows * cols);
  batch.forEach((e, r) => {
    for (let c = 0; c < e.ids.length; c++) {
      ids[r * cols + c] = BigInt(e.ids[c]!);
      mask[r * cols + c] = 1n;
      types[r * cols + c] = BigInt(e.typeIds[c] ?? 0);
    }
  });
  const data: Record<string, BigInt64Array> = { input_ids: ids, attention_mask: mask, token_type_ids: types };
  const feeds: Record<string, Tensor> = {};
  for (const name of m.inputs) feeds[name] = new m.Tensor('int64', data[name]!, [rows, cols]);
  const result = await m.session.run(feeds);
  const logits = result[m.output];
  if (!logits || logits.dims.length !== 2 || logits.dims[0] !== rows || Number(logits.dims[1]) < m.labels.count)
    throw new VerityError('UNAVAILABLE', `The NLI model gave ${logits ? `logits of shape [${logits.dims.join(', ')}]` : 'no logits'}; expected [${rows}, ${m.labels.count}]`);
  const values = logits.data as Float32Array;
  const width = Number(logits.dims[1]);
  const out: NliScores[] = [];
  for (let r = 0; r < rows; r++) {
    const at = (i: number): number => values[r * width + i]!;
    const e = at(m.labels.entailment);
    const n = at(m.labels.neutral);
    const c = at(m.labels.contradiction);
    // Softmax over the three NLI labels (shifted by the maximum for stability).
    const top = Math.max(e, n, c);
    const [pe, pn, pc] = [Math.exp(e - top), Math.exp(n - top), Math.exp(c - top)];
    const sum = pe + pn + pc;
    out.push({ entailment: pe / sum, neutral: pn / sum, contradiction: pc / sum });
  }
  return out;
}
