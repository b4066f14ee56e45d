/**
 * Flate for pdf.js through node:zlib. pdf.js inflates every stream with its own JavaScript
 * decoder (FlateStream, block by block), which on a cold thread is one of the larger costs of
 * opening a file and reading its pages' text (the cross-reference and object streams, every
 * content stream). The build (scripts/build.mjs) patches the bundled copy of pdf.js
 * (dist/pdfjs.cjs) so that the first `readBlock` of a FlateStream calls `inflateWholeStream`
 * first; pdf.js's own decoder runs whenever this declines, exactly as before.
 *
 * Results stay identical because zlib's output is used only when it is certainly what pdf.js
 * would have produced: the stream's bytes are read straight from the file's buffer (a plain
 * pdf.js `Stream`, nothing consumed: a refusal leaves pdf.js's state untouched), inflated as raw
 * deflate after the two header bytes pdf.js already checked (pdf.js, like raw inflate, ignores the
 * Adler-32 trailer), and kept only when zlib reached the final block without any error. A valid
 * deflate stream has one decoding; whatever zlib rejects — truncated, corrupt, a distance too far
 * back, over the size bound — goes to pdf.js's decoder, which is lenient in its own ways (it keeps
 * the blocks before a damaged one). Chained filters and decrypted streams (not a plain `Stream`)
 * stay with pdf.js too.
 *
 * Memory: pdf.js's decoder grows its buffer as far as the stream inflates; zlib stops at
 * INFLATE_LIMITS.perStreamBytes, or at what the reading's decode budget still allows
 * (decode-cap.ts), whichever is less (then pdf.js decodes it, as it always did). The streams of a
 * file
 * given to pdf.js were measured within the caps first (analyze.ts), so this bound is not reached
 * in practice; it keeps zlib from ever allocating more than pdf.js would have.
 */
import { inflateRawSync } from 'node:zlib';
import { checkDecodeSize, decodeAllowance } from './decode-cap.js';

/** The fields of pdf.js's `Stream` (the file's bytes, or a window on them) that are read here. */
interface PdfJsStream {
  bytes: Uint8Array;
  pos: number;
  end: number;
}

/** The fields of pdf.js's FlateStream (a DecodeStream) that are read or set here. */
interface PdfJsFlateStream {
  str: unknown;
  buffer: Uint8Array;
  bufferLength: number;
  eof: boolean;
  codeSize: number;
  codeBuf: number;
  /** DecodeStream's growth unit: 512, or the stream's expected length rounded up to 512·2^k. */
  minBufferLength: number;
}

/**
 * Called by the patched FlateStream.readBlock before its first block, with pdf.js's own `Stream`
 * class. True when the whole stream was inflated here (buffer filled, eof set); false when pdf.js
 * must decode it itself (nothing changed).
 */
export function inflateWholeStream(flate: PdfJsFlateStream, plainStream: abstract new (...args: never[]) => unknown): boolean {
  const src = flate.str as PdfJsStream;
  // Only a stream of the file's own bytes (not a subclass: a chunked stream may have gaps), before
  // any block was decoded.
  if (!src || Object.getPrototypeOf(src) !== plainStream.prototype) return false;
  if (flate.bufferLength !== 0 || flate.eof || flate.codeSize !== 0 || flate.codeBuf !== 0) return false;
  if (!Number.isInteger(flate.minBufferLength) || flate.minBufferLength < 1) return false;
  if (!(src.bytes instanceof Uint8Array) || !Number.isInteger(src.pos) || !Number.isInteger(src.end) || src.pos > src.end || src.end > src.bytes.length) return false;
  let out: Buffer;
  try {
    out = inflateRawSync(src.bytes.subarray(src.pos, src.end), { maxOutputLength: Math.max(1, decodeAllowance(flate as unknown as Parameters<typeof decodeAllowance>[0])) });
  } catch {
    return false;
  }
  // The buffer pdf.js's decoder would have ended with: its own (an ArrayBuffer of its own: a small
  // result of zlib can sit in Node's shared Buffer pool, and pdf.js may transfer, detach, what it
  // reads), of the capacity DecodeStream.ensureBuffer grows to — the capacity a getBytes(n) may
  // already have reserved, else the smallest minBufferLength·2^k holding the output — zero-filled
  // past the output. The capacity is visible: pdf.js reads the last object of an object stream
  // through a sub-stream that ends at the buffer's end, so an unterminated string there runs into
  // the zeros (review finding: an exact-size buffer read such a /Title without them).
  // Counted against the reading's decode budget as pdf.js's own decoder would be (throws past it).
  checkDecodeSize(flate as unknown as Parameters<typeof checkDecodeSize>[0], out.length);
  let capacity = flate.buffer.byteLength;
  if (out.length > capacity) {
    capacity = flate.minBufferLength;
    while (capacity < out.length) capacity *= 2;
  }
  const buffer = new Uint8Array(capacity);
  buffer.set(out);
  flate.buffer = buffer;
  flate.bufferLength = out.length;
  flate.eof = true;
  return true;
}
