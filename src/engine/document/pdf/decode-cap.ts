/**
 * A size cap inside the bundled pdf.js's own decoders. The structure reader measures what a
 * document's streams decode to before pdf.js is given the file (bounded-inflate.ts), but a filter
 * chain it cannot measure (LZW or RunLength before Flate, say) went to pdf.js unbounded: a 0.5 MB
 * file whose [/RunLengthDecode /FlateDecode] content stream decodes to 512 MB of zeros took 6.4 s
 * and 629 MB of memory, and larger ones more. The build (scripts/build.mjs) patches pdf.js's
 * `DecodeStream.ensureBuffer` — through which every decoder (Flate, LZW, RunLength, the
 * predictors, ASCII filters) and the concatenation of a page's content streams grow their output —
 * to call `checkDecodeSize` before it grows a buffer.
 *
 * The caps are INFLATE_LIMITS': one stream's output at most `perStreamBytes`; a page's
 * concatenated content streams (pdf.js's StreamsSequenceStream, the one decoder with a `streams`
 * array) at most `documentBytes`. A document whose streams were measured within those caps never
 * reaches them here, so its results do not change; an unmeasured stream that would pass them
 * fails where it is read (pdf.js skips what it cannot read, as for a corrupt stream) instead of
 * taking the memory.
 */
import { INFLATE_LIMITS } from '../budget.js';

/** Counts the streams stopped here, on this thread (read by tests). */
const HITS = Symbol.for('verity.pdfjsDecodeCapHits');

export function checkDecodeSize(stream: { streams?: unknown }, requested: number): void {
  const cap = Array.isArray(stream.streams) ? INFLATE_LIMITS.documentBytes : INFLATE_LIMITS.perStreamBytes;
  if (requested <= cap) return;
  const g = globalThis as unknown as Record<symbol, number>;
  g[HITS] = (g[HITS] ?? 0) + 1;
  throw new Error(`a stream decodes past the ${cap / (1024 * 1024)} MB decompression cap; pdf.js stopped decoding it`);
}
