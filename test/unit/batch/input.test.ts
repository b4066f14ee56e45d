/** Batch input: reading JSONL, CSV and folders, and checking every item before any work. */
import { mkdtempSync, rmSync, truncateSync, writeFileSync, mkdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { VerityError } from '../../../src/api/errors.js';
import { MAX_INPUT_BYTES, parseCsv, parseJsonl, readBatchSource, type BatchSource } from '../../../src/batch/input.js';
import { bytesKey, canonicalJson, checkItems, idempotencyKey, materialize, materializeBytes } from '../../../src/batch/items.js';

const dir = mkdtempSync(join(tmpdir(), 'verity-batch-input-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
const noStdin = async (): Promise<Buffer> => Buffer.alloc(0);
const read = (input: string, o: Partial<Parameters<typeof readBatchSource>[1]> = {}) => readBatchSource(input, { cwd: dir, readStdin: noStdin, ...o });

/** The VerityError a call throws (the test fails when it does not throw one). */
async function failure(fn: () => unknown): Promise<VerityError> {
  try {
    await fn();
  } catch (err) {
    if (err instanceof VerityError) return err;
    throw err;
  }
  throw new Error('expected a VerityError');
}

const src = (text: string): BatchSource => ({ kind: 'jsonl', baseDir: dir, ...parseJsonl(text) });

describe('JSONL', () => {
  it('one object a line; blank lines skipped but counted; custom_id defaults to line-N', () => {
    const items = checkItems(src('{"claim":"a"}\n\n{"claim":"b","custom_id":"mine"}\r\n'), { type: 'claim' });
    expect(items.map((i) => [i.index, i.line, i.custom_id])).toEqual([
      [0, 1, 'line-1'],
      [1, 3, 'mine'],
    ]);
  });

  it('a malformed line, a non-object and a bad field are all named by line and field; nothing is returned', async () => {
    const e = await failure(() => checkItems(src('{"claim":"ok"}\n{"claim": \n[1,2]\n{"claim":"x","max_evidence":99}\n{"claim":"y","bogus":1}\n'), { type: 'claim' }));
    expect(e.code).toBe('VALIDATION_FAILED');
    expect(e.exitCode).toBe(2);
    const fields = e.details!.map((d) => d.field);
    expect(fields).toEqual(['line 2', 'line 3', 'line 4 (max_evidence)', 'line 5 (bogus)']); // an unknown field is named (issue 32)
    expect(e.details![3]!.issue).toBe('is not a field of this request');
    expect(e.message).toMatch(/^Invalid batch input: line 2: not valid JSON .*3 more problems.*nothing was run/);
  });

  it('type: required without --type; unknown types refused; each line may carry its own', async () => {
    expect((await failure(() => checkItems(src('{"claim":"a"}\n')))).details).toEqual([{ field: 'line 1 (type)', issue: expect.stringMatching(/--type/) }]);
    expect((await failure(() => checkItems(src('{"type":"poem","claim":"a"}\n')))).details![0]!.field).toBe('line 1 (type)');
    const mixed = checkItems(src('{"type":"claim","claim":"a"}\n{"type":"business","company_name":"Acme Ltd","jurisdiction":"gb"}\n'));
    expect(mixed.map((i) => i.type)).toEqual(['claim', 'business']);
  });

  it('duplicate custom_ids are refused naming both lines, including a default one', async () => {
    const e = await failure(() => checkItems(src('{"claim":"a"}\n{"claim":"b","custom_id":"x"}\n{"claim":"c","custom_id":"x"}\n{"claim":"d","custom_id":"line-1"}\n'), { type: 'claim' }));
    expect(e.details).toEqual([
      { field: 'line 3 (custom_id)', issue: expect.stringContaining('also the custom_id of line 2') },
      { field: 'line 4 (custom_id)', issue: expect.stringContaining('"line-1" is also the custom_id of line 1') },
    ]);
  });

  it('media and document `file` paths are checked (missing, empty) before any work and read only when run', async () => {
    writeFileSync(join(dir, 'a.jpg'), Buffer.from([0xff, 0xd8, 0xff, 0xe0, 1, 2, 3]));
    writeFileSync(join(dir, 'empty.pdf'), '');
    writeFileSync(join(dir, 'note.txt'), 'plain words');
    const e = await failure(() => checkItems(src('{"type":"media","file":"a.jpg"}\n{"type":"media","file":"gone.jpg"}\n{"type":"document","file":"empty.pdf"}\n'), { filePaths: true }));
    expect(e.details!.map((d) => d.field)).toEqual(['line 2 (file)', 'line 3 (file)']);
    expect(e.details![1]!.issue).toMatch(/empty/);
    const [media, doc, raw] = checkItems(src('{"type":"media","file":"a.jpg","check_deepfakes":false}\n{"type":"document","file":"note.txt"}\n{"type":"document","file":"note.txt","source":"raw","custom_id":"r"}\n'), { filePaths: true });
    expect(media!.request).toEqual({ check_deepfakes: false });
    const m = await materialize(media!);
    expect(m.request).toEqual({ check_deepfakes: false, file: Buffer.from([0xff, 0xd8, 0xff, 0xe0, 1, 2, 3]).toString('base64') });
    expect((await materialize(doc!)).request).toEqual({ source: 'upload', content: Buffer.from('plain words').toString('base64') });
    expect((await materialize(raw!)).request).toEqual({ source: 'raw', content: 'plain words' });
  });

  it('materializeBytes (the batch pool) keeps a file as bytes with the same idempotency key as the base64 request', async () => {
    const jpeg = Buffer.from([0xff, 0xd8, 0xff, 0xe0, 1, 2, 3, 250, 251]);
    writeFileSync(join(dir, 'b.jpg'), jpeg);
    writeFileSync(join(dir, 'memo.txt'), 'plain words "quoted"');
    const [media, doc, raw] = checkItems(
      src('{"type":"media","file":"b.jpg","check_deepfakes":false}\n{"type":"document","file":"memo.txt"}\n{"type":"document","file":"memo.txt","source":"raw","custom_id":"r"}\n'),
      { filePaths: true },
    );
    const m = await materializeBytes(media!);
    expect(m.request).toEqual({ check_deepfakes: false });
    expect(m.bytes).toEqual(jpeg);
    expect(m.key).toBe((await materialize(media!)).key);
    const d = await materializeBytes(doc!);
    expect(d.request).toEqual({ source: 'upload' });
    expect(d.key).toBe((await materialize(doc!)).key);
    // Text read as text stays in the request, as materialize() puts it.
    expect(await materializeBytes(raw!)).toEqual(await materialize(raw!));
    // Another file under the same request: another key.
    expect(bytesKey('media', { check_deepfakes: false }, 'file', Buffer.from([0xff, 0xd8, 0xff, 0xe0, 1]))).not.toBe(m.key);
  });

  it('without filePaths (a service checking what it was sent) a `file` is never opened as a path; names can be the service\'s', async () => {
    const e = await failure(() =>
      checkItems(src('{"type":"media","file":"a.jpg"}\n{"type":"document","file":"../note.txt"}\n'), { name: (r, f) => `items[${r.line - 1}]${f ? `.${f}` : ''}` }),
    );
    expect(e.details).toEqual([
      { field: 'items[0].file', issue: 'must be base64-encoded data' },
      { field: 'items[1].content', issue: 'must be base64-encoded data when source is "upload"' },
    ]);
  });

  it('inline base64 `file` (the service form) and document shorthands (url, content) are accepted', () => {
    const b64 = Buffer.alloc(96, 7).toString('base64');
    const [m, u, c] = checkItems(src(`{"type":"media","file":"${b64}"}\n{"type":"document","url":"https://example.com/a.pdf"}\n{"type":"document","content":"some text"}\n`));
    expect(m!.file).toBeUndefined();
    expect(m!.request.file).toBe(b64);
    expect(u!.request).toEqual({ source: 'url', content: 'https://example.com/a.pdf' });
    expect(c!.request).toEqual({ source: 'raw', content: 'some text' });
  });
});

describe('CSV', () => {
  it('a header row names the fields; cells become booleans, numbers and lists; empty cells are left out', async () => {
    const parsed = await parseCsv('custom_id,company_name,jurisdiction,officers,sources\nc1,Acme Ltd,gb,yes,"gleif;companies_house"\n,"Globex, Inc.",,false,\n');
    const items = checkItems({ kind: 'csv', baseDir: dir, ...parsed }, { type: 'business' });
    expect(items.map((i) => [i.line, i.custom_id, i.request])).toEqual([
      [2, 'c1', { company_name: 'Acme Ltd', jurisdiction: 'gb', officers: true, sources: ['gleif', 'companies_house'] }],
      [3, 'line-3', { company_name: 'Globex, Inc.', officers: false }],
    ]);
  });

  it('a cell that is not the type the field needs is named; a ragged row names its line', async () => {
    const bad = await parseCsv('claim,max_evidence\nok,3\nfine,many\n');
    const e = await failure(() => checkItems({ kind: 'csv', baseDir: dir, ...bad }, { type: 'claim' }));
    expect(e.details![0]!.field).toBe('line 3 (max_evidence)');
    const ragged = await parseCsv('claim\nok\n"a",b\n');
    expect(ragged.problems[0]!.field).toBe('line 3');
  });
});

describe('reading the input', () => {
  it('an empty file, a missing file, and a file over the bound (refused from its size, not read)', async () => {
    writeFileSync(join(dir, 'empty.jsonl'), '');
    expect((await failure(() => read('empty.jsonl'))).code).toBe('UNPROCESSABLE_CONTENT');
    writeFileSync(join(dir, 'blank.jsonl'), '\n\n  \n');
    expect((await failure(() => read('blank.jsonl'))).code).toBe('UNPROCESSABLE_CONTENT');
    expect((await failure(() => read('nope.jsonl'))).details).toEqual([{ field: 'input', issue: 'file not found or not readable' }]);
    // A sparse 1 GB file: refusing it must not read it (it would take seconds and 1 GB of memory).
    const big = join(dir, 'big.jsonl');
    writeFileSync(big, '');
    truncateSync(big, 1024 * 1024 * 1024);
    const before = process.memoryUsage().rss;
    const e = await failure(() => read('big.jsonl'));
    expect(e.code).toBe('PAYLOAD_TOO_LARGE');
    expect(e.message).toContain('1024.0 MB');
    expect(process.memoryUsage().rss - before).toBeLessThan(MAX_INPUT_BYTES / 4);
  });

  it('stdin: read with the bound, format sniffed (JSONL by its first brace, else CSV)', async () => {
    let limit = 0;
    const stdin = (text: string) => async (l: number) => ((limit = l), Buffer.from(text));
    expect((await read('-', { readStdin: stdin('{"claim":"a"}\n') })).kind).toBe('jsonl');
    expect(limit).toBe(MAX_INPUT_BYTES);
    expect((await read('-', { readStdin: stdin('claim\nsome claim\n') })).kind).toBe('csv');
    expect((await read('-', { readStdin: stdin('{"claim":"a"}\n'), format: 'csv' })).kind).toBe('csv');
    expect((await failure(() => read('-'))).code).toBe('UNPROCESSABLE_CONTENT');
  });

  it('a folder: every file below it, dot-files left out, relative paths as custom_ids; needs media or document', async () => {
    const f = join(dir, 'photos');
    mkdirSync(join(f, 'day2'), { recursive: true });
    writeFileSync(join(f, 'b.jpg'), 'x');
    writeFileSync(join(f, 'a.jpg'), 'x');
    writeFileSync(join(f, '.DS_Store'), 'x');
    writeFileSync(join(f, 'day2', 'c.jpg'), 'x');
    const s = await read('photos');
    const items = checkItems(s, { type: 'media', filePaths: true });
    expect(items.map((i) => [i.line, i.custom_id])).toEqual([
      [1, 'a.jpg'],
      [2, 'b.jpg'],
      [3, 'day2/c.jpg'],
    ]);
    expect((await failure(() => checkItems(s, { type: 'claim' }))).details).toEqual([{ field: 'type', issue: expect.stringMatching(/--type media/) }]);
    mkdirSync(join(dir, 'none'));
    expect((await failure(() => read('none'))).code).toBe('UNPROCESSABLE_CONTENT');
  });
});

describe('idempotency keys', () => {
  it('derive from type and canonical request: key order and defaults do not matter, content does', () => {
    const a = idempotencyKey('claim', { claim: 'x', language: 'en' });
    expect(idempotencyKey('claim', { language: 'en', claim: 'x' })).toBe(a);
    expect(idempotencyKey('claim', { claim: 'x', max_evidence: 5 })).toBe(a);
    expect(idempotencyKey('claim', { claim: 'y' })).not.toBe(a);
    expect(a).toMatch(/^vb-claim-[0-9a-f]{64}$/);
    expect(canonicalJson({ b: [1, { d: 1, c: 2 }], a: undefined })).toBe('{"b":[1,{"c":2,"d":1}]}');
  });

  it('a line of another kind is one problem that names the kind, not one per field', async () => {
    const e = await failure(() => checkItems(src('{"company_name":"Acme Ltd","jurisdiction":"gb"}\n{"claim":"x"}\n'), { type: 'claim' }));
    expect(e.details).toEqual([
      { field: 'line 1', issue: 'looks like a business item (company_name, jurisdiction), not a claim: give it "type": "business", or use --type business for the whole file' },
    ]);
    const m = await failure(() => checkItems(src('{"claim":"The sky is green"}\n'), { type: 'media' }));
    expect(m.details).toHaveLength(1);
    expect(m.details![0]!.issue).toMatch(/^looks like a claim item \(claim\), not a media/);
  });
});
