import { once } from 'node:events';
import { readFileSync } from 'node:fs';
import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { createEngine } from '../../../src/engine/index.js';
import { DEFAULT_MODEL, detectAiTextStylometric } from '../../../src/engine/document/ai-text/detector.js';
import { AI_TEXT_CAVEAT, proseForDetection } from '../../../src/engine/document/ai-text/analyze.js';
import { extractFeatures, splitSentences } from '../../../src/engine/document/ai-text/features.js';
import { statsFrom, tokenLogprobs } from '../../../src/engine/document/ai-text/llm-server.js';
import { createHttpClient } from '../../../src/sources/http.js';
import { describeFixtures, fixture } from '../../helpers/fixtures.js';
import { PROSE_HUMAN, testPorts } from './build.js';

const AI_STYLE =
  'Artificial intelligence plays a crucial role in modern healthcare, offering significant potential to enhance patient outcomes. Furthermore, it enables clinicians to navigate complex datasets with remarkable efficiency. Additionally, machine learning models can identify intricate patterns that might otherwise remain hidden. Moreover, these tools foster collaboration across multidisciplinary teams, ensuring that care remains comprehensive and holistic. Ultimately, the integration of these technologies represents a pivotal shift, underscoring the importance of thoughtful implementation. Overall, it is important to note that careful oversight remains paramount.';

describe('stylometric features', () => {
  it('splits sentences without breaking on abbreviations', () => {
    expect(splitSentences('Dr. Smith arrived. He sat down! Did he? Yes.')).toEqual(['Dr. Smith arrived.', 'He sat down!', 'Did he?', 'Yes.']);
  });

  it('measures burstiness, contractions and stock phrasing', () => {
    const human = extractFeatures(PROSE_HUMAN).features;
    const ai = extractFeatures(AI_STYLE).features;
    expect(human.sentence_len_cv).toBeGreaterThan(ai.sentence_len_cv);
    expect(human.contraction_rate).toBeGreaterThan(0);
    expect(ai.contraction_rate).toBe(0);
    expect(ai.stock_phrase_rate).toBeGreaterThan(human.stock_phrase_rate + 5);
  });

  it('measures how much a text restates its opening sentence', () => {
    const question = 'Is an advance care planning model feasible in community palliative care?';
    const restating = extractFeatures(`${question} Yes, an advance care planning model is feasible in community palliative care. Studies show that it improves documentation. It also helps families.`).features;
    const movingOn = extractFeatures(`${question} Nurses reported fewer unplanned admissions over two years. Documentation improved in most services. Families asked for more meetings.`).features;
    // The opening has 10 distinct word pairs; all recur but "is an" and "model feasible" (the answer says "model is feasible").
    expect(restating.opening_bigram_echo).toBeCloseTo(8 / 10, 6);
    expect(movingOn.opening_bigram_echo).toBe(0);
    expect(extractFeatures('A single sentence has no opening to restate.').features.opening_bigram_echo).toBe(0);
  });
});

