/**
 * Document inputs (SPEC 4.4): `source` url | upload | raw. Binary inputs are typed by their magic
 * bytes, never by the `mime_type` hint or a server's Content-Type (both are only compared and
 * reported); limits are DESIGN.md's (20 MB decoded file, 1 MB raw text).
 */
import { VerityError } from '../../api/errors.js';
import type { DocumentRequest } from '../../api/requests.js';
import { uploadedBytes } from '../inputs.js';
import type { EnginePorts } from '../types.js';

export type DocumentKind = 'pdf' | 'docx' | 'image' | 'text';

export interface DocumentInput {
  kind: DocumentKind;
  bytes: Buffer;
  /** The text itself for `raw` input and uploaded plain-text files. */
  text?: string;
  /** MIME type by content (image subtypes from file-type). */
  mime: string;
  origin: string;
  warnings: string[];
}

const IMAGE_MIMES = new Set(['image/jpeg', 'image/png', 'image/webp', 'image/gif', 'image/tiff', 'image/heic', 'image/heif', 'image/avif', 'image/bmp']);

function sniffTextual(bytes: Buffer): string | undefined {
  let text: string;
  try {
    text = new TextDecoder('utf-8', { fatal: true }).decode(bytes);
  } catch {
    return undefined;
  }
  let control = 0;
  for (let i = 0; i < Math.min(text.length, 65_536); i++) {
    const c = text.charCodeAt(i);
    if (c < 0x20 && c !== 0x09 && c !== 0x0a && c !== 0x0d && c !== 0x0c) control++;
  }
  return control / Math.max(1, Math.min(text.length, 65_536)) < 0.01 ? text.replace(/^\uFEFF/, '') : undefined;
}

export async function detectKind(bytes: Buffer, hint: string | null): Promise<{ kind: DocumentKind; mime: string; text?: string }> {
  const head = bytes.subarray(0, 1024).toString('latin1');
  if (head.includes('%PDF-')) return { kind: 'pdf', mime: 'application/pdf' };
  if (bytes.length >= 4 && bytes.readUInt32BE(0) === 0x504b0304) return { kind: 'docx', mime: 'application/vnd.openxmlformats-officedocument.wordprocessingml.document' };
  const { fileTypeFromBuffer } = await import('file-type');
  const ft = await fileTypeFromBuffer(bytes).catch(() => undefined);
  if (ft && IMAGE_MIMES.has(ft.mime)) return { kind: 'image', mime: ft.mime };
  const h = (hint ?? '').toLowerCase();
  if (h === 'application/pdf')
    throw new VerityError('UNPROCESSABLE_CONTENT', 'the content was declared application/pdf but has no %PDF- header: it is not a PDF or it is truncated at the start');
  if (h.startsWith('image/'))
    throw new VerityError('UNPROCESSABLE_CONTENT', `the content was declared ${h} but is not a readable image (no known image signature)`);
  if (h.includes('wordprocessingml') || h === 'application/msword')
    throw new VerityError('UNPROCESSABLE_CONTENT', `the content was declared ${h} but is not a ZIP package, so it cannot be a DOCX`);
  if (ft) throw new VerityError('UNSUPPORTED_MEDIA_TYPE', `the file is ${ft.mime}; supported: PDF, DOCX, images (JPEG, PNG, WebP, GIF, TIFF, HEIC, AVIF) and text`);
  const text = sniffTextual(bytes);
  if (text !== undefined) return { kind: 'text', mime: 'text/plain', text };
  throw new VerityError('UNSUPPORTED_MEDIA_TYPE', 'the file type could not be recognised; supported: PDF, DOCX, images and text');
}

function baseMime(m: string | null | undefined): string | null {
  return m ? m.split(';')[0]!.trim().toLowerCase() : null;
}

const compatible = (declared: string, actual: string): boolean =>
  declared === actual || (declared === 'image/jpg' && actual === 'image/jpeg') || (declared.startsWith('text/') && actual === 'text/plain') || declared === 'application/octet-stream';

/** `inputBytes`: the uploaded file's bytes as the embedded CLI hands them over (no base64 round trip). */
export async function resolveDocumentInput(req: DocumentRequest, ports: EnginePorts, signal?: AbortSignal, inputBytes?: Buffer): Promise<DocumentInput> {
  if (req.source === 'raw') {
    if (!req.content.trim()) throw new VerityError('UNPROCESSABLE_CONTENT', 'the raw text is blank: there is nothing to analyse');
    return { kind: 'text', bytes: Buffer.from(req.content, 'utf8'), text: req.content, mime: 'text/plain', origin: 'raw', warnings: [] };
  }
  let bytes: Buffer;
  let declared: string | null = baseMime(req.mime_type);
  let origin = 'upload';
  if (req.source === 'upload') bytes = uploadedBytes(req.content, { inputBytes }, 'content');
  else {
    const fetched = await ports.fetchInput(req.content, { signal });
    if (fetched.bytes.length === 0) throw new VerityError('UNPROCESSABLE_CONTENT', `the file at ${req.content} is empty: there is nothing to analyse`);
    bytes = fetched.bytes;
    origin = fetched.finalUrl;
    declared = declared ?? baseMime(fetched.contentType);
  }
  const { kind, mime, text } = await detectKind(bytes, declared);
  const warnings: string[] = [];
  if (declared && !compatible(declared, mime)) warnings.push(`the declared type ${declared} does not match the content, which is ${mime}; the content decides`);
  return { kind, bytes, text, mime, origin, warnings };
}
