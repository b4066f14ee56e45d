/**
 * A streamed batch (issue 31): POST /v1/batches with an NDJSON body, read line by line as it
 * arrives instead of whole (the JSON form and, before, NDJSON were read whole under the 30 MB body
 * limit). Each line is checked as it comes (the same checks as the JSON form, input.ts), and a
 * media `file` or an uploaded document's `content` is decoded and written to the batch spool
 * (spool.ts) at once, so the server holds one line at a time whatever the batch's size. Bounded:
 * a line at most STREAM_LIMITS.lineBytes, the body at most STREAM_LIMITS.bodyBytes, the items at
 * most the plan's batch size, the problems listed at most MAX_DETAILS (reading stops there).
 */
import { createHash } from 'node:crypto';
import { finished } from 'node:stream/promises';
import { VerityError, type ErrorDetail } from '../../api/errors.js';
import type { VerificationKind } from '../../api/ids.js';
import type { AuthInfo } from '../types.js';
import { checkHead, itemChecker, type ParsedBatch } from './input.js';
import { MAX_DETAILS } from './limits.js';
import { fileLines } from './file-lines.js';
import { SPOOLED, type Staging } from './spool.js';
import { LIMITS } from '../../api/requests.js';

/**
 * Values longer than this (bytes of JSON string) are decoded to the spool as they arrive instead
 * of being kept with their line (file-lines.ts): a media file at once (64 KB of base64 is no
 * concern); an upload's `content` only past what raw text may take even fully escaped (6 bytes a
 * byte for `\u00XX`), so a `content` that is raw text or a URL is never taken for a file.
 */
export const SPILL_AT: Record<string, number> = { file: 64 * 1024, content: 6 * LIMITS.rawTextBytes + 1024 };

export const STREAM_LIMITS = {
  /** One line: a 20 MB file as base64 (26.7 MB) and the rest of its request. */
  lineBytes: 28 * 1024 * 1024,
  /** One streamed body, and so the files one batch spools. */
  bodyBytes: 2 * 1024 * 1024 * 1024,
};

const mb = (n: number): string => `${Math.round(n / 1048576)} MB`;
const tooLarge = (what: string, field: string, issue: string): VerityError => new VerityError('PAYLOAD_TOO_LARGE', what, { details: [{ field, issue }] });
const invalid = (details: ErrorDetail[]): VerityError =>
  new VerityError('VALIDATION_FAILED', `Invalid NDJSON batch: ${details[0]!.field} ${details[0]!.issue}`, { details });

/** Which field of a checked request holds file bytes as base64, if any. */
function fileField(type: VerificationKind, request: Record<string, unknown>): 'file' | 'content' | undefined {
  if (type === 'media' && typeof request.file === 'string') return 'file';
  if (type === 'document' && request.source === 'upload' && typeof request.content === 'string') return 'content';
  return undefined;
}

/**
 * Reads a streamed NDJSON batch: a first line `{"type": …, "metadata": …}` (or `?type=`), then
 * one item a line. Files go to `staging` as they arrive; the items returned carry `$spooled`
 * instead. `hash` is the body's SHA-256 (for the Idempotency-Key's request hash).
 */
export async function readStreamedBatch(
  body: AsyncIterable<Buffer | string>,
  queryType: string | undefined,
  auth: Pick<AuthInfo, 'plan'>,
  staging: Staging,
  limits = STREAM_LIMITS,
): Promise<{ parsed: ParsedBatch; hash: string }> {
  const sha = createHash('sha256');
  const seen = { bytes: 0 };
  const details: ErrorDetail[] = [];
  let head: { type: VerificationKind; metadata: Record<string, string> | null } | undefined;
  let checker: ReturnType<typeof itemChecker> | undefined;
  const items: ParsedBatch['items'] = [];
  let lineNo = 0;
  const hashed = (async function* () {
    for await (const raw of body) {
      const chunk = typeof raw === 'string' ? Buffer.from(raw) : raw;
      seen.bytes += chunk.length;
      if (seen.bytes > limits.bodyBytes)
        throw tooLarge(`A streamed batch may be at most ${mb(limits.bodyBytes)}; split it into several batches`, 'body', `at most ${mb(limits.bodyBytes)}`);
      sha.update(chunk);
      yield chunk;
    }
  })();
  const lines = fileLines(hashed, {
    max: limits.lineBytes,
    spillAt: SPILL_AT,
    sink: { open: () => staging.spillFile() },
    onTooLong: () => tooLarge(`A batch line may be at most ${mb(limits.lineBytes)} (a 20 MB file as base64 and its fields)`, 'line', `at most ${mb(limits.lineBytes)}`),
  });
  for await (const { text: bytes, spilled } of lines) {
    lineNo++;
    // A file decoded to disk as its line arrived: written whole before the line is judged.
    if (spilled) await spilled.done;
    let adopted = false;
    try {
      const text = bytes.toString('utf8').trim();
      if (!text) continue;
      let value: unknown;
      try {
        value = JSON.parse(text);
      } catch {
        details.push({ field: `line ${lineNo}`, issue: 'is not valid JSON' });
      }
      if (value !== undefined && (value === null || typeof value !== 'object' || Array.isArray(value))) details.push({ field: `line ${lineNo}`, issue: 'must be a JSON object' });
      if (details.length >= MAX_DETAILS) break;
      if (details.length) continue;
      const obj = value as Record<string, unknown>;
      // A header line (first non-empty line, no custom_id, has type) sets the batch's type and metadata.
      if (!head && !('custom_id' in obj) && 'type' in obj) {
        if (queryType !== undefined && obj.type !== queryType) throw invalid([{ field: `line ${lineNo}.type`, issue: `differs from the query's type "${String(queryType)}"` }]);
        // (Its other fields are not read: a long one spilled is removed below, unread.)
        head = checkHead(obj.type, obj.metadata, auth);
        continue;
      }
      head ??= checkHead(queryType, undefined, auth);
      checker ??= itemChecker(head.type, auth);
      const index = checker.count;
      const item = checker.check(obj, index);
      const field = item ? fileField(head.type, item.request) : undefined;
      // A value long enough to be spilled where no file belongs (raw text, a URL, a header): refused,
      // as its full text would have been (raw text is at most 1 MB, far under SPILL_AT.content).
      if (spilled && item && field !== spilled.key) checker.details.push({ field: `items[${index}].${spilled.key}`, issue: `is ${mb(spilled.bytes)} or more: only a file's base64 may be this long` });
      if (checker.details.length >= MAX_DETAILS) break;
      if (!item || checker.details.length) continue;
      if (field) {
        if (spilled) {
          await staging.adopt(index, spilled.path, spilled.bytes);
          adopted = true;
        } else await staging.put(index, Buffer.from(item.request[field] as string, 'base64'));
        delete item.request[field];
        item.request[SPOOLED] = true;
      }
      items.push(item);
    } finally {
      if (spilled && !adopted) await staging.unspill(spilled.path);
    }
  }
  if (details.length) throw invalid(details);
  if (!head) throw invalid([{ field: 'type', issue: 'give ?type= or a first line {"type": …}' }]);
  checker?.throwIfAny();
  if (items.length === 0) throw new VerityError('VALIDATION_FAILED', 'Invalid items: the batch has no items', { details: [{ field: 'items', issue: 'must hold at least one item' }] });
  return { parsed: { type: head.type, metadata: head.metadata, items }, hash: sha.digest('hex') };
}
