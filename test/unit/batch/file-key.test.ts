/**
 * materializeFile() (batch/items.ts): the CLI's batch pool hands an item's file to the analysis
 * as a path and hashes the key from the file in 192 KB pieces. The key must be the one the whole
 * file's bytes give (journals, resumes and server batches match it), whatever the file's size
 * against the pieces, and a file that cannot be used is refused as before.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { materialize, materializeBytes, materializeFile, type BatchItem } from '../../../src/batch/items.js';

const dir = mkdtempSync(join(tmpdir(), 'verity-file-key-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const PIECE = 3 * 64 * 1024;
let n = 0;
function item(bytes: Buffer | undefined, type: 'media' | 'document' = 'media', request: Record<string, unknown> = {}): BatchItem {
  const path = join(dir, `f${n++}`);
  if (bytes) writeFileSync(path, bytes);
  return { index: 0, line: 1, custom_id: 'x', type, request, file: { path, into: type === 'media' ? 'file' : 'content', encoding: 'base64' } };
}
const bytesOf = (size: number): Buffer => Buffer.from(Array.from({ length: size }, (_, i) => (i * 131 + (i >> 8)) & 255));

describe('materializeFile', () => {
  it.each([1, 2, 3, PIECE - 1, PIECE, PIECE + 1, 2 * PIECE + 2, 5 * PIECE])('the key of a %i-byte file is the key of its bytes, and of its base64 in the request', async (size) => {
    const it0 = item(bytesOf(size));
    const byFile = await materializeFile(it0);
    const byBytes = await materializeBytes(it0);
    expect(byFile.file).toBe(it0.file!.path);
    expect(byFile.request).toEqual(byBytes.request);
    expect(byFile.key).toBe(byBytes.key);
    expect(byFile.key).toBe((await materialize(it0)).key);
  });

  it('the rest of the request counts as before (a document upload with options)', async () => {
    const it0 = item(bytesOf(PIECE + 7), 'document', { source: 'upload', filename: 'a.pdf' });
    expect((await materializeFile(it0)).key).toBe((await materialize(it0)).key);
  });

  it('refuses a missing file, an empty one and one over the limit with the errors of materializeBytes', async () => {
    const missing = item(undefined);
    await expect(materializeFile(missing)).rejects.toMatchObject({ code: 'VALIDATION_FAILED', message: `Cannot read ${missing.file!.path}` });
    await expect(materializeFile(item(Buffer.alloc(0)))).rejects.toMatchObject({ code: 'UNPROCESSABLE_CONTENT', message: expect.stringMatching(/is empty \(0 bytes\)/) });
    await expect(materializeFile(item(Buffer.alloc(20 * 1024 * 1024 + 1)))).rejects.toMatchObject({ code: 'PAYLOAD_TOO_LARGE' });
  });

  it('a text document stays text in the request (no file handed over)', async () => {
    const path = join(dir, 'memo.txt');
    writeFileSync(path, 'Memo\n');
    const m = await materializeFile({ index: 0, line: 1, custom_id: 'x', type: 'document', request: {}, file: { path, into: 'content', encoding: 'utf8' } });
    expect(m).toMatchObject({ request: { content: 'Memo\n' } });
    expect('file' in m).toBe(false);
  });
});
