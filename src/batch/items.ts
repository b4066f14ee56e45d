/**
 * Batch items: records checked against the single-verification request schemas (the same zod
 * schemas the engine and the service use) before any work, and turned into requests one at a
 * time while the batch runs (files are read then, not all up front).
 *
 * Item fields are those of the single requests, plus:
 * - `custom_id` (optional; default `line-N`, or the relative path for a folder) and `type`;
 * - `file` for media and document as a PATH (like `verity verify media --file`), resolved against
 *   the input file's folder; a `file` value of base64 characters only, at least 64 long, is taken
 *   as the data itself (the service's form). Documents also take `url`, and `source`/`content`.
 */
import { createHash } from 'node:crypto';
import { accessSync, constants, statSync } from 'node:fs';
import { open, readFile } from 'node:fs/promises';
import { isAbsolute, join } from 'node:path';
import type { z } from 'zod';
import { VerityError, type ErrorDetail } from '../api/errors.js';
import { issueDetails, otherKind } from '../api/issue-text.js';
import { BusinessRequest, ClaimRequest, DocumentRequest, LIMITS, MediaRequest } from '../api/requests.js';
import type { BatchSource } from './input.js';

import { ITEM_TYPES, type ItemType } from './kinds.js';

export { ITEM_TYPES, type ItemType };

const SCHEMAS: Record<ItemType, z.ZodType> = { claim: ClaimRequest, business: BusinessRequest, media: MediaRequest, document: DocumentRequest };

/** A custom_id: what callers use to join results to their rows. */
const CUSTOM_ID_MAX = 256;

/** The service's inline form of `file`: base64 only (no dot or other path character), and not short. */
const INLINE_BASE64 = /^[A-Za-z0-9+/\r\n]{64,}={0,2}[\r\n]*$/;

export interface BatchItem {
  /** 0-based position among the batch's items. */
  index: number;
  /** 1-based line of the input (the position in the listing for a folder). */
  line: number;
  custom_id: string;
  type: ItemType;
  /** The request as written, with any file path taken out into `file`. */
  request: Record<string, unknown>;
  /** A file to read when the item runs: into `into` as base64 (or as text for raw documents). */
  file?: { path: string; into: 'file' | 'content'; encoding: 'base64' | 'utf8' };
}

export interface CheckOptions {
  /** `--type`: the type of lines that carry none. */
  type?: ItemType;
  /**
   * Read `file` as a local path (the CLI). Off by default: a service checking items it was sent
   * must never open paths on its own disk; there `file` is always the base64 data.
   */
  filePaths?: boolean;
  /** How a problem is named; default `line 12 (claim)` (a service might say `items[11].claim`). */
  name?: (rec: { line: number; path?: string }, field?: string) => string;
}

/** How problems are named: `line 12 (claim)`, or the relative path for a folder entry. */
const lineName = (rec: { line: number; path?: string }, field?: string): string => {
  const where = rec.path ?? `line ${rec.line}`;
  return field ? `${where} (${field})` : where;
};

/** A file named by an item: a readable regular file of 1 byte to 20 MB. Returns the problem, if any. */
function fileProblem(path: string): string | undefined {
  let size: number;
  try {
    const st = statSync(path);
    if (!st.isFile()) return `${path} is not a regular file`;
    size = st.size;
    accessSync(path, constants.R_OK);
  } catch {
    return `no such file or not readable: ${path}`;
  }
  if (size === 0) return `${path} is empty (0 bytes)`;
  if (size > LIMITS.fileBytes) return `${path} is ${(size / 1048576).toFixed(1)} MB; the limit is ${LIMITS.fileBytes / 1048576} MB`;
  return undefined;
}

/**
 * Checks every record: type, custom_id (present or derived, unique), the request against its
 * schema, files named. All problems are collected, so one run of the command names them all.
 * Throws VALIDATION_FAILED naming the line and field; returns the items when all are good.
 */