describe('stylometric detector', () => {
  it('scores stock-phrased text above casual human prose', () => {
    const h = detectAiTextStylometric(PROSE_HUMAN);
    const a = detectAiTextStylometric(AI_STYLE);
    expect(a.probability).toBeGreaterThan(h.probability);
    expect(a.probability).toBeGreaterThan(0.7);
    expect(h.probability).toBeLessThan(0.4);
  });

  it('says the text is too short to judge below the minimum length', async () => {
    const r = await createEngine(testPorts()).verifyDocument({ source: 'raw', content: 'Too short to judge.' });
    expect(r.ai_generated_probability).toBe(0.5);
    expect(r.dimensions.llm_analysis).toBe(0.5);
    expect(r.dimension_producers?.llm_analysis).toBe('too little text');
    expect(r.warnings?.some((w) => /too short to judge whether it is AI-generated/.test(w))).toBe(true);
    expect(r.metadata).toEqual({ author: null, created_at: null, producer: 'unknown', page_count: 1 });
  });

  it('never flags a text under min_flag_words, however machine-like, and shows its probability with lowered confidence', async () => {
    const short = AI_STYLE.split(' ').slice(0, 30).join(' ');
    const full = detectAiTextStylometric(short);
    expect(full.wordCount).toBeLessThan(DEFAULT_MODEL.min_flag_words);
    expect(full.calibrated).toBeGreaterThanOrEqual(DEFAULT_MODEL.flag_threshold);
    const r = await createEngine(testPorts()).verifyDocument({ source: 'raw', content: short });
    expect(r.manipulation_flags).toEqual([]);
    expect(r.warnings?.some((w) => /too short to judge reliably .* lowered confidence/.test(w))).toBe(true);
    expect(r.ai_generated_probability).toBeGreaterThan(0.5);
    expect(r.ai_generated_probability).toBeLessThan(full.calibrated);
  });

  it('drops layout lines (lists, labels, repeated headers) before judging pasted text', () => {
    const list = Array.from({ length: 40 }, (_, i) => `Member ${i}\nNational Board`).join('\n');
    expect(detectAiTextStylometric(proseForDetection(list)).enoughText).toBe(false);
    expect(proseForDetection('Page 1\nA line with enough words here.\nPage 2\nA line with enough words here.')).toBe('A line with enough words here.');
  });

  it('raises ai_generated_text on raw text that reads as generated, saying it is an indication, not proof', async () => {
    const r = await createEngine(testPorts()).verifyDocument({ source: 'raw', content: AI_STYLE });
    expect(r.manipulation_flags).toEqual(['ai_generated_text']);
    expect(r.ai_generated_probability).toBeGreaterThanOrEqual(DEFAULT_MODEL.flag_threshold);
    expect(r.dimension_producers?.llm_analysis).toBe('stylometric model');
    // The mean and the weakest held-out domain, so the mean cannot hide it.
    expect(r.evidence.some((e) => e.source === 'ai_text_stylometry' && /leave-one-domain-out AUROC 0\.\d+ \(mean over 3 held-out domains; lowest 0\.\d+, biomedical\)/.test(e.finding))).toBe(true);
    const flagFinding = r.evidence.find((e) => /threshold/.test(e.finding))!;
    expect(flagFinding.finding).toContain(AI_TEXT_CAVEAT);
    expect(AI_TEXT_CAVEAT).toMatch(/statistical indication .* not proof/);
  });

  it('does not flag casual human prose', async () => {
    const r = await createEngine(testPorts()).verifyDocument({ source: 'raw', content: PROSE_HUMAN });
    expect(r.manipulation_flags).toEqual([]);
    expect(r.ai_generated_probability).toBeLessThan(0.3);
  });

  it('names its data and carries held-out (leave-one-domain-out) figures within the goals', () => {
    const files = (DEFAULT_MODEL.data.sources as { file: string }[]).map((s) => s.file);
    expect(files).toEqual(expect.arrayContaining(['text/ai-vs-human-glimpse.jsonl', 'claims/check-covid/corpus.json', 'claims/fool-me-twice/dev.jsonl']));
    const per = DEFAULT_MODEL.evaluation.per_domain as Record<string, { lodo_fpr: number; lodo_auroc: number | null; human_passages: number; lodo_passage_fpr: number | null }>;
    expect(Object.keys(per)).toEqual(expect.arrayContaining(['news', 'stories', 'biomedical', 'abstracts', 'wikipedia', 'factcheck-answers', 'factcheck-qa']));
    // Formal human registers (issue 30): licence texts and the Python tutorial fitted, Debian governance
    // texts and the Debian handbook checks only; each held out at <= 5 % below.
    expect(Object.keys(per)).toEqual(expect.arrayContaining(['legal', 'education', 'governance', 'textbook']));
    const domains = DEFAULT_MODEL.data.domains as Record<string, { fitted: boolean; chooses_threshold: boolean }>;
    for (const d of ['governance', 'textbook']) expect(domains[d]).toMatchObject({ fitted: false, chooses_threshold: false });
    for (const v of Object.values(per)) expect(v.lodo_fpr).toBeLessThanOrEqual(0.05);
    // Held-out false positives on 50-word passages of human text too, where a domain has them.
    const withPassages = Object.values(per).filter((v) => v.human_passages > 0);
    expect(withPassages.length).toBeGreaterThanOrEqual(4);
    for (const v of withPassages) expect(v.lodo_passage_fpr).toBeLessThanOrEqual(0.05);
    for (const d of ['news', 'stories', 'biomedical']) expect(per[d]!.lodo_auroc).toBeGreaterThan(0.85);
    expect(DEFAULT_MODEL.calibration?.method).toBe('platt');
    expect(DEFAULT_MODEL.weights).toHaveLength(DEFAULT_MODEL.features.length);
    expect(Object.keys(DEFAULT_MODEL.vocabulary ?? {}).length).toBeGreaterThan(50);
    // The character 4-gram table: 4-grams only, values clipped to ±2 (the weakest per-domain leaning).
    const char4 = Object.entries(DEFAULT_MODEL.char4 ?? {});
    expect(char4.length).toBeGreaterThan(500);
    for (const [k, v] of char4) {
      expect(k).toHaveLength(4);
      expect(Math.abs(v)).toBeLessThanOrEqual(2);
    }
    const ev = DEFAULT_MODEL.evaluation as { lodo_auroc_within_mixed_domains_mean: number; l2_lambda_by_held_out_domain: Record<string, number> };
    expect(ev.lodo_auroc_within_mixed_domains_mean).toBeGreaterThanOrEqual(0.9);
    expect(Object.keys(ev.l2_lambda_by_held_out_domain)).toEqual(expect.arrayContaining(['news', 'stories', 'biomedical']));
    // The pooled LODO AUROC both ways: one scale, and each fold through its own calibration
    // (fitted on that fold's training domains only), with the three fold calibrations it used.
    const pooled = DEFAULT_MODEL.evaluation as { lodo_auroc_pooled_glimpse: number; lodo_auroc_pooled_glimpse_fold_calibrated: number; fold_calibration: Record<string, { a: number; b: number }> };
    for (const v of [pooled.lodo_auroc_pooled_glimpse, pooled.lodo_auroc_pooled_glimpse_fold_calibrated]) {
      expect(v).toBeGreaterThan(0.5);
      expect(v).toBeLessThanOrEqual(1);
    }
    expect(Object.keys(pooled.fold_calibration).sort()).toEqual(['biomedical', 'news', 'stories']);
    for (const c of Object.values(pooled.fold_calibration)) expect(c.a).toBeGreaterThan(0);
  });
});

