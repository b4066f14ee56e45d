/**
 * AI-generated text for raw text and for text extracted from PDF/DOCX: the calibrated stylometric
 * detector always, plus the optional log-probability backend when `llm.base_url` is configured.
 * With a backend the two probabilities are averaged (equal weights: neither is fitted on the
 * other), but only the stylometric side, whose false-positive rate was measured, can raise the flag.
 */
import type { EngineConfig } from '../../types.js';
import type { HttpClient } from '../../../sources/http.js';
import type { Finding } from '../report.js';
import { DEFAULT_MODEL, detectAiTextStylometric } from './detector.js';
import { char4Of, vocabularyOf } from './model.js';
import { collapseSpaces, MAX_FEATURE_CHARS } from './features.js';
import { aiTextPassages, type AiTextPassage } from './passages.js';
import { LLM_MAX_CHARS, scoreWithServer, type LogprobStats } from './llm-server.js';

export interface AiTextAnalysis {
  probability: number;
  enoughText: boolean;
  flagged: boolean;
  findings: Finding[];
  warnings: string[];
  llm: LogprobStats | null;
  /** Plain name of what produced the probability (for `dimension_producers.llm_analysis`). */
  producer: string;
  /** Words of prose the detector read. */
  words: number;
  /** The most machine-like windows of the analysed prose (empty when too little text was measured). */
  passages: AiTextPassage[];
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
  vocabulary_llr: 'word choice',
  char4_llr: 'letter patterns',
  word_entropy_norm: 'vocabulary spread',
  opening_bigram_echo: 'phrases of the opening repeated',
};

/**
 * The sentence every AI-text verdict carries, in the engine's finding and (via this export) in
 * human output: the number is a statistical reading of style, never evidence of authorship.
 */
export const AI_TEXT_CAVEAT = 'The AI-text probability is a statistical indication from writing style, not proof of how the text was written.';

/**
 * Lines under three words and repeated lines are dropped, so that layout — running headers and
 * footers repeated on every page, labels, bullets, lists of names — is not read as the
 * repetition or terseness of a writer (extracted PDF/DOCX text and pasted text alike); whitespace
 * is then collapsed as in the fitting data. The fitting script applies this same function.
 */
export function proseForDetection(text: string): string {
  // The features read at most MAX_FEATURE_CHARS and the backend LLM_MAX_CHARS, so the filter stops
  // once it has that much prose: a 1 MB paste costs what 60 kB does.
  const enough = Math.max(MAX_FEATURE_CHARS, LLM_MAX_CHARS);
  if (!/[\r\n]/.test(text)) return collapseSpaces(text.slice(0, 2 * enough));
  const seen = new Set<string>();
  const kept: string[] = [];
  let length = 0;
  const newline = /\r\n|\n|\r/g;
  let at = 0;
  while (at < text.length && length < enough) {
    newline.lastIndex = at;
    const m = newline.exec(text);
    const end = m ? m.index : text.length;
    const l = collapseSpaces(text.slice(at, end));
    at = m ? end + m[0].length : text.length;
    // Under three words: fewer than two spaces (the line is collapsed), found without splitting it.
    const space = l.indexOf(' ');
    if (space < 0 || l.indexOf(' ', space + 1) < 0) continue;
    const key = l.toLowerCase();
    if (seen.has(key)) continue;
    seen.add(key);
    kept.push(l);
    length += l.length + 1;
  }
  return kept.join(' ');
}

/**
 * Builds what the detector makes once per process and that does not depend on the text — its
 * vocabulary and 4-gram tables as Maps (~0.5 ms cold) — so that a caller with idle time (the CLI
 * thread while pdf.js reads a PDF on its own thread) pays that before the text arrives. It used to
 * run the whole detector on a constant three-line text as well: that cost ~1.5 ms of a cold run
 * but saved the real call only ~0.4 ms (its regular expressions are compiled again, natively, for
 * a long text, and what it warmed is soon warmed by the text itself), and on a small PDF the text
 * has arrived before this runs, so all of it was on the critical path. Nothing here changes a
 * result (tested).
 */
let prepared = false;
export function prepareAiTextDetector(): void {
  // Once per process: a server's later PDFs find the tables built.
  if (prepared) return;
  prepared = true;
  vocabularyOf(DEFAULT_MODEL);
  char4Of(DEFAULT_MODEL);
}