export function checkItems(src: BatchSource, o: CheckOptions = {}): BatchItem[] {
  const problems: ErrorDetail[] = [...src.problems];
  const at = o.name ?? lineName;
  const items: BatchItem[] = [];
  const seen = new Map<string, number>();
  for (const rec of src.records) {
    const { custom_id: rawId, type: rawType, ...request } = rec.fields;
    const before = problems.length;
    // custom_id
    let customId: string;
    if (rawId === undefined) customId = rec.path ?? `line-${rec.line}`;
    else if (typeof rawId !== 'string' || !rawId.trim() || rawId.length > CUSTOM_ID_MAX || /[\u0000-\u001f\u007f]/.test(rawId)) {
      problems.push({ field: at(rec, 'custom_id'), issue: `must be a string of 1 to ${CUSTOM_ID_MAX} characters without control characters` });
      customId = '';
    } else customId = rawId;
    if (customId) {
      const first = seen.get(customId);
      if (first !== undefined) problems.push({ field: at(rec, 'custom_id'), issue: `"${customId}" is also the custom_id of line ${first}; each must be unique` });
      else seen.set(customId, rec.line);
    }
    // type
    const type = rawType ?? o.type;
    if (type === undefined) {
      problems.push({ field: at(rec, 'type'), issue: 'required: give --type or a "type" field on each line' });
      continue;
    }
    if (typeof type !== 'string' || !(ITEM_TYPES as readonly string[]).includes(type)) {
      problems.push({ field: at(rec, 'type'), issue: `must be one of ${ITEM_TYPES.join(', ')}` });
      continue;
    }
    const t = type as ItemType;
    if (src.kind === 'folder' && t !== 'media' && t !== 'document') {
      problems.push({ field: 'type', issue: 'a folder is read as files: use --type media or --type document' });
      break;
    }
    // files named by path
    let file: BatchItem['file'];
    const probe: Record<string, unknown> = { ...request };
    if (o.filePaths && (t === 'media' || t === 'document') && typeof request.file === 'string' && !INLINE_BASE64.test(request.file)) {
      const path = isAbsolute(request.file) ? request.file : join(src.baseDir, request.file);
      const bad = fileProblem(path);
      if (bad) problems.push({ field: at(rec, 'file'), issue: bad });
      delete request.file;
      if (t === 'media') {
        file = { path, into: 'file', encoding: 'base64' };
        probe.file = 'AAAA'; // a stand-in: the schema checks the other fields now, the bytes are read when the item runs
      } else {
        if (request.content !== undefined) problems.push({ field: at(rec, 'file'), issue: 'give either `file` or `content`, not both' });
        const raw = request.source === 'raw';
        file = { path, into: 'content', encoding: raw ? 'utf8' : 'base64' };
        request.source = raw ? 'raw' : 'upload';
        delete probe.file;
        probe.source = request.source;
        probe.content = raw ? 'text' : 'AAAA';
      }
    } else if (t === 'document') {
      // The CLI's shorthands: `file` as inline base64, `url`, and `content` without `source`.
      if (typeof request.file === 'string') {
        request.source ??= 'upload';
        request.content = request.file;
        delete request.file;
      } else if (typeof request.url === 'string') {
        request.source ??= 'url';
        request.content = request.url;
        delete request.url;
      } else if (typeof request.content === 'string' && request.source === undefined) {
        request.source = /^https?:\/\//i.test(request.content) ? 'url' : 'raw';
      }
      Object.assign(probe, request);
      delete probe.file;
      delete probe.url;
    }
    const r = SCHEMAS[t].safeParse(probe);
    if (!r.success) {
      const details = issueDetails(r.error.issues);
      // A line of another kind (`{"company_name": …}` under --type claim) is one problem, not
      // "claim: required" plus one line per field it does have.
      const other = otherKind(t, details);
      if (other) problems.push({ field: at(rec, undefined), issue: `${other.text}: give it "type": "${other.kind}", or use --type ${other.kind} for the whole file` });
      else for (const d of details) problems.push({ field: at(rec, d.field === '(body)' ? undefined : d.field), issue: d.issue });
    }
    if (problems.length === before) items.push({ index: items.length, line: rec.line, custom_id: customId, type: t, request, ...(file ? { file } : {}) });
  }
  if (problems.length) {
    const first = problems[0]!;
    const more = problems.length > 1 ? ` (and ${problems.length - 1} more problem${problems.length > 2 ? 's' : ''})` : '';
    throw new VerityError('VALIDATION_FAILED', `Invalid batch input: ${first.field}: ${first.issue}${more}; nothing was run`, {
      // Bounded: a broken 100,000-line file must not print 100,000 lines.
      details: problems.slice(0, 50),
    });
  }
  return items;
}

