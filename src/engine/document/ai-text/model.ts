/**
 * The small model that combines the stylometric features: logistic regression on standardised
 * features, p = σ(b + Σ wᵢ·(xᵢ − μᵢ)/σᵢ). Its parameters live in weights.json beside this file,
 * written by scripts/fit-ai-text.mjs, which names the data they were fitted on.
 *
 * Short texts carry little signal, so the probability is pulled toward 0.5 below
 * `full_confidence_words`, and is exactly 0.5 below `min_words` (the caller adds a warning).
 */
import { FEATURE_NAMES, type FeatureName, type FeatureVector } from './features.js';

export interface AiTextModel {
  model: 'logistic-regression';
  features: FeatureName[];
  mean: number[];
  std: number[];
  weights: number[];
  bias: number;
  min_words: number;
  full_confidence_words: number;
  /** Probability at or above which the `ai_generated_text` flag is raised. */
  flag_threshold: number;
  data: Record<string, unknown>;
  evaluation: Record<string, unknown>;
}

export interface AiTextScore {
  probability: number;
  /** The model's output before shrinking for length. */
  raw: number;
  /** 0…1: how much of the model's verdict is kept (length shrinkage). */
  confidence: number;
  enoughText: boolean;
  /** Feature contributions to the log-odds, largest magnitude first. */
  contributions: { feature: FeatureName; value: number; logit: number }[];
}

export function lengthConfidence(m: Pick<AiTextModel, 'min_words' | 'full_confidence_words'>, wordCount: number): number {
  if (wordCount < m.min_words) return 0;
  return Math.min(1, (wordCount - m.min_words) / Math.max(1, m.full_confidence_words - m.min_words) + 0.25);
}

export function scoreFeatures(m: AiTextModel, f: FeatureVector, wordCount: number): AiTextScore {
  let z = m.bias;
  const contributions: AiTextScore['contributions'] = [];
  m.features.forEach((name, i) => {
    const x = f[name] ?? 0;
    const s = m.std[i]! > 0 ? m.std[i]! : 1;
    // Clipped at ±4 standard deviations: text unlike anything in the fitting data (a flyer, a
    // table) must not push the log-odds to extremes through one runaway feature.
    const zx = Math.max(-4, Math.min(4, (x - m.mean[i]!) / s));
    const logit = (m.weights[i] ?? 0) * zx;
    z += logit;
    contributions.push({ feature: name, value: x, logit });
  });
  const raw = 1 / (1 + Math.exp(-z));
  const confidence = lengthConfidence(m, wordCount);
  contributions.sort((a, b) => Math.abs(b.logit) - Math.abs(a.logit));
  return { probability: 0.5 + (raw - 0.5) * confidence, raw, confidence, enoughText: wordCount >= m.min_words, contributions };
}

export const MODEL_FEATURES: readonly FeatureName[] = FEATURE_NAMES;