export async function analyzeAiText(input: string, deps: { config: EngineConfig; http: HttpClient; signal?: AbortSignal }): Promise<AiTextAnalysis> {
  const warnings: string[] = [];
  const findings: Finding[] = [];
  const text = proseForDetection(input);
  const style = detectAiTextStylometric(text);
  const m = style.model;
  if (!style.enoughText) {
    warnings.push(`the text is too short to judge whether it is AI-generated: ${style.wordCount} word(s) of prose, at least ${m.min_words} needed to measure anything (${m.min_flag_words} for the ai_generated_text flag); ai_generated_probability is 0.5 (unknown)`);
    return { probability: 0.5, enoughText: false, flagged: false, findings, warnings, llm: null, producer: 'too little text', words: style.wordCount, passages: [] };
  }
  if (!style.longEnough)
    warnings.push(`the text is too short to judge reliably whether it is AI-generated: ${style.wordCount} words of prose, at least ${m.min_flag_words} needed for the ai_generated_text flag; the probability is shown with lowered confidence (${style.confidence.toFixed(2)}), pulled toward 0.5`);
  const top = style.contributions.slice(0, 3).map((c) => `${FEATURE_LABEL[c.feature] ?? c.feature.replace(/_/g, ' ')} ${c.logit > 0 ? 'AI-like' : 'human-like'} (${c.value.toFixed(2)})`);
  const ev = m.evaluation as { lodo_auroc_within_mixed_domains_mean?: number; per_domain?: Record<string, { lodo_auroc?: number | null }> };
  // The mean hides the weakest domain (biomedical answers, 0.89): say the range of the held-out domains too.
  const perDomain = Object.entries(ev.per_domain ?? {}).filter((e): e is [string, { lodo_auroc: number }] => typeof e[1].lodo_auroc === 'number');
  const weakest = perDomain.reduce<[string, { lodo_auroc: number }] | undefined>((a, e) => (!a || e[1].lodo_auroc < a[1].lodo_auroc ? e : a), undefined);
  const auroc =
    ev.lodo_auroc_within_mixed_domains_mean === undefined
      ? 'n/a'
      : `${ev.lodo_auroc_within_mixed_domains_mean} (mean over ${perDomain.length} held-out domains${weakest ? `; lowest ${weakest[1].lodo_auroc}, ${weakest[0]}` : ''})`;
  findings.push({
    source: 'ai_text_stylometry',
    finding: `stylometric model: P(AI) = ${style.probability.toFixed(2)} over ${style.wordCount} words / ${style.sentenceCount} sentences (calibrated ${style.calibrated.toFixed(2)}, length confidence ${style.confidence.toFixed(2)}); strongest features: ${top.join(', ')}; leave-one-domain-out AUROC ${auroc}. ${AI_TEXT_CAVEAT}`,
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
        finding: `${cfg.model ?? 'LLM'} log-probabilities over ${llm.tokens} tokens: perplexity ${llm.perplexity.toFixed(1)}, ${(100 * llm.top1Share).toFixed(0)} % of tokens were the model's first choice, Binoculars-style ratio ${llm.binocularsRatio.toFixed(2)} → P(AI) = ${llm.probability.toFixed(2)} (default mapping, not fitted on this model; it can withhold the flag, never raise it alone)`,
        authority: 0.55 * style.confidence,
        severity: 0,
      });
    } catch (err) {
      warnings.push(`the LLM backend at llm.base_url was not used: ${err instanceof Error ? err.message : String(err)}`);
    }
  }
  if (cfg?.model_path && !cfg.base_url)
    warnings.push('llm.model_path is set, but this build has no in-process GGUF backend (node-llama-cpp is not bundled); serve the model with an OpenAI-compatible server that returns prompt log-probabilities and set llm.base_url');

  // With the backend: the mean of the calibrated stylometric probability and the backend's, shrunk
  // for length like the stylometric one. The flag needs the calibrated stylometric probability at
  // the threshold (whose false-positive rate was measured) AND the combined one: the backend's
  // mapping is not fitted, so it may withhold the flag but never raise it on its own.
  const combined = llm ? (style.calibrated + llm.probability) / 2 : style.calibrated;
  const probability = 0.5 + (combined - 0.5) * style.confidence;
  const flagged = style.flagged && combined >= m.flag_threshold;
  if (flagged)
    findings.push({
      source: llm ? 'ai_text_combined' : 'ai_text_stylometry',
      finding: `the text's style resembles machine-generated text: P(AI) = ${probability.toFixed(2)} ≥ threshold ${m.flag_threshold}, a threshold chosen so that at most 5 % of human texts were flagged in each domain measured. ${AI_TEXT_CAVEAT} Formal, formulaic or non-native writing can score high; treat the flag as a lead for a reviewer.`,
      authority: 0.45,
      flag: 'ai_generated_text',
      severity: 0,
    });
  // The detector's features are those of all of `text` with the model's tables (its default
  // model is `m`): a passage that is the whole text reuses them.
  const passages = aiTextPassages(text, m, style);
  return { probability, enoughText: true, flagged, findings, warnings, llm, producer: llm ? 'stylometric model + LLM log-probabilities' : 'stylometric model', words: style.wordCount, passages };
}
