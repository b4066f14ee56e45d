/**
 * Flate decoding that stops when a budget says so. zlib itself stops producing output at
 * `maxOutputLength` (it checks as each chunk arrives), so a bomb costs at most the cap in memory
 * and the time to produce it — never its full inflated size.
 */
import { inflateSync, constants as zc } from 'node:zlib';
import type { InflateBudget } from '../budget.js';

export type Inflated = { data: Buffer; capped: false } | { data: undefined; capped: true } | { data: undefined; capped: false };

/** Inflates `raw` within what `budget` has left; `capped` when the cap cut it off, data undefined when it is not valid Flate data. */
export function inflateBounded(raw: Buffer, budget: InflateBudget): Inflated {
  const cap = budget.nextCap();
  const perStreamHit = cap === budget.limits.perStreamBytes;
  if (cap === 0) {
    budget.note(0, true, false);
    return { data: undefined, capped: true };
  }
  try {
    // Z_SYNC_FLUSH: truncated streams (common in damaged files) still yield what they hold.
    const data = inflateSync(raw, { finishFlush: zc.Z_SYNC_FLUSH, maxOutputLength: cap });
    budget.note(data.length, false, false);
    return { data, capped: false };
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ERR_BUFFER_TOO_LARGE' || err instanceof RangeError) {
      budget.note(cap, true, perStreamHit);
      return { data: undefined, capped: true };
    }
    return { data: undefined, capped: false };
  }
}

/**
 * Inflates (and throws away) every stream pdf.js would decode to read text and metadata — all
 * but images, which text extraction never decodes — until the budget runs out. pdf.js has no
 * output limit of its own, so a document that would go past a cap is not handed to it at all.
 * Returns the cap that was hit, or undefined when the document stays within the caps.
 */
export function exceedsInflateCaps(bytes: Buffer, streams: Iterable<{ raw: Buffer; flate: boolean }>, budget: InflateBudget): string | undefined {
  void bytes;
  if (budget.exceeded) return budget.exceeded;
  for (const st of streams) {
    if (!st.flate) continue;
    inflateBounded(st.raw, budget);
    if (budget.exceeded) return budget.exceeded;
  }
  return undefined;
}