function aurocOf(scored: { p: number; y: number }[]): number {
  const pos = scored.filter((s) => s.y === 1);
  const neg = scored.filter((s) => s.y === 0);
  let wins = 0;
  for (const a of pos) for (const b of neg) wins += a.p > b.p ? 1 : a.p === b.p ? 0.5 : 0;
  return wins / (pos.length * neg.length);
}

describeFixtures('stylometric detector on the shared text fixtures', () => {
  it('separates AI from human texts within each glimpse domain (AUROC > 0.9)', () => {
    const rows = readFileSync(fixture('text', 'ai-vs-human-glimpse.jsonl'), 'utf8').split('\n').filter(Boolean).map((l) => JSON.parse(l) as { text: string; label: string; domain: string });
    for (const d of new Set(rows.map((r) => r.domain))) {
      const scored = rows.filter((r) => r.domain === d).map((r) => ({ p: detectAiTextStylometric(r.text).probability, y: r.label === 'ai' ? 1 : 0 }));
      expect(aurocOf(scored), d).toBeGreaterThan(0.9);
    }
  });

  it('flags at most 5 % of human scientific abstracts (Check-COVID) and of human glimpse texts', () => {
    const abstracts = readFileSync(fixture('claims', 'check-covid', 'corpus.json'), 'utf8').split('\n').filter(Boolean).map((l) => (JSON.parse(l) as { abstract: string[] }).abstract.join(' '));
    const humans = readFileSync(fixture('text', 'ai-vs-human-glimpse.jsonl'), 'utf8').split('\n').filter(Boolean).map((l) => JSON.parse(l) as { text: string; label: string }).filter((r) => r.label === 'human').map((r) => r.text);
    for (const set of [abstracts, humans]) {
      const flagged = set.filter((t) => detectAiTextStylometric(proseForDetection(t)).flagged).length;
      expect(flagged / set.length).toBeLessThanOrEqual(0.05);
    }
  });
});

// ---- the OpenAI-compatible log-probability backend against a fake server speaking vLLM's format

let server: Server | undefined;
afterEach(async () => {
  if (server) {
    server.close();
    await once(server, 'close');
    server = undefined;
  }
});

async function readBody(req: IncomingMessage): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const c of req) chunks.push(c as Buffer);
  return Buffer.concat(chunks).toString('utf8');
}

/** vLLM /v1/completions with prompt_logprobs=1: per position the actual token, plus the top-1 when different. */
function vllmBody(positions: number, predictable: boolean): unknown {
  const prompt_logprobs: (Record<string, { logprob: number; rank: number; decoded_token: string }> | null)[] = [null];
  for (let i = 1; i < positions; i++) {
    if (predictable || i % 4 === 0) prompt_logprobs.push({ [String(100 + i)]: { logprob: -0.4, rank: 1, decoded_token: ` w${i}` } });
    else prompt_logprobs.push({ [String(100 + i)]: { logprob: -6.5, rank: 40, decoded_token: ` w${i}` }, [String(9000 + i)]: { logprob: -1.2, rank: 1, decoded_token: ' the' } });
  }
  return { id: 'cmpl-1', object: 'text_completion', model: 'fake-llm', choices: [{ index: 0, text: '.', logprobs: null, finish_reason: 'length', prompt_logprobs }] };
}

