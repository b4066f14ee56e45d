/**
 * "Not eligible": the simple reader met something it cannot reproduce pdf.js on with certainty.
 * Thrown deep inside the readers and caught once at the entry point, where it becomes the
 * outcome's short, stable `reason` (the differential corpus histograms these phrases).
 */
export class Ineligible extends Error {
  constructor(readonly reason: string) {
    super(reason);
  }
}

export function ineligible(reason: string): never {
  throw new Ineligible(reason);
}
