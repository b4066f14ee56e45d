/**
 * The streamed batch's line reader (src/server/batches/file-lines.ts): a long `file`/`content`
 * value is decoded to disk as it arrives, piece by piece, and the line keeps a stand-in. Real files
 * in a temp folder; the body cut into pieces at every kind of boundary (inside an escape too).
 */
import { createWriteStream, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { fileLines, type FileLine } from '../../../src/server/batches/file-lines.js';

const dir = mkdtempSync(join(tmpdir(), 'verity-file-lines-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
let n = 0;
const sink = { open: () => {
  const path = join(dir, `spill-${n++}`);
  return { path, stream: createWriteStream(path) };
} };

async function read(body: string, pieces: number, o: { max?: number; spillAt?: Record<string, number> } = {}): Promise<FileLine[]> {
  const bytes = Buffer.from(body);
  const size = Math.max(1, Math.ceil(bytes.length / pieces));
  async function* chunks() {
    for (let i = 0; i < bytes.length; i += size) yield bytes.subarray(i, i + size);
  }
  const out: FileLine[] = [];
  for await (const l of fileLines(chunks(), { max: o.max ?? 1 << 20, spillAt: o.spillAt ?? { file: 16, content: 64 }, sink, onTooLong: () => new Error('too long') })) {
    if (l.spilled) await l.spilled.done;
    out.push({ ...l, text: Buffer.from(l.text) });
  }
  return out;
}

const photo = Buffer.from(Array.from({ length: 3001 }, (_, i) => (i * 7919) % 256));
const b64 = photo.toString('base64');
// The same base64 as a JSON string with MIME line breaks and escaped slashes (both legal).
const mime = JSON.stringify(b64.replace(/(.{76})/g, '$1\r\n')).replace(/\//g, '\\/');

describe('fileLines', () => {
  it('decodes a long file value to disk, whatever the pieces, and keeps the rest of the line', async () => {
    const body = `{"type":"media"}\n{"custom_id":"a","file":${mime},"check_deepfakes":false}\n{"custom_id":"b","url":"https://example.com/x.jpg"}\n`;
    for (const pieces of [1, 2, 7, 64, 997, body.length]) {
      const lines = await read(body, pieces);
      expect(lines.map((l) => l.text.toString())).toEqual(['{"type":"media"}', '{"custom_id":"a","file":"AAAA","check_deepfakes":false}', '{"custom_id":"b","url":"https://example.com/x.jpg"}']);
      const s = lines[1]!.spilled!;
      expect(s).toMatchObject({ key: 'file', base64: true, bytes: photo.length });
      expect(readFileSync(s.path).equals(photo)).toBe(true);
    }
  });

  it('leaves short values, nested keys and keys it does not know in the line', async () => {
    const body = `{"custom_id":"a","file":"QUJD","meta":{"file":"${b64}"},"other":"${b64}"}`;
    const [line] = await read(body, 5);
    expect(line!.text.toString()).toBe(body);
    expect(line!.spilled).toBeUndefined();
  });

  it('marks a long value that is not base64 with a stand-in the schema refuses', async () => {
    for (const bad of [`${b64}!`, `${b64.slice(0, 3000)}!`, `${b64.slice(0, 3001)}.`, `${b64.slice(0, 2000)}!${b64.slice(2000)}`, `${b64.slice(0, 40)}=${b64.slice(40)}`, `${b64}\\t`, `${b64}===`]) {
      const [line] = await read(`{"file":"${bad}"}\n`, 3);
      expect(line!.text.toString()).toBe('{"file":"!"}');
      expect(line!.spilled!.base64).toBe(false);
    }
  });

  it('counts spilled bytes toward the line bound', async () => {
    await expect(read(`{"file":"${b64}"}\n`, 4, { max: 1000 })).rejects.toThrow('too long');
    expect((await read(`{"file":"${b64}"}\n`, 4, { max: b64.length + 12 })).length).toBe(1);
  });

  it('a line break inside a spilling string ends the line there (not JSON)', async () => {
    const lines = await read(`{"file":"${b64.slice(0, 100)}\n{"custom_id":"b"}\n`, 3);
    expect(lines.map((l) => l.text.toString())).toEqual(['{"file":"!', '{"custom_id":"b"}']);
  });

  it('decodes files of several MB exactly, in any pieces, with two uploads at once sharing its output buffers', async () => {
    // 2.5 MB: more than two of the 1 MB buffers the decoded bytes are gathered in.
    const big = (seed: number): Buffer => Buffer.from(Array.from({ length: 2_500_003 }, (_, i) => (i * 2654435761 + seed) % 251));
    const a = big(1);
    const b = big(7);
    const body = (f: Buffer): string => `{"custom_id":"x","file":"${f.toString('base64')}"}\n{"custom_id":"y","file":"${f.subarray(0, 70_001).toString('base64')}"}\n`;
    const o = { max: 8 << 20 };
    const both = await Promise.all([read(body(a), 997, o), read(body(b), 3, o), read(body(a), 1, o)]);
    for (const [lines, f] of [[both[0], a], [both[1], b], [both[2], a]] as const) {
      expect(lines.map((l) => l.spilled!.bytes)).toEqual([f.length, 70_001]);
      expect(readFileSync(lines[0]!.spilled!.path).equals(f)).toBe(true);
      expect(readFileSync(lines[1]!.spilled!.path).equals(f.subarray(0, 70_001))).toBe(true);
    }
  });
});
