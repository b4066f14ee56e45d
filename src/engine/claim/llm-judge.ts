/**
 * The LLM judge: when `llm.base_url` and `llm.model` are configured, one request to an
 * OpenAI-compatible Chat Completions endpoint (`POST {base_url}/chat/completions`, JSON mode via
 * `response_format: {type: "json_object"}`) rates every selected passage and the claim as a whole.
 * Its answer is validated; anything malformed is a failure the caller turns into a warning and the
 * local stance model stands.
 */
import { z } from 'zod';
import { hostOf, requestJson, isRecord, str } from '../../sources/claim-types.js';
import { UpstreamError, type HttpClient } from '../../sources/http.js';
import type { EngineConfig } from '../types.js';
import type { StanceLabel } from './stance.js';

export interface JudgeInput {
  claim: string;
  passages: { source: string; text: string }[];
}

export interface JudgeOutput {
  items: { stance: StanceLabel; confidence: number }[];
  /** The model's probability that the claim is true, given the passages. */
  truth_probability: number;
  model: string;
}

const Answer = z.object({
  items: z.array(
    z.object({
      id: z.number().int(),
      stance: z.enum(['supports', 'refutes', 'neutral']),
      confidence: z.number().min(0).max(1),
    }),
  ),
  truth_probability: z.number().min(0).max(1),
});

const SYSTEM = [
  'You are a careful fact-checking assistant. You judge whether evidence passages support or refute a claim.',
  'Use only the passages given, not outside knowledge. A passage that is off-topic or does not decide the claim is "neutral".',
  'Answer with one JSON object and nothing else: {"items":[{"id":<passage id>,"stance":"supports"|"refutes"|"neutral","confidence":<0..1>}],"truth_probability":<0..1>}.',
  'truth_probability is how likely the claim is true given these passages (0.5 when they do not decide it).',
].join(' ');

export const llmConfigured = (config: EngineConfig): boolean => Boolean(config.llm?.base_url && config.llm?.model);

const openAiError = (body: unknown): string | undefined =>
  isRecord(body) && isRecord(body.error) ? (str(body.error.message) ?? str(body.error.type) ?? undefined) : undefined;

export async function judgeWithLlm(input: JudgeInput, config: EngineConfig, http: HttpClient, signal?: AbortSignal): Promise<JudgeOutput> {
  const llm = config.llm!;
  const url = `${llm.base_url!.replace(/\/$/, '')}/chat/completions`;
  const user = [
    `Claim: ${input.claim}`,
    '',
    ...input.passages.map((p, i) => `Passage ${i} (${p.source}): ${p.text.replace(/\s+/g, ' ').slice(0, 600)}`),
  ].join('\n');
  const headers: Record<string, string> = { 'content-type': 'application/json' };
  if (llm.api_key) headers.authorization = `Bearer ${llm.api_key}`;
  const body = await requestJson<{ choices?: { message?: { content?: string | null } }[] }>(
    http,
    {
      url,
      method: 'POST',
      headers,
      body: JSON.stringify({
        model: llm.model,
        temperature: 0,
        response_format: { type: 'json_object' },
        messages: [
          { role: 'system', content: SYSTEM },
          { role: 'user', content: user },
        ],
      }),
      timeoutMs: 30_000,
      retries: 1,
      signal,
    },
    openAiError,
  );
  const host = hostOf(url);
  const content = body.choices?.[0]?.message?.content;
  if (!content) throw new UpstreamError(host, 'bad_body', `${host} (LLM) returned no message content`);
  let parsed: unknown;
  try {
    // Some servers wrap JSON in a code fence even in JSON mode.
    parsed = JSON.parse(content.replace(/^\s*```(?:json)?\s*|\s*```\s*$/g, ''));
  } catch {
    throw new UpstreamError(host, 'bad_body', `${host} (LLM) answered with text that is not JSON`);
  }
  const r = Answer.safeParse(parsed);
  if (!r.success) throw new UpstreamError(host, 'bad_body', `${host} (LLM) answer does not match the expected JSON shape`);
  const items: JudgeOutput['items'] = input.passages.map(() => ({ stance: 'neutral', confidence: 0 }));
  for (const it of r.data.items) if (it.id >= 0 && it.id < items.length) items[it.id] = { stance: it.stance, confidence: it.confidence };
  return { items, truth_probability: r.data.truth_probability, model: llm.model! };
}