async function startFake(handler: (body: Record<string, unknown>) => { status: number; json: unknown }): Promise<{ url: string; seen: Record<string, unknown>[]; headers: Record<string, string | string[] | undefined>[] }> {
  const seen: Record<string, unknown>[] = [];
  const headers: Record<string, string | string[] | undefined>[] = [];
  server = createServer(async (req, res) => {
    const body = JSON.parse(await readBody(req)) as Record<string, unknown>;
    seen.push(body);
    headers.push(req.headers);
    if (req.url !== '/v1/completions') {
      res.writeHead(404).end();
      return;
    }
    const r = handler(body);
    res.writeHead(r.status, { 'content-type': 'application/json' }).end(JSON.stringify(r.json));
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`, seen, headers };
}

const http = createHttpClient({ userAgent: 'verity-tests', sleep: async () => undefined });

describe('LLM log-probability backend (OpenAI-compatible, vLLM prompt_logprobs)', () => {
  it('reads vLLM prompt_logprobs and the OpenAI echo format alike', () => {
    const v = tokenLogprobs(vllmBody(5, false))!;
    expect(v.observed).toEqual([-6.5, -6.5, -6.5, -0.4]);
    expect(v.top1).toEqual([-1.2, -1.2, -1.2, -0.4]);
    const echo = tokenLogprobs({ choices: [{ logprobs: { tokens: ['a', 'b', 'c'], token_logprobs: [null, -2, -0.1], top_logprobs: [null, { x: -0.5, b: -2 }, { c: -0.1 }] } }] })!;
    expect(echo.observed).toEqual([-2, -0.1]);
    expect(echo.top1).toEqual([-0.5, -0.1]);
    const s = statsFrom([-0.4, -0.4], [-0.4, -0.4]);
    expect(s.top1Share).toBe(1);
    expect(s.perplexity).toBeCloseTo(Math.exp(0.4), 5);
  });

  it('adds the backend to the evidence and moves the probability', async () => {
    const fake = await startFake(() => ({ status: 200, json: vllmBody(120, true) }));
    const ports = testPorts({ http, config: { llm: { base_url: fake.url, model: 'fake-llm', api_key: 'sk-test-secret-123456' } } });
    const withLlm = await createEngine(ports).verifyDocument({ source: 'raw', content: PROSE_HUMAN });
    const without = await createEngine(testPorts()).verifyDocument({ source: 'raw', content: PROSE_HUMAN });
    expect(fake.seen[0]).toMatchObject({ model: 'fake-llm', prompt_logprobs: 1, max_tokens: 1 });
    expect(fake.headers[0]!.authorization).toBe('Bearer sk-test-secret-123456');
    const ev = withLlm.evidence.find((e) => e.source === 'llm_logprobs');
    expect(ev?.finding).toMatch(/fake-llm log-probabilities over 119 tokens: perplexity 1\.5, 100 % of tokens were the model's first choice/);
    expect(withLlm.ai_generated_probability).toBeGreaterThan(without.ai_generated_probability);
    expect(JSON.stringify(withLlm)).not.toContain('sk-test-secret-123456');
  });

  it('never raises the flag on its own: human prose stays unflagged however predictable the backend finds it', async () => {
    const fake = await startFake(() => ({ status: 200, json: vllmBody(120, true) }));
    const r = await createEngine(testPorts({ http, config: { llm: { base_url: fake.url } } })).verifyDocument({ source: 'raw', content: PROSE_HUMAN });
    expect(r.evidence.find((e) => e.source === 'llm_logprobs')?.finding).toMatch(/P\(AI\) = 0\.9\d/);
    expect(r.manipulation_flags).toEqual([]);
    expect(r.dimension_producers?.llm_analysis).toBe('stylometric model + LLM log-probabilities');
  });

  it('falls back to the stylometric detector with a warning when the server fails', async () => {
    const fake = await startFake(() => ({ status: 400, json: { object: 'error', message: 'prompt_logprobs is not supported', type: 'BadRequestError', code: 400 } }));
    const r = await createEngine(testPorts({ http, config: { llm: { base_url: fake.url } } })).verifyDocument({ source: 'raw', content: PROSE_HUMAN });
    expect(r.warnings?.some((w) => /LLM backend .* not used: .*HTTP 400/.test(w))).toBe(true);
    expect(r.evidence.some((e) => e.source === 'llm_logprobs')).toBe(false);
    expect(r.ai_generated_probability).toBe((await createEngine(testPorts()).verifyDocument({ source: 'raw', content: PROSE_HUMAN })).ai_generated_probability);
  });

  it('explains that llm.model_path needs a server in this build', async () => {
    const r = await createEngine(testPorts({ config: { llm: { model_path: '/models/x.gguf' } } })).verifyDocument({ source: 'raw', content: PROSE_HUMAN });
    expect(r.warnings?.some((w) => /node-llama-cpp is not bundled/.test(w))).toBe(true);
  });
});
