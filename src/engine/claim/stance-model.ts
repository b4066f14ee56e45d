/**
 * The shape of the local stance model: its labels and weight layout. Its own module so the
 * generated weights (claim-weights.ts) and the code that reads them (stance.ts) both depend on it
 * and not on each other.
 */
export const STANCES = ['supports', 'refutes', 'neutral'] as const;
export type StanceLabel = (typeof STANCES)[number];

export interface StanceModel {
  features: readonly string[];
  classes: readonly StanceLabel[];
  /** weights[class][feature] */
  weights: readonly (readonly number[])[];
}
