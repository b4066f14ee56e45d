/** Small numeric helpers every operation's scoring uses, so results round and clamp alike. */

export const clamp01 = (x: number): number => (Number.isFinite(x) ? Math.min(1, Math.max(0, x)) : 0);

/** Scores go out with three decimals: enough to rank, without false precision. */
export const round3 = (x: number): number => Math.round(clamp01(x) * 1000) / 1000;

/** Weighted mean of [value, weight] pairs; `fallback` when the weights sum to zero. */
export function weightedMean(pairs: ReadonlyArray<readonly [number, number]>, fallback = 0.5): number {
  let sum = 0;
  let weights = 0;
  for (const [v, w] of pairs) {
    sum += v * w;
    weights += w;
  }
  return weights > 0 ? sum / weights : fallback;
}

export const sigmoid = (x: number): number => 1 / (1 + Math.exp(-x));

/** Probability-style "noisy OR": at least one of several independent signals fired. */
export const noisyOr = (ps: readonly number[]): number => 1 - ps.reduce((acc, p) => acc * (1 - clamp01(p)), 1);
