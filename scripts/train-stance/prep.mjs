#!/usr/bin/env node
/**
 * Data preparation for the trained stance model (issue 34, item 1): from the shared fixtures to
 * token ids, one folder per fold.
 *
 *   node scripts/train-stance/prep.mjs [--out DIR] [--folds averitec,check-covid,fool-me-twice,all]
 *
 * A fold named after a claim domain leaves that domain's claims and gold sentences out of its
 * training data (and out of its vocabulary); `all` trains on every domain (the model that would
 * ship). Every fold trains on the same NLI pairs (FEVER-RTE and e-SNLI, less a seeded 10 %
 * held out for validation, split by premise so one caption or Wikipedia sentence never sits on
 * both sides).
 *
 * The tokenizer is written here, as a tokenizer.json that @huggingface/tokenizers reads (BERT
 * normalisation and pre-tokenisation, a WordPiece model whose vocabulary is the fold's words seen
 * at least MIN_COUNT times plus single characters, so an unseen word falls back to characters
 * instead of one shared [UNK]), and the pairs are encoded with the engine's own pair encoder
 * (dist/engine/claim/nli/encode.js): the ids the network trains on are exactly the ids the engine
 * feeds it at run time. Needs dist/ (npm run build).
 *
 * Writes, per fold: tokenizer.json, tokenizer_config.json, config.json (id2label), train.jsonl /
 * val-*.jsonl (ids, types, label, weight); and data-hashes.json (SHA-256 of every input file).
 */
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Tokenizer } from '@huggingface/tokenizers';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..', '..');
const args = process.argv.slice(2);
const opt = (name, d) => (args.includes(name) ? args[args.indexOf(name) + 1] : d);
const OUT = resolve(opt('--out', join(root, 'stance-model')));
const FOLDS = opt('--folds', 'averitec,check-covid,fool-me-twice').split(',');
const fixtures = process.env.VERITY_FIXTURES ?? resolve(root, '..', 'shared', 'fixtures');
if (!existsSync(join(fixtures, 'nli')) || !existsSync(join(fixtures, 'claims'))) {
  console.error(`prep: fixtures not found under ${fixtures}`);
  process.exit(2);
}
if (!existsSync(join(root, 'dist/engine/claim/nli/encode.js'))) {
  console.error('prep: dist/ is not built; run `npm run build` first');
  process.exit(2);
}
const { createPairEncoder } = await import(new URL('../../dist/engine/claim/nli/encode.js', import.meta.url).href);
const { passageKey } = await import(new URL('../../dist/engine/claim/text.js', import.meta.url).href);

/** Seed of every split and sample: change it and the recipe draws other held-out pairs. */
const SEED = 'verity-stance-1';
const MAX_LENGTH = 128;
const MIN_COUNT = 2;
const MAX_WORDS = 40000;
/** Neutral (non-gold) sentences kept per claim: the retrieval's first ones, the hard negatives. */
const NEUTRAL_PER_CLAIM = 3;
// Labels: the network's logits are [entailment, neutral, contradiction]; FEVER-RTE's
// not_entailment (refutes or not enough info) is label 3, trained as "neutral or contradiction".
const L = { entailment: 0, neutral: 1, contradiction: 2, not_entailment: 3 };

const files = {};
const read = (rel) => {
  const p = join(fixtures, rel);
  const buf = readFileSync(p);
  files[rel] = { sha256: createHash('sha256').update(buf).digest('hex'), bytes: buf.length };
  return buf.toString('utf8');
};
const jsonl = (rel) => read(rel).split('\n').filter((l) => l.trim()).map((l) => JSON.parse(l));
const bucket = (key) => createHash('sha256').update(`${SEED}\u0000${key}`).digest().readUInt32BE(0) % 10;

