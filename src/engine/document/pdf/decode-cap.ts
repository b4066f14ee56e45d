/**
 * A size cap inside the bundled pdf.js's own decoders. The structure reader measures what a
 * document's streams decode to before pdf.js is given the file (bounded-inflate.ts), but a filter
 * chain it cannot measure (LZW or RunLength before Flate, say) went to pdf.js unbounded: a 0.5 MB
 * file whose [/RunLengthDecode /FlateDecode] content stream decodes to 512 MB of zeros took 6.4 s
 * and 629 MB of memory, and larger ones more. The build (scripts/build.mjs) patches pdf.js's
 * `DecodeStream.ensureBuffer` — through which every decoder (Flate, LZW, RunLength, the
 * predictors, ASCII filters) and the concatenation of a page's content streams grow their output —
 * to call `checkDecodeSize` before it grows a buffer (and native-flate.ts calls it for what zlib
 * inflated in one go).
 *
 * The caps are INFLATE_LIMITS': one stream's output at most `perStreamBytes`; a page's
 * concatenated content streams (pdf.js's StreamsSequenceStream, the one decoder with a `streams`
 * array) at most `documentBytes`. A document whose streams were measured within those caps never
 * reaches them here, so its results do not change; an unmeasured stream that would pass them
 * fails where it is read (pdf.js skips what it cannot read, as for a corrupt stream) instead of
 * taking the memory.
 *
 * A document-wide budget on top (DecodeBudget, set by the extraction thread for each reading):
 * the structure reader measures each stream object once, but pdf.js decodes a stream once per
 * reference, so one 63 MB stream named four times in each of ten pages' /Contents decoded
 * ~2.5 GB (20 s, 684 MB) although every stream passed its cap. Every byte a decoder adds counts
 * against the reading's budget; past it, every further decode fails at once, and the caller is
 * told (`exceeded`) so that it reports the reading as failed rather than as a partial text.
 */
import { INFLATE_LIMITS } from '../budget.js';

/** Counts the streams stopped here, on this thread (read by tests). */
const HITS = Symbol.for('verity.pdfjsDecodeCapHits');
/** The budget new streams count against (one reading at a time per thread). */
const CURRENT = Symbol.for('verity.pdfjsDecodeBudget');

/** Decoded bytes one pdf.js reading may produce in all; `limit` may be raised while it runs. */
export interface DecodeBudget {
  limit: number;
  used: number;
  /** Set once a decode was refused for going past `limit`. */
  exceeded: boolean;
  /** Called (once) when `exceeded` is first set. */
  onExceeded?: () => void;
}

/**
 * Starts a budget for the reading about to begin: streams first grown from now on count against it.
 */
export function startDecodeBudget(limit: number, onExceeded?: () => void): DecodeBudget {
  const b: DecodeBudget = { limit, used: 0, exceeded: false, onExceeded };
  (globalThis as unknown as Record<symbol, DecodeBudget>)[CURRENT] = b;
  return b;
}

type Counted = { streams?: unknown; __verityBudget?: DecodeBudget; __verityCounted?: number };

function refuse(message: string): never {
  const g = globalThis as unknown as Record<symbol, number>;
  g[HITS] = (g[HITS] ?? 0) + 1;
  throw new Error(message);
}

/**
 * How many bytes `stream` may still decode to (native-flate.ts bounds zlib's output by it, so a
 * stream past the budget is not inflated whole first).
 */
export function decodeAllowance(stream: Counted): number {
  const budget = stream.__verityBudget ?? (globalThis as unknown as Record<symbol, DecodeBudget | undefined>)[CURRENT];
  const perStream = INFLATE_LIMITS.perStreamBytes;
  if (!budget) return perStream;
  return Math.max(0, Math.min(perStream, budget.limit - budget.used + (stream.__verityCounted ?? 0)));
}

export function checkDecodeSize(stream: Counted, requested: number): void {
  const cap = Array.isArray(stream.streams) ? INFLATE_LIMITS.documentBytes : INFLATE_LIMITS.perStreamBytes;
  if (requested > cap) refuse(`a stream decodes past the ${cap / (1024 * 1024)} MB decompression cap; pdf.js stopped decoding it`);
  // A stream counts against the budget current when it first grows (a reading abandoned meanwhile
  // keeps its own, spent budget).
  const budget = (stream.__verityBudget ??= (globalThis as unknown as Record<symbol, DecodeBudget | undefined>)[CURRENT]);
  if (!budget) return;
  const grown = requested - (stream.__verityCounted ?? 0);
  if (grown <= 0) return;
  if (budget.exceeded || budget.used + grown > budget.limit) {
    if (!budget.exceeded) {
      budget.exceeded = true;
      budget.onExceeded?.();
    }
    refuse(`the document's streams decode past ${Math.round(budget.limit / (1024 * 1024))} MB in all; pdf.js stopped decoding`);
  }
  budget.used += grown;
  stream.__verityCounted = requested;
}