/** Keys sorted at every depth, so the same request always serialises the same way. */
export function canonicalJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(',')}]`;
  if (value !== null && typeof value === 'object')
    return `{${Object.keys(value)
      .filter((k) => (value as Record<string, unknown>)[k] !== undefined)
      .sort()
      .map((k) => `${JSON.stringify(k)}:${canonicalJson((value as Record<string, unknown>)[k])}`)
      .join(',')}}`;
  return JSON.stringify(value);
}

/**
 * The Idempotency-Key of an item: a hash of its type and canonical request (defaults applied,
 * file bytes included), so a re-run after a crash sends the same key and is never charged twice.
 */
export function idempotencyKey(type: ItemType, request: Record<string, unknown>): string {
  const parsed = SCHEMAS[type].safeParse(request);
  const canonical = canonicalJson(parsed.success ? parsed.data : request);
  return `vb-${type}-${createHash('sha256').update(`${type}\n${canonical}`).digest('hex')}`;
}

/** The bytes of an item's file, read now (it may have changed or gone since the batch was checked). */
async function readItemFile(file: NonNullable<BatchItem['file']>): Promise<Buffer> {
  let bytes: Buffer;
  try {
    bytes = await readFile(file.path);
  } catch {
    throw new VerityError('VALIDATION_FAILED', `Cannot read ${file.path}`, { details: [{ field: 'file', issue: 'file not found or not readable' }] });
  }
  if (bytes.length === 0) throw new VerityError('UNPROCESSABLE_CONTENT', `${file.path} is empty (0 bytes): there is nothing to analyse`);
  if (bytes.length > LIMITS.fileBytes) throw new VerityError('PAYLOAD_TOO_LARGE', `${file.path} is over ${LIMITS.fileBytes / 1048576} MB`);
  return bytes;
}

/** The request of an item as the single call would send it (its file read now), and its key. */
export async function materialize(item: BatchItem): Promise<{ request: Record<string, unknown>; key: string }> {
  const request = { ...item.request };
  if (item.file) request[item.file.into] = (await readItemFile(item.file)).toString(item.file.encoding);
  return { request, key: idempotencyKey(item.type, request) };
}

/** Base64 characters that stand for the file while the key's canonical JSON is built (see bytesKey). */
const KEY_STAND_IN = 'VerityFileBytesStandIn00';

/**
 * idempotencyKey() of the request with `bytes` as base64 in `field`, without running the schema
 * and the canonical JSON over megabytes of base64 (~12 ms of CPU for a 3 MB photo): the schema
 * does not change a base64 string, so the canonical text is that of a stand-in with the stand-in
 * replaced. The same key as materialize() gives, so journals and server batches match either way.
 */
export function bytesKey(type: ItemType, request: Record<string, unknown>, field: string, bytes: Buffer): string {
  const parts = keyParts(type, request, field);
  if (!parts) return idempotencyKey(type, { ...request, [field]: bytes.toString('base64') });
  const sha = createHash('sha256').update(`${type}\n${parts[0]}"`);
  for (const piece of base64Pieces(bytes)) sha.update(piece);
  return `vb-${type}-${sha.update(`"${parts[1]}`).digest('hex')}`;
}

