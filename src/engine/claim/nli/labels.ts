/**
 * Which logit is which: NLI checkpoints disagree on the order (MNLI-trained cross-encoders put
 * contradiction first, others entailment first), so the order is read from the model's own
 * config.json `id2label`, never assumed.
 */
export interface LabelIndex {
  entailment: number;
  neutral: number;
  contradiction: number;
  /** How many logits the model emits (id2label's size). */
  count: number;
}

const NAMES: Record<string, keyof Omit<LabelIndex, 'count'>> = {
  entailment: 'entailment',
  entails: 'entailment',
  neutral: 'neutral',
  contradiction: 'contradiction',
  contradicts: 'contradiction',
};

/** Returns the indices, or a sentence saying what is wrong with `id2label`. */
export function labelIndex(config: unknown): LabelIndex | string {
  const id2label = (config as { id2label?: unknown } | null)?.id2label;
  if (!id2label || typeof id2label !== 'object') return 'config.json has no id2label';
  const found: Partial<LabelIndex> = {};
  let count = 0;
  for (const [id, label] of Object.entries(id2label as Record<string, unknown>)) {
    const i = Number(id);
    if (!Number.isInteger(i) || i < 0 || typeof label !== 'string') return `id2label has an invalid entry "${id}"`;
    count = Math.max(count, i + 1);
    const name = NAMES[label.trim().toLowerCase()];
    if (name) found[name] = i;
  }
  const missing = (['entailment', 'neutral', 'contradiction'] as const).filter((k) => found[k] === undefined);
  if (missing.length) return `id2label names no ${missing.join(' / ')} label (got ${JSON.stringify(id2label)}); a three-way NLI model is needed`;
  return { entailment: found.entailment!, neutral: found.neutral!, contradiction: found.contradiction!, count };
}
