/**
 * AI-generated text for raw text and for text extracted from PDF/DOCX: the stylometric detector
 * always, plus the optional log-probability backend when `llm.base_url` is configured. With a
 * backend the two probabilities are averaged (equal weights: neither is calibrated on the other).
 */
import type { EngineConfig } from '../../types.js';
import type { HttpClient } from '../../../sources/http.js';
import type { Finding } from '../report.js';
import { detectAiTextStylometric } from './detector.js';
import { scoreWithServer, type LogprobStats } from './llm-server.js';

export interface AiTextAnalysis {
  probability: number;
  enoughText: boolean;
  flagged: boolean;
  findings: Finding[];
  warnings: string[];
  llm: LogprobStats | null;
}

const FEATURE_LABEL: Record<string, string> = {
  sentence_len_cv: 'sentence-length variation',
  semicolon_colon_rate: 'semicolons/colons',
  comma_rate: 'commas',
  trigram_repeat_rate: 'repeated phrases',
  word_len_mean: 'word length',
  digit_rate: 'numbers',
  quote_rate: 'quotations',
  transition_start_rate: 'sentences opening with transitions',
  stock_phrase_rate: 'stock phrasing',
  mattr50: 'lexical diversity',
  contraction_rate: 'contractions',
  lowercase_start_rate: 'lower-case sentence starts',
};

/**
 * Text extracted from a PDF or DOCX carries layout: running headers and footers repeated on every
 * page, labels, bullets. Lines under three words and repeated lines are dropped so that layout is
 * not read as the repetition or terseness of a writer; whitespace is collapsed as in the fitting data.
 */
export function proseForDetection(text: string, extracted: boolean): string {
  if (!extracted) return text.replace(/\s+/g, ' ').trim();
  const seen = new Set<string>();
  const kept: string[] = [];
  for (const line of text.split(/\r?\n/)) {
    const l = line.replace(/\s+/g, ' ').trim();
    const key = l.toLowerCase();
    if (l.split(' ').length < 3 || seen.has(key)) continue;
    seen.add(key);
    kept.push(l);
  }
  return kept.join(' ');
}

export async function analyzeAiText(input: string, deps: { config: EngineConfig; http: HttpClient; signal?: AbortSignal; extracted: boolean }): Promise<AiTextAnalysis> {
  const warnings: string[] = [];
  const findings: Finding[] = [];
  const text = proseForDetection(input, deps.extracted);
  const style = detectAiTextStylometric(text);
  const m = style.model;
  if (!style.enoughText) {
    warnings.push(`not enough text for AI-text detection: ${style.wordCount} word(s), at least ${m.min_words} needed; ai_generated_probability is 0.5 (unknown)`);
    return { probability: 0.5, enoughText: false, flagged: false, findings, warnings, llm: null };
  }
  const top = style.contributions.slice(0, 3).map((c) => `${FEATURE_LABEL[c.feature] ?? c.feature.replace(/_/g, ' ')} ${c.logit > 0 ? 'AI-like' : 'human-like'} (${c.value.toFixed(2)})`);
  const auroc = (m.evaluation as { holdout_auroc?: number }).holdout_auroc;
  findings.push({
    source: 'ai_text_stylometry',
    finding: `stylometric model: P(AI) = ${style.probability.toFixed(2)} over ${style.wordCount} words / ${style.sentenceCount} sentences (length confidence ${style.confidence.toFixed(2)}); strongest features: ${top.join(', ')}; held-out AUROC ${auroc ?? 'n/a'} on ${String(m.data.name ?? 'its data')}`,
    authority: 0.45 * style.confidence,
    severity: 0,
  });

  let llm: LogprobStats | null = null;
  const cfg = deps.config.llm;
  if (cfg?.base_url) {
    try {
      llm = await scoreWithServer(deps.http, { base_url: cfg.base_url, model: cfg.model, api_key: cfg.api_key }, text, deps.signal);
      findings.push({
        source: 'llm_logprobs',
        finding: `${cfg.model ?? 'LLM'} log-probabilities over ${llm.tokens} tokens: perplexity ${llm.perplexity.toFixed(1)}, ${(100 * llm.top1Share).toFixed(0)} % of tokens were the model's first choice, Binoculars-style ratio ${llm.binocularsRatio.toFixed(2)} → P(AI) = ${llm.probability.toFixed(2)}`,
        authority: 0.55,
        severity: 0,
      });
    } catch (err) {
      warnings.push(`the LLM backend at llm.base_url was not used: ${err instanceof Error ? err.message : String(err)}`);
    }
  }
  if (cfg?.model_path && !cfg.base_url)
    warnings.push('llm.model_path is set, but this build has no in-process GGUF backend (node-llama-cpp is not bundled); serve the model with an OpenAI-compatible server that returns prompt log-probabilities and set llm.base_url');

  const probability = llm ? (style.probability + llm.probability) / 2 : style.probability;
  const flagged = probability >= m.flag_threshold && style.confidence >= 1;
  if (flagged)
    findings.push({
      source: llm ? 'ai_text_combined' : 'ai_text_stylometry',
      finding: `the text reads as machine-generated: P(AI) = ${probability.toFixed(2)} ≥ threshold ${m.flag_threshold} (stylometric detectors misjudge some human writing, notably by non-native writers; treat as a lead, not proof)`,
      authority: 0.45,
      flag: 'ai_generated_text',
      severity: 0,
    });
  return { probability, enoughText: true, flagged, findings, warnings, llm };
}
