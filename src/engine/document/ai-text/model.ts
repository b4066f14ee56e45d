/**
 * The small model that combines the stylometric features: logistic regression on standardised
 * features, z = b + Σ wᵢ·clip((xᵢ − μᵢ)/σᵢ, ±4), then Platt calibration p = σ(a·z + c) fitted on
 * leave-one-domain-out scores (scripts/fit-ai-text.mjs). Its parameters, its vocabulary table and
 * the figures it was validated with live in weights.json beside this file.
 *
 * Length: below `min_words` there is nothing to measure (probability 0.5); between `min_words`
 * and `min_flag_words` the probability is pulled toward 0.5 in proportion to the length and the
 * flag is never raised (the caller warns that the text is too short to judge); from
 * `min_flag_words` on, the calibrated probability stands and the flag is raised at
 * `flag_threshold`, chosen for a false-positive rate ≤ 5 % on human text of every domain measured.
 */
import { char4Table, FEATURE_NAMES, type FeatureName, type FeatureVector, type Vocabulary } from './features.js';

export interface AiTextModel {
  model: 'logistic-regression';
  features: FeatureName[];
  mean: number[];
  std: number[];
  weights: number[];
  bias: number;
  /** Word → log-ratio of its rate in machine vs human text (the `vocabulary_llr` feature). */
  vocabulary?: Record<string, number>;
  /** Character 4-gram → log-ratio of its rate in machine vs human text (the `char4_llr` feature). */
  char4?: Record<string, number>;
  /** Platt scaling of the log-odds, fitted on held-out (leave-one-domain-out) scores. */
  calibration?: { method: 'platt'; a: number; b: number };
  /** Below this many words the probability is 0.5: nothing to measure. */
  min_words: number;
  /** Below this many words the flag is never raised and the probability is shrunk toward 0.5. */
  min_flag_words: number;
  /** Calibrated probability at or above which the `ai_generated_text` flag is raised. */
  flag_threshold: number;
  data: Record<string, unknown>;
  evaluation: Record<string, unknown>;
}

export interface AiTextScore {
  /** The reported probability: calibrated, then shrunk toward 0.5 for short texts. */
  probability: number;
  /** The calibrated probability before shrinking for length. */
  calibrated: number;
  /** 0…1: how much of the calibrated verdict is kept (length shrinkage). */
  confidence: number;
  /** At least `min_words`: something was measured. */
  enoughText: boolean;
  /** At least `min_flag_words`: long enough for the flag. */
  longEnough: boolean;
  flagged: boolean;
  /** Feature contributions to the log-odds, largest magnitude first. */
  contributions: { feature: FeatureName; value: number; logit: number }[];
}

export function lengthConfidence(m: Pick<AiTextModel, 'min_words' | 'min_flag_words'>, wordCount: number): number {
  if (wordCount < m.min_words) return 0;
  if (wordCount >= m.min_flag_words) return 1;
  return (wordCount - m.min_words) / Math.max(1, m.min_flag_words - m.min_words);
}

const vocabularies = new WeakMap<AiTextModel, Vocabulary>();
/** The model's vocabulary table as a Map, built once per model object. */
export function vocabularyOf(m: AiTextModel): Vocabulary | undefined {
  if (!m.vocabulary) return undefined;
  let v = vocabularies.get(m);
  if (!v) {
    v = new Map(Object.entries(m.vocabulary));
    vocabularies.set(m, v);
  }
  return v;
}

const char4Tables = new WeakMap<AiTextModel, Vocabulary>();
/** The model's character 4-gram table as a Map, built once per model object. */
export function char4Of(m: AiTextModel): Vocabulary | undefined {
  if (!m.char4) return undefined;
  let v = char4Tables.get(m);
  if (!v) {
    v = char4Table(m.char4);
    char4Tables.set(m, v);
  }
  return v;
}

export const sigmoid = (x: number): number => 1 / (1 + Math.exp(-x));

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
  const calibrated = m.calibration ? sigmoid(m.calibration.a * z + m.calibration.b) : sigmoid(z);
  const confidence = lengthConfidence(m, wordCount);
  const longEnough = wordCount >= m.min_flag_words;
  contributions.sort((a, b) => Math.abs(b.logit) - Math.abs(a.logit));
  return {
    probability: 0.5 + (calibrated - 0.5) * confidence,
    calibrated,
    confidence,
    enoughText: wordCount >= m.min_words,
    longEnough,
    flagged: longEnough && calibrated >= m.flag_threshold,
    contributions,
  };
}

/** Score as the engine does: used by the fitting script's --evaluate mode, so its figures are the engine's. */
export function scoreText(m: AiTextModel, f: FeatureVector, wordCount: number): { probability: number; flagged: boolean } {
  const s = scoreFeatures(m, f, wordCount);
  return { probability: s.probability, flagged: s.flagged };
}

export const MODEL_FEATURES: readonly FeatureName[] = FEATURE_NAMES;
