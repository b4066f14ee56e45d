/** Turns a media/document request's `file`/`url`/`content` into bytes, within DESIGN.md limits. */
import { VerityError } from '../api/errors.js';
import { LIMITS } from '../api/requests.js';
import type { EnginePorts, VerifyOptions } from './types.js';

export interface BinaryInput {
  bytes: Buffer;
  /** Content-Type the server declared for a URL input (a hint only; type is by magic bytes). */
  declaredType: string | null;
  /** Where it came from, for evidence: the final URL, or "upload". */
  origin: string;
}

/** The checks every uploaded input gets, whether it came as base64 or as bytes. */
function checkedUpload(bytes: Buffer, field: string): Buffer {
  if (bytes.length === 0)
    throw new VerityError('UNPROCESSABLE_CONTENT', `${field} decodes to zero bytes: there is nothing to analyse`);
  if (bytes.length > LIMITS.fileBytes)
    throw new VerityError('PAYLOAD_TOO_LARGE', `${field} is ${(bytes.length / 1048576).toFixed(1)} MB; the limit is ${LIMITS.fileBytes / 1048576} MB`);
  return bytes;
}

/**
 * `VerifyOptions.inputFile`'s bytes. The caller checked the file when it chose it (its own error
 * names it); here it can only have gone or changed since, which is said without its path (on a
 * server it is a spool file, nothing of the client's).
 */
export async function readInputFile(path: string): Promise<Buffer> {
  const { readFile } = await import('node:fs/promises');
  try {
    return await readFile(path);
  } catch (err) {
    throw new VerityError('UNPROCESSABLE_CONTENT', `The input file could not be read when its analysis started (${(err as { code?: string }).code ?? 'error'}): it was removed or changed meanwhile`);
  }
}

export function decodeBase64(data: string, field: string): Buffer {
  return checkedUpload(Buffer.from(data, 'base64'), field);
}

/**
 * The uploaded input of a validated request: the caller's bytes when it handed them over
 * (`opts.inputBytes`, embedded mode), else the request's base64 `data`, decoded. Same checks and
 * errors either way.
 */
export function uploadedBytes(data: string, opts: Pick<VerifyOptions, 'inputBytes'>, field: string): Buffer {
  return opts.inputBytes ? checkedUpload(opts.inputBytes, field) : decodeBase64(data, field);
}

/** Which request field `VerifyOptions.inputBytes` stands for. */
export const INPUT_BYTES_FIELD = { media: 'file', document: 'content' } as const;

/**
 * A request with the caller's bytes put back into it as base64 (`inputBytes` → `file` or
 * `content`): what goes on the wire in remote mode, and what operations that read only the request
 * get.
 */
export function withInlineBytes<R extends object>(kind: keyof typeof INPUT_BYTES_FIELD, req: R, bytes: Buffer): R {
  return { ...req, [INPUT_BYTES_FIELD[kind]]: bytes.toString('base64') };
}

export async function loadBinary(
  input: { file?: string; url?: string },
  ports: EnginePorts,
  signal?: AbortSignal,
  field = 'file',
  opts: Pick<VerifyOptions, 'inputBytes'> = {},
): Promise<BinaryInput> {
  if (input.file !== undefined || opts.inputBytes) return { bytes: uploadedBytes(input.file ?? '', opts, field), declaredType: null, origin: 'upload' };
  if (input.url === undefined) throw new VerityError('VALIDATION_FAILED', 'one of `url` or `file` is required');
  const fetched = await ports.fetchInput(input.url, { signal });
  if (fetched.bytes.length === 0)
    throw new VerityError('UNPROCESSABLE_CONTENT', `The file at ${input.url} is empty: there is nothing to analyse`);
  return { bytes: fetched.bytes, declaredType: fetched.contentType, origin: fetched.finalUrl };
}
