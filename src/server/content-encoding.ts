/**
 * Request bodies are read as sent: the server does not decompress them (a gzip body is a
 * decompression bomb to bound, for no gain on JSON of at most 30 MB). A body with any
 * Content-Encoding but `identity` is refused 415, naming the encoding, instead of failing later
 * as JSON that does not parse (400). Checked in the body parsers (no hook on the hot path).
 */
import type { IncomingHttpHeaders } from 'node:http';
import { VerityError } from '../api/errors.js';

export function contentEncodingError(headers: IncomingHttpHeaders): VerityError | undefined {
  const given = headers['content-encoding'];
  if (given === undefined) return undefined;
  const codings = given
    .split(',')
    .map((c) => c.trim().toLowerCase())
    .filter((c) => c !== '' && c !== 'identity');
  if (!codings.length) return undefined;
  return new VerityError('UNSUPPORTED_MEDIA_TYPE', `Content-Encoding "${given.slice(0, 40)}" is not supported: send the body uncompressed`, {
    details: [{ field: 'content-encoding', issue: 'only identity (no encoding)' }],
  });
}