// FEVER's text is PTB-tokenised; undo it so training text looks like what the engine reads.
const PTB = { '-LRB-': '(', '-RRB-': ')', '-LSB-': '[', '-RSB-': ']', '-LCB-': '{', '-RCB-': '}', '``': '"', "''": '"', '--': '–' };
const detok = (s) =>
  s
    .replace(/-LRB-|-RRB-|-LSB-|-RSB-|-LCB-|-RCB-|``|''|--/g, (m) => PTB[m])
    .replace(/\s+([.,;:!?%)\]}])/g, '$1')
    .replace(/([([{])\s+/g, '$1')
    .replace(/\s+('s|'re|n't|'ll|'ve|'d|'m)\b/g, '$1')
    .replace(/\s+/g, ' ')
    .trim();

// ---- NLI pairs
const nli = { train: [], val: { fever: [], esnli: [] } };
for (const r of jsonl('nli/fever-rte-dev.jsonl')) {
  const p = { premise: detok(r.premise), hypothesis: detok(r.hypothesis), label: L[r.label], source: 'fever' };
  (bucket(`fever:${r.premise}`) === 0 ? nli.val.fever : nli.train).push(p);
}
for (const f of ['nli/esnli-dev.jsonl', 'nli/esnli-test.jsonl'])
  for (const r of jsonl(f)) {
    if (!(r.label in L)) continue;
    const p = { premise: r.premise.trim(), hypothesis: r.hypothesis.trim(), label: L[r.label], source: 'esnli' };
    (bucket(`esnli:${r.premise}`) === 0 ? nli.val.esnli : nli.train).push(p);
  }

// ---- claim domains' gold pairs (read as scripts/eval-claims.mjs reads them)
const STANCE = { true: L.entailment, false: L.contradiction, unverifiable: L.neutral };
function averitecPairs() {
  const LABELS = { Supported: 'true', Refuted: 'false', 'Not Enough Evidence': 'unverifiable' };
  const out = [];
  for (const c of JSON.parse(read('claims/averitec-dev.json'))) {
    const gold = LABELS[c.label];
    if (!gold) continue; // Conflicting: no single stance for its answers
    for (const q of c.questions ?? [])
      for (const a of q.answers ?? []) {
        const parts = [q.question.trim().replace(/\?*$/, '?'), a.answer.trim()];
        if (a.answer_type === 'Boolean' && a.boolean_explanation) parts.push(a.boolean_explanation.trim());
        const text = parts.join(' ').replace(/\s+/g, ' ');
        // Weak labels, as eval-claims gives them: an answer takes its claim's label.
        out.push({ premise: text, hypothesis: c.claim.trim(), label: /no answer could be found/i.test(text) ? L.neutral : STANCE[gold], source: 'averitec' });
      }
  }
  return out;
}
function checkCovidPairs() {
  const LABELS = { SUPPORT: 'true', REFUTE: 'false', NOTENOUGHINFO: 'unverifiable' };
  const abstracts = new Map(jsonl('claims/check-covid/corpus.json').map((d) => [d.cord_id, d]));
  const out = [];
  for (const c of jsonl('claims/check-covid/Check-COVID_all.json')) {
    const abs = abstracts.get(c.cord_id);
    if (!abs) continue;
    const gold = LABELS[c.label];
    const idx = new Set((c.evidence_set ?? []).map((e) => e.sent_index));
    for (const i of idx) if (abs.abstract[i]) out.push({ premise: abs.abstract[i], hypothesis: c.claim.trim(), label: STANCE[gold], source: 'check-covid' });
    if (gold === 'unverifiable') continue;
    let n = 0;
    for (let i = 0; i < abs.abstract.length && n < NEUTRAL_PER_CLAIM - 1; i++)
      if (!idx.has(i) && bucket(`cc:${c.id}:${i}`) < 5) {
        out.push({ premise: abs.abstract[i], hypothesis: c.claim.trim(), label: L.neutral, source: 'check-covid' });
        n++;
      }
  }
  return out;
}
function foolMeTwicePairs() {
  const LABELS = { SUPPORTS: 'true', REFUTES: 'false' };
  const out = [];
  for (const r of [...jsonl('claims/fool-me-twice/dev.jsonl'), ...jsonl('claims/fool-me-twice/test.jsonl')]) {
    const gold = LABELS[r.label];
    if (!gold) continue;
    const keys = new Set((r.gold_evidence ?? []).map((e) => passageKey(e.text)));
    for (const e of r.gold_evidence ?? []) if (e.text?.trim()) out.push({ premise: e.text, hypothesis: r.text, label: STANCE[gold], source: 'fool-me-twice' });
    let n = 0;
    for (const e of r.retrieved_evidence ?? []) {
      if (n >= NEUTRAL_PER_CLAIM) break;
      if (!e.text?.trim() || keys.has(passageKey(e.text))) continue;
      out.push({ premise: e.text, hypothesis: r.text, label: L.neutral, source: 'fool-me-twice' });
      n++;
    }
  }
  return out;
}
const domains = { averitec: averitecPairs(), 'check-covid': checkCovidPairs(), 'fool-me-twice': foolMeTwicePairs() };

// ---- tokenizer
const SPECIALS = ['[PAD]', '[UNK]', '[CLS]', '[SEP]'];
function tokenizerJson(vocab) {
  return {
    version: '1.0',
    truncation: null,
    padding: null,
    added_tokens: SPECIALS.map((content, id) => ({ id, content, single_word: false, lstrip: false, rstrip: false, normalized: false, special: true })),
    normalizer: { type: 'BertNormalizer', clean_text: true, handle_chinese_chars: true, strip_accents: true, lowercase: true },
    pre_tokenizer: { type: 'BertPreTokenizer' },
    post_processor: {
      type: 'TemplateProcessing',
      single: [{ SpecialToken: { id: '[CLS]', type_id: 0 } }, { Sequence: { id: 'A', type_id: 0 } }, { SpecialToken: { id: '[SEP]', type_id: 0 } }],
      pair: [
        { SpecialToken: { id: '[CLS]', type_id: 0 } },
        { Sequence: { id: 'A', type_id: 0 } },
        { SpecialToken: { id: '[SEP]', type_id: 0 } },
        { Sequence: { id: 'B', type_id: 1 } },
        { SpecialToken: { id: '[SEP]', type_id: 1 } },
      ],
      special_tokens: { '[CLS]': { id: '[CLS]', ids: [2], tokens: ['[CLS]'] }, '[SEP]': { id: '[SEP]', ids: [3], tokens: ['[SEP]'] } },
    },
    decoder: { type: 'WordPiece', prefix: '##', cleanup: true },
    model: { type: 'WordPiece', unk_token: '[UNK]', continuing_subword_prefix: '##', max_input_chars_per_word: 100, vocab },
  };
}
const bootstrap = new Tokenizer(tokenizerJson(Object.fromEntries(SPECIALS.map((t, i) => [t, i]))), {});
const words = (text) => bootstrap.pre_tokenizer(bootstrap.normalizer(text));

function buildVocab(pairs) {
  const counts = new Map();
  const chars = new Set();
  for (const p of pairs)
    for (const w of [...words(p.premise), ...words(p.hypothesis)]) {
      counts.set(w, (counts.get(w) ?? 0) + 1);
      for (const ch of w) chars.add(ch);
    }
  const vocab = Object.fromEntries(SPECIALS.map((t, i) => [t, i]));
  let next = SPECIALS.length;
  const add = (t) => {
    if (!(t in vocab)) vocab[t] = next++;
  };
  [...chars].sort().forEach((ch) => (add(ch), add(`##${ch}`)));
  [...counts]
    .filter(([, n]) => n >= MIN_COUNT)
    .sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : 1))
    .slice(0, MAX_WORDS)
    .forEach(([w]) => add(w));
  return vocab;
}

const WEIGHT = { fever: 1, esnli: 0.5, averitec: 1, 'check-covid': 2, 'fool-me-twice': 2 };
mkdirSync(OUT, { recursive: true });
for (const fold of FOLDS) {
  if (fold !== 'all' && !(fold in domains)) {
    console.error(`prep: unknown fold ${fold}`);
    process.exit(2);
  }
  const dir = join(OUT, fold === 'all' ? 'all' : `without-${fold}`);
  mkdirSync(dir, { recursive: true });
  const train = [...nli.train, ...Object.entries(domains).flatMap(([name, ps]) => (name === fold ? [] : ps))];
  const vocab = buildVocab(train);
  const tj = tokenizerJson(vocab);
  writeFileSync(join(dir, 'tokenizer.json'), JSON.stringify(tj));
  writeFileSync(join(dir, 'tokenizer_config.json'), JSON.stringify({ pad_token: '[PAD]', unk_token: '[UNK]', cls_token: '[CLS]', sep_token: '[SEP]', model_max_length: MAX_LENGTH }));
  writeFileSync(
    join(dir, 'config.json'),
    JSON.stringify({ model_type: 'verity-stance', id2label: { 0: 'entailment', 1: 'neutral', 2: 'contradiction' }, max_position_embeddings: MAX_LENGTH, vocab_size: Object.keys(vocab).length, held_out_domain: fold === 'all' ? null : fold }, null, 2),
  );
  const enc = createPairEncoder(new Tokenizer(tj, { pad_token: '[PAD]' }), MAX_LENGTH, '[PAD]');
  const dump = (name, pairs) =>
    writeFileSync(
      join(dir, name),
      pairs.map((p) => JSON.stringify({ ...enc.encode(p), label: p.label, source: p.source, weight: WEIGHT[p.source] })).join('\n') + '\n',
    );
  dump('train.jsonl', train);
  dump('val-fever.jsonl', nli.val.fever);
  dump('val-esnli.jsonl', nli.val.esnli);
  if (fold !== 'all') dump('heldout-domain.jsonl', domains[fold]);
  const by = (ps) => Object.entries(ps.reduce((a, p) => ((a[p.source] = (a[p.source] ?? 0) + 1), a), {})).map(([k, v]) => `${k} ${v}`).join(', ');
  console.log(`${dir}: vocabulary ${Object.keys(vocab).length}, train ${train.length} (${by(train)}), val FEVER ${nli.val.fever.length}, e-SNLI ${nli.val.esnli.length}${fold === 'all' ? '' : `, held-out domain pairs ${domains[fold].length}`}`);
}
writeFileSync(join(OUT, 'data-hashes.json'), JSON.stringify({ seed: SEED, fixtures: '../shared/fixtures', files }, null, 2) + '\n');
console.log(`wrote ${join(OUT, 'data-hashes.json')}`);
