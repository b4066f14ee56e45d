/**
 * A package part's bytes, inflated by zlib (node:zlib, native) instead of jszip's pako (JavaScript,
 * fed through 16 kB asynchronous chunks): the 1 MB main document part of a 4 MB DOCX inflated in
 * ~3 ms instead of ~30–40 ms. jszip still reads the ZIP directory; its entry keeps the compressed
 * bytes and the method. Anything unusual (another method, a corrupt stream, a size other than the
 * declared one) is left to jszip, whose errors the callers answer 422 (corruptPartError); a
 * stream that inflates past `maxBytes` is stopped by zlib itself (`maxOutputLength`).
 */
import { inflateRawSync } from 'node:zlib';
import type { VerityError } from '../../../api/errors.js';
import { unreadablePart } from '../xml-budget.js';

type ZipObject = import('jszip').JSZipObject;

interface CompressedEntry {
  compressedContent?: Uint8Array;
  uncompressedSize?: number;
  compression?: { magic?: string };
}

const STORE = '\x00\x00';
const DEFLATE = '\x08\x00';

/** jszip failed to read a part (a corrupt stream, a size other than declared): the file's fault, 422 naming the part. */
export function corruptPartError(path: string, err: unknown): VerityError {
  // jszip words some of these as its own bug ("Bug : uncompressed data size mismatch"); they are the file's.
  const cause = String((err as Error)?.message ?? err).replace(/^Bug\s*:\s*/, '').slice(0, 200);
  return unreadablePart(`the DOCX part ${path}`, `its compressed data is corrupt (${cause})`);
}

/** The part's bytes, or undefined when jszip should read it (see above); 'too-large' past `maxBytes`. */
export function inflatePart(file: ZipObject, maxBytes: number): Buffer | 'too-large' | undefined {
  const entry = (file as unknown as { _data?: CompressedEntry })._data;
  const content = entry?.compressedContent;
  const size = entry?.uncompressedSize;
  if (!(content instanceof Uint8Array) || typeof size !== 'number') return undefined;
  let out: Buffer;
  if (entry!.compression?.magic === STORE) out = Buffer.from(content.buffer, content.byteOffset, content.byteLength);
  else if (entry!.compression?.magic === DEFLATE) {
    try {
      out = inflateRawSync(content, { maxOutputLength: maxBytes });
    } catch (err) {
      if ((err as { code?: string }).code === 'ERR_BUFFER_TOO_LARGE') return 'too-large';
      return undefined;
    }
  } else return undefined;
  return out.length === size ? out : undefined;
}
