/**
 * Optional stronger backend: an OpenAI-compatible completions server that returns the
 * log-probabilities of the prompt's own tokens, which is what perplexity-based detectors need
 * (GLTR, Gehrmann et al. 2019; Binoculars, Hans et al. 2024). Two response formats are read:
 *
 * - vLLM `prompt_logprobs` (request `prompt_logprobs: 1`): `choices[0].prompt_logprobs` is a list
 *   (first entry null) of `{ "<token id>": { logprob, rank, decoded_token } }`; each position holds
 *   the prompt's actual token and the top-1 token (one entry when they are the same);
 * - the OpenAI legacy `echo: true, logprobs: 1` form (`logprobs.token_logprobs`, `top_logprobs`),
 *   served by vLLM and others, used when the first form is absent.
 *
 * From the actual-token and top-1 log-probabilities this computes the log-perplexity, the share
 * of tokens that were the model's first choice, and a single-model Binoculars-style ratio:
 * log-perplexity divided by the mean surprise of the model's own top choice.
 */
import type { HttpClient } from '../../../sources/http.js';

export interface LogprobStats {
  tokens: number;
  /** Mean negative log-likelihood per token (natural log). */
  logPerplexity: number;
  perplexity: number;
  /** Share of prompt tokens that were the model's top-1 prediction. */
  top1Share: number;
  /** logPerplexity / mean(−log p(top-1)): near 1 when the text follows the model's own choices. */
  binocularsRatio: number;
  /** Probability the text is machine-generated, from the documented mapping below. */
  probability: number;
}

interface VllmLogprob {
  logprob: number;
  rank?: number | null;
  decoded_token?: string | null;
}

/** Actual-token and top-1 log-probabilities per position, from either response format. */
export function tokenLogprobs(body: unknown): { observed: number[]; top1: number[] } | undefined {
  const choice = (body as { choices?: unknown[] })?.choices?.[0] as
    | { prompt_logprobs?: (Record<string, VllmLogprob> | null)[]; logprobs?: { token_logprobs?: (number | null)[]; top_logprobs?: (Record<string, number> | null)[] } }
    | undefined;
  if (!choice) return undefined;
  const observed: number[] = [];
  const top1: number[] = [];
  if (Array.isArray(choice.prompt_logprobs)) {
    for (const pos of choice.prompt_logprobs) {
      if (!pos || typeof pos !== 'object') continue;
      const entries = Object.values(pos).filter((e): e is VllmLogprob => !!e && typeof e.logprob === 'number' && Number.isFinite(e.logprob));
      if (entries.length === 0) continue;
      const best = entries.find((e) => e.rank === 1) ?? entries.reduce((a, b) => (b.logprob > a.logprob ? b : a));
      // With prompt_logprobs=1 the actual token is the entry that is not rank 1, if there is one.
      const actual = entries.length === 1 ? entries[0]! : entries.find((e) => e !== best && e.rank !== 1) ?? best;
      observed.push(actual.logprob);
      top1.push(best.logprob);
    }
    return observed.length ? { observed, top1 } : undefined;
  }
  const lp = choice.logprobs;
  if (lp && Array.isArray(lp.token_logprobs)) {
    lp.token_logprobs.forEach((v, i) => {
      if (typeof v !== 'number' || !Number.isFinite(v)) return;
      const tops = lp.top_logprobs?.[i];
      const best = tops ? Math.max(v, ...Object.values(tops).filter((x) => Number.isFinite(x))) : v;
      observed.push(v);
      top1.push(best);
    });
    return observed.length ? { observed, top1 } : undefined;
  }
  return undefined;
}

/**
 * Mapping to a probability. Not fitted here (no language model can run offline on this machine),
 * so these are documented defaults: p = ½·σ((3.0 − logPPL)/0.5) + ½·σ((2.5 − ratio)/0.5), clamped
 * to [0.02, 0.98]. The first term is 0.5 at perplexity e³ ≈ 20 and rises as the text becomes more
 * predictable; the second rises as the text keeps to the model's own first choices.
 */
export function statsFrom(observed: number[], top1: number[]): LogprobStats {
  const n = observed.length;
  const nll = -observed.reduce((a, b) => a + b, 0) / n;
  const topSurprise = -top1.reduce((a, b) => a + b, 0) / n;
  const share = observed.filter((v, i) => Math.abs(v - top1[i]!) < 1e-6).length / n;
  const ratio = topSurprise > 1e-6 ? nll / topSurprise : nll > 1e-6 ? 10 : 1;
  const s = (x: number): number => 1 / (1 + Math.exp(-x));
  const p = 0.5 * s((3.0 - nll) / 0.5) + 0.5 * s((2.5 - ratio) / 0.5);
  return { tokens: n, logPerplexity: nll, perplexity: Math.exp(nll), top1Share: share, binocularsRatio: ratio, probability: Math.min(0.98, Math.max(0.02, p)) };
}

export interface LlmServerConfig {
  base_url: string;
  model?: string;
  api_key?: string;
}

/** Longest prompt sent (characters): keeps the request within typical context windows. */
export const LLM_MAX_CHARS = 8_000;

export async function scoreWithServer(http: HttpClient, cfg: LlmServerConfig, text: string, signal?: AbortSignal): Promise<LogprobStats> {
  const url = `${cfg.base_url.replace(/\/+$/, '')}/completions`;
  const headers: Record<string, string> = { 'content-type': 'application/json', accept: 'application/json' };
  if (cfg.api_key) headers.authorization = `Bearer ${cfg.api_key}`;
  const body = {
    model: cfg.model ?? 'default',
    prompt: text.slice(0, LLM_MAX_CHARS),
    max_tokens: 1,
    temperature: 0,
    prompt_logprobs: 1,
    echo: true,
    logprobs: 1,
  };
  const res = await http.request({ url, method: 'POST', headers, body: JSON.stringify(body), timeoutMs: 30_000, retries: 1, signal });
  if (res.status < 200 || res.status >= 300) throw new Error(`the LLM server answered HTTP ${res.status}`);
  let parsed: unknown;
  try {
    parsed = res.json();
  } catch {
    throw new Error('the LLM server answered with a body that is not JSON');
  }
  const lp = tokenLogprobs(parsed);
  if (!lp || lp.observed.length < 10) throw new Error('the LLM server returned no prompt log-probabilities (it needs vLLM prompt_logprobs or echo+logprobs support)');
  return statsFrom(lp.observed, lp.top1);
}