/** The canonical text of the request around the file's base64, or undefined when it cannot be split so. */
function keyParts(type: ItemType, request: Record<string, unknown>, field: string): [string, string] | undefined {
  const probe = { ...request, [field]: KEY_STAND_IN };
  const parsed = SCHEMAS[type].safeParse(probe);
  const parts = canonicalJson(parsed.success ? parsed.data : probe).split(`"${KEY_STAND_IN}"`);
  return parts.length === 2 ? [parts[0]!, parts[1]!] : undefined;
}

/** Bytes a base64 piece stands for: a multiple of 3, so the pieces join into the whole's base64. */
const PIECE_BYTES = 3 * 64 * 1024;

/** The base64 of `bytes` in pieces of 256 KB: no string as large as the file (a photo's 4 MB) to make and collect. */
export function* base64Pieces(bytes: Buffer): Generator<string> {
  for (let i = 0; i < bytes.length; i += PIECE_BYTES) yield bytes.toString('base64', i, Math.min(bytes.length, i + PIECE_BYTES));
}

/**
 * An item as materializeBytes() gives it, but a file that goes as base64 stays where it is
 * (`file`, for VerifyOptions.inputFile: the analysis pool's worker reads it): the key is hashed
 * from the file in pieces of 192 KB, so this process never holds the whole file (a batch of
 * photos then keeps no photo in the CLI's own memory). Same checks, errors and key as
 * materializeBytes(). The worker reads the file again when the item starts; a file changed in
 * that moment is analysed as it is then.
 */
export async function materializeFile(item: BatchItem): Promise<{ request: Record<string, unknown>; file?: string; key: string }> {
  if (!item.file || item.file.encoding !== 'base64') return materialize(item);
  const request = { ...item.request };
  const parts = keyParts(item.type, request, item.file.into);
  if (!parts) return materializeBytes(item);
  const path = item.file.path;
  const cannotRead = (): VerityError => new VerityError('VALIDATION_FAILED', `Cannot read ${path}`, { details: [{ field: 'file', issue: 'file not found or not readable' }] });
  const fh = await open(path, 'r').catch(() => {
    throw cannotRead();
  });
  try {
    const sha = createHash('sha256').update(`${item.type}\n${parts[0]}"`);
    // A multiple of 3 bytes a piece, so the pieces' base64 joins into the whole file's.
    const buf = Buffer.allocUnsafe(PIECE_BYTES);
    let size = 0;
    for (;;) {
      let filled = 0;
      while (filled < buf.length) {
        const { bytesRead } = await fh.read(buf, filled, buf.length - filled, null).catch(() => {
          throw cannotRead();
        });
        if (bytesRead === 0) break;
        filled += bytesRead;
      }
      if (filled === 0) break;
      size += filled;
      if (size > LIMITS.fileBytes) throw new VerityError('PAYLOAD_TOO_LARGE', `${path} is over ${LIMITS.fileBytes / 1048576} MB`);
      sha.update(buf.toString('base64', 0, filled));
      if (filled < buf.length) break;
    }
    if (size === 0) throw new VerityError('UNPROCESSABLE_CONTENT', `${path} is empty (0 bytes): there is nothing to analyse`);
    return { request, file: path, key: `vb-${item.type}-${sha.update(`"${parts[1]}`).digest('hex')}` };
  } finally {
    await fh.close().catch(() => undefined);
  }
}

/**
 * An item as materialize() gives it, but a file that goes as base64 stays bytes (`bytes`, for
 * VerifyOptions.inputBytes; the request then lacks the field): no base64 string to build, copy
 * to a worker thread and decode again. Text read as text is put in the request as before.
 */
export async function materializeBytes(item: BatchItem): Promise<{ request: Record<string, unknown>; bytes?: Buffer; key: string }> {
  if (!item.file || item.file.encoding !== 'base64') return materialize(item);
  const bytes = await readItemFile(item.file);
  const request = { ...item.request };
  return { request, bytes, key: bytesKey(item.type, request, item.file.into, bytes) };
}
