/**
 * The default AI-text detector: stylometric features (features.ts) combined by the fitted,
 * calibrated logistic model whose parameters are in weights.json (fitted by
 * scripts/fit-ai-text.mjs on the data named inside that file, with its leave-one-domain-out figures).
 */
import { extractFeatures, type FeatureVector } from './features.js';
import { char4Of, scoreFeatures, vocabularyOf, type AiTextModel, type AiTextScore } from './model.js';
import weights from './weights.json' with { type: 'json' };

export const DEFAULT_MODEL = weights as unknown as AiTextModel;

export interface StylometricResult extends AiTextScore {
  wordCount: number;
  sentenceCount: number;
  model: AiTextModel;
  /** The text's features, for a passage that is the whole text (passages.ts). */
  features: FeatureVector;
}

export function detectAiTextStylometric(text: string, model: AiTextModel = DEFAULT_MODEL): StylometricResult {
  const { features, wordCount, sentenceCount } = extractFeatures(text, vocabularyOf(model), char4Of(model));
  return { ...scoreFeatures(model, features, wordCount), wordCount, sentenceCount, model, features };
}
