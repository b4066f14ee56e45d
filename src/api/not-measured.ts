/**
 * Numbers nobody measured. SPEC fixes the shape of a result: every dimension and probability is a
 * number, so when there was nothing to measure (no dates in the file, no text, video frames that
 * are not read) the engine reports SPEC's neutral value — and says so in `warnings` with one line
 * of this fixed form, so that people (human output, the HTML report) see "not measured" instead
 * of a number that reads as a measurement, and scripts can tell the two apart:
 *
 *   not measured: recency (no dates in the file); 0.5 is the neutral value, not a measurement
 *
 * The line is written by the engine and read back from the warnings (remote results too).
 */
export type MeasuredField = 'source_authority' | 'cross_reference' | 'recency' | 'llm_analysis' | 'deepfake_score' | 'ai_generated_probability';

const LINE = /^not measured: ([a-z_]+) \((.+)\); [0-9.]+ is the neutral value, not a measurement$/;

export function notMeasuredWarning(field: MeasuredField, why: string, value: number): string {
  return `not measured: ${field} (${why.replace(/[()]/g, '')}); ${value} is the neutral value, not a measurement`;
}

/** Whether a warning is one of these lines. */
export const isNotMeasured = (w: string): boolean => LINE.test(w);

/** The fields a result's warnings mark as not measured, each with why. */
export function notMeasured(warnings: readonly string[] | undefined): Map<MeasuredField, string> {
  const out = new Map<MeasuredField, string>();
  for (const w of warnings ?? []) {
    const m = LINE.exec(w);
    if (m) out.set(m[1] as MeasuredField, m[2]!);
  }
  return out;
}
