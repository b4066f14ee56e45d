/** Turns a media/document request's `file`/`url`/`content` into bytes, within DESIGN.md limits. */
import { VerityError } from '../api/errors.js';
import { LIMITS } from '../api/requests.js';
import type { EnginePorts } from './types.js';

export interface BinaryInput {
  bytes: Buffer;
  /** Content-Type the server declared for a URL input (a hint only; type is by magic bytes). */
  declaredType: string | null;
  /** Where it came from, for evidence: the final URL, or "upload". */
  origin: string;
}

export function decodeBase64(data: string, field: string): Buffer {
  const bytes = Buffer.from(data, 'base64');
  if (bytes.length === 0)
    throw new VerityError('UNPROCESSABLE_CONTENT', `${field} decodes to zero bytes: there is nothing to analyse`);
  if (bytes.length > LIMITS.fileBytes)
    throw new VerityError('PAYLOAD_TOO_LARGE', `${field} is ${(bytes.length / 1048576).toFixed(1)} MB; the limit is ${LIMITS.fileBytes / 1048576} MB`);
  return bytes;
}

export async function loadBinary(
  input: { file?: string; url?: string },
  ports: EnginePorts,
  signal?: AbortSignal,
  field = 'file',
): Promise<BinaryInput> {
  if (input.file !== undefined) return { bytes: decodeBase64(input.file, field), declaredType: null, origin: 'upload' };
  if (input.url === undefined) throw new VerityError('VALIDATION_FAILED', 'one of `url` or `file` is required');
  const fetched = await ports.fetchInput(input.url, { signal });
  if (fetched.bytes.length === 0)
    throw new VerityError('UNPROCESSABLE_CONTENT', `The file at ${input.url} is empty: there is nothing to analyse`);
  return { bytes: fetched.bytes, declaredType: fetched.contentType, origin: fetched.finalUrl };
}
