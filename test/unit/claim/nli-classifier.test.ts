/**
 * The NLI classifier's real loading and inference code (onnxruntime-node, @huggingface/tokenizers)
 * against a tiny ONNX model the test writes itself (test/helpers/tiny-nli-model.ts).
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Tokenizer } from '@huggingface/tokenizers';
import { afterAll, describe, expect, it } from 'vitest';
import { VerityError } from '../../../src/api/errors.js';
import { createOnnxNliClassifier } from '../../../src/engine/claim/nli/classifier.js';
import { configuredNliClassifier } from '../../../src/engine/claim/nli/configured.js';
import { createPairEncoder } from '../../../src/engine/claim/nli/encode.js';
import { labelIndex } from '../../../src/engine/claim/nli/labels.js';
import { nliModelDir } from '../../../src/engine/claim/nli/manifest.js';
import { RECORD_FILE } from '../../../src/engine/claim/nli/model-folder.js';
import type { NliScores } from '../../../src/engine/claim/nli-port.js';
import { encodeModel, FLOAT, INT64 } from '../../helpers/onnx-writer.js';
import { TINY_VOCAB, tinyTokenizerJson, writeTinyNliModel, type TinyModelOptions } from '../../helpers/tiny-nli-model.js';

const dirs: string[] = [];
afterAll(() => {
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});
function modelDir(o: TinyModelOptions = {}): string {
  const d = mkdtempSync(join(tmpdir(), 'verity-nli-'));
  dirs.push(d);
  writeTinyNliModel(d, o);
  return d;
}

const SUPPORTED = { premise: 'The tower is in Paris.', hypothesis: 'The tower is in Paris' };
const REFUTED = { premise: 'The tower is in London.', hypothesis: 'The tower is in Paris' };
const NEGATED = { premise: 'The tower is not in Paris.', hypothesis: 'The tower is in Paris' };
const UNRELATED = { premise: 'The sky is blue.', hypothesis: 'The tower is tall' };

const top = (s: NliScores): keyof NliScores => (Object.entries(s) as Array<[keyof NliScores, number]>).sort((a, b) => b[1] - a[1])[0]![0];

async function errorOf(p: Promise<unknown>): Promise<VerityError> {
  try {
    await p;
  } catch (err) {
    expect(err).toBeInstanceOf(VerityError);
    return err as VerityError;
  }
  throw new Error('expected a failure');
}

describe('NLI classifier on a tiny ONNX model', () => {
  it('reads which way a passage goes: entailment, contradiction, neutral; probabilities sum to 1', async () => {
    const nli = createOnnxNliClassifier({ dir: modelDir(), id: 'tiny' });
    expect(nli.name).toBe('NLI model (tiny)');
    const [sup, ref, neg, unrel] = await nli.classify([SUPPORTED, REFUTED, NEGATED, UNRELATED]);
    expect(sup!.entailment).toBeGreaterThan(sup!.contradiction);
    expect(top(sup!)).toBe('entailment');
    expect(ref!.contradiction).toBeGreaterThan(ref!.entailment);
    expect(top(ref!)).toBe('contradiction');
    expect(top(neg!)).toBe('contradiction');
    expect(top(unrel!)).toBe('neutral');
    for (const s of [sup!, ref!, neg!, unrel!]) expect(s.entailment + s.neutral + s.contradiction).toBeCloseTo(1, 6);
    await nli.close();
  });

  it('takes the label order from config.json id2label, in any order and case', async () => {
    const reordered = createOnnxNliClassifier({ dir: modelDir({ id2label: { '0': 'entailment', '1': 'Neutral', '2': 'CONTRADICTION' } }) });
    const standard = createOnnxNliClassifier({ dir: modelDir() });
    const [a, b] = await Promise.all([reordered.classify([SUPPORTED, REFUTED]), standard.classify([SUPPORTED, REFUTED])]);
    expect(a[0]!.entailment).toBeCloseTo(b[0]!.entailment, 6);
    expect(a[1]!.contradiction).toBeCloseTo(b[1]!.contradiction, 6);
    expect(top(a[0]!)).toBe('entailment');
    await Promise.all([reordered.close(), standard.close()]);
  });

  it('batches (padding masked out): a batch gives what each pair gives alone, in the order given', async () => {
    const dir = modelDir({ tokenTypes: true });
    const batched = createOnnxNliClassifier({ dir, batchSize: 4 });
    const pairs = [
      SUPPORTED,
      { premise: 'It stands in a city. The tower is in Paris, the city.', hypothesis: 'The tower is in Paris' },
      REFUTED,
      UNRELATED,
      NEGATED,
      { premise: 'Paris', hypothesis: 'London' },
      { premise: 'the tower is tall the sky is blue it stands in london', hypothesis: 'the tower is in paris' },
    ];
    const all = await batched.classify(pairs);
    const one = createOnnxNliClassifier({ dir, batchSize: 1 });
    for (let i = 0; i < pairs.length; i++) {
      const [alone] = await one.classify([pairs[i]!]);
      expect(all[i]!.entailment, `pair ${i}`).toBeCloseTo(alone!.entailment, 5);
      expect(all[i]!.contradiction, `pair ${i}`).toBeCloseTo(alone!.contradiction, 5);
    }
    expect(await batched.classify([])).toEqual([]);
    await Promise.all([batched.close(), one.close()]);
  });

  it('bounds the input: a long passage is cut (the passage first) and still classified', async () => {
    const tokenizer = new Tokenizer(tinyTokenizerJson(), {});
    const enc = createPairEncoder(tokenizer, 12, '[PAD]');
    const long = { premise: 'the sky is blue '.repeat(200) + 'the tower is in london', hypothesis: 'the tower is in paris' };
    const e = enc.encode(long);
    expect(e.ids).toHaveLength(12);
    const tokens = e.ids.map((i) => TINY_VOCAB[i]);
    // [CLS] two passage tokens [SEP] the whole claim [SEP]: the passage gives way first.
    expect(tokens[0]).toBe('[CLS]');
    expect(tokens.filter((t) => t === '[SEP]')).toHaveLength(2);
    expect(tokens.at(-1)).toBe('[SEP]');
    expect(tokens).toEqual(['[CLS]', 'the', 'sky', 'is', 'blue', '[SEP]', 'the', 'tower', 'is', 'in', 'paris', '[SEP]']);
    expect(e.typeIds).toEqual([0, 0, 0, 0, 0, 0, 1, 1, 1, 1, 1, 1]);
    // A claim longer than half the room is cut too, never the passage to nothing.
    const both = enc.encode({ premise: long.premise, hypothesis: 'the tower is in paris '.repeat(5) });
    expect(both.ids).toHaveLength(12);
    expect(both.ids.map((i) => TINY_VOCAB[i]).filter((t) => t === 'sky')).toHaveLength(1);
    expect(enc.padId).toBe(0);
    // A megabyte of passage is cut before tokenizing and gives the same pair as a page would.
    const huge = enc.encode({ premise: 'the sky is blue '.repeat(70_000), hypothesis: 'the tower is in paris' });
    expect(huge.ids.map((i) => TINY_VOCAB[i])).toEqual(tokens);
    // The same through the classifier, with the default length and with a model limit of 16.
    const nli = createOnnxNliClassifier({ dir: modelDir({ maxPositions: 16 }) });
    const [s] = await nli.classify([long]);
    expect(s!.entailment + s!.neutral + s!.contradiction).toBeCloseTo(1, 6);
    await nli.close();
  });

  it('honours the abort signal before loading and between batches', async () => {
    const nli = createOnnxNliClassifier({ dir: modelDir(), batchSize: 1 });
    const ctl = new AbortController();
    ctl.abort();
    await expect(nli.classify([SUPPORTED], { signal: ctl.signal })).rejects.toThrow(/abort/i);
    const later = new AbortController();
    const run = nli.classify(Array.from({ length: 40 }, () => SUPPORTED), { signal: later.signal });
    later.abort();
    await expect(run).rejects.toThrow(/abort/i);
    await nli.close();
  });

  it('reads id2label strictly: a model without the three NLI labels is refused', () => {
    expect(labelIndex({ id2label: { 0: 'contradiction', 1: 'entailment', 2: 'neutral' } })).toEqual({ contradiction: 0, entailment: 1, neutral: 2, count: 3 });
    expect(labelIndex({ id2label: { 0: 'LABEL_0', 1: 'LABEL_1', 2: 'LABEL_2' } })).toMatch(/no entailment/);
    expect(labelIndex({})).toMatch(/no id2label/);
  });
});

describe('NLI model: missing or broken files', () => {
  it('a missing model names `verity models pull nli`', async () => {
    const data = mkdtempSync(join(tmpdir(), 'verity-nli-data-'));
    dirs.push(data);
    const nli = configuredNliClassifier(data);
    expect(nli.name).toBe('NLI model (Xenova/nli-deberta-v3-xsmall)');
    const e = await errorOf(nli.classify([SUPPORTED]));
    expect(e.code).toBe('UNAVAILABLE');
    expect(e.message).toContain('`verity models pull nli`');
    expect(e.message).toContain(nliModelDir(data));
    const other = await errorOf(configuredNliClassifier(data, 'acme/nli-x').classify([SUPPORTED]));
    expect(other.message).toContain('verity models pull nli --model acme/nli-x');
  });

  it('a truncated model.onnx is named, with the pull command', async () => {
    const dir = modelDir();
    const bytes = readFileSync(join(dir, 'model.onnx'));
    writeFileSync(join(dir, 'model.onnx'), bytes.subarray(0, Math.floor(bytes.length / 2)));
    const e = await errorOf(createOnnxNliClassifier({ dir }).load());
    expect(e.code).toBe('UNAVAILABLE');
    expect(e.message).toContain(join(dir, 'model.onnx'));
    expect(e.message).toContain('verity models pull nli --force');
  });

  it('garbage in model.onnx, bad JSON in config.json or tokenizer.json: each file is named', async () => {
    const cases: Array<[string, Buffer | string]> = [
      ['model.onnx', Buffer.from('this is not a protobuf model file at all')],
      ['config.json', '{"id2label": {"0": "entail'],
      ['tokenizer.json', ''],
    ];
    for (const [file, content] of cases) {
      const dir = modelDir();
      writeFileSync(join(dir, file), content);
      const e = await errorOf(createOnnxNliClassifier({ dir }).classify([SUPPORTED]));
      expect(e.code, file).toBe('UNAVAILABLE');
      expect(e.message, file).toContain(join(dir, file));
      expect(e.message, file).toContain('verity models pull nli');
    }
  });

  it('a graph that is not a text cross-encoder (other inputs) is refused, naming its inputs', async () => {
    const dir = modelDir();
    const graph = encodeModel({
      inputs: [
        { name: 'input_ids', type: INT64, shape: ['b', 's'] },
        { name: 'pixel_values', type: FLOAT, shape: ['b', 3] },
      ],
      outputs: [{ name: 'logits', type: FLOAT, shape: ['b', 3] }],
      nodes: [{ op: 'Identity', inputs: ['pixel_values'], outputs: ['logits'] }],
      initializers: [],
    });
    writeFileSync(join(dir, 'model.onnx'), graph);
    const e = await errorOf(createOnnxNliClassifier({ dir }).load());
    expect(e.message).toContain("the graph's inputs are input_ids, pixel_values");
  });

  it('a file shorter than its download record is caught before the runtime reads it', async () => {
    const dir = modelDir();
    const size = readFileSync(join(dir, 'model.onnx')).length;
    writeFileSync(join(dir, RECORD_FILE), JSON.stringify({ kind: 'nli', id: 'tiny', source: 'x', pulled_at: '', integrity: 'recorded', files: { 'model.onnx': { size: size + 100, sha256: 'x' } } }));
    const e = await errorOf(createOnnxNliClassifier({ dir }).load());
    expect(e.message).toContain(`${size} bytes where the download had ${size + 100}`);
    expect(e.message).toContain(join(dir, 'model.onnx'));
  });
});
