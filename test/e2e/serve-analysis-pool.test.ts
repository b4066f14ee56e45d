/**
 * Issue 28: no file can stall `verity serve`. A real serve child process with a live key: the
 * 2 kB DOCX nested 20,000 deep in `_rels/.rels` (which froze the server for 74 s) is answered 422
 * naming the part and the limit, and not charged, while /healthz keeps answering within 1 s; a
 * job past the analysis budget (`--analysis-budget-ms`, set tiny here) is ended, answered 422
 * naming the limit, not charged, its worker replaced, and the server goes on serving.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { execa } from 'execa';
import JSZip from 'jszip';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { childWith, cpuSeconds, ends, environOf, hasProc, reaches } from './process-tree.js';
import { startServeProcess, type Served } from './serve-process.js';

const BIN = join(inject('verityRoot'), 'bin', 'verity.js');
const home = mkdtempSync(join(tmpdir(), 'verity-pool-e2e-'));
const env = { VERITY_HOME: home, NO_COLOR: '1', VERITY_API_KEY: '', VERITY_BASE_URL: '' };
const cli = (args: string[]) => execa('node', [BIN, ...args], { env, reject: false });
const running: Served[] = [];

async function createKey(db: string, name: string, envName: 'live' | 'test'): Promise<string> {
  const r = await cli(['admin', 'keys', 'create', '--name', name, '--env', envName, '--plan', 'business', '--account', name, '--db', db]);
  expect(r.exitCode).toBe(0);
  return r.stdout.trim();
}

async function usageOf(db: string, account: string): Promise<{ requests: number; credits: number }> {
  const r = await cli(['admin', 'usage', '--db', db, '--json']);
  const rows = (JSON.parse(r.stdout) as { data: Array<{ account_name: string; requests: number; credits: number }> }).data;
  return rows.find((x) => x.account_name === account) ?? { requests: 0, credits: 0 };
}

async function docx(rels?: string, body = '<w:p><w:r><w:t>Quarterly statement for account 00417.</w:t></w:r></w:p>'): Promise<string> {
  const zip = new JSZip();
  zip.file('[Content_Types].xml', '<?xml version="1.0"?><Types xmlns="http://schemas.openxmlformats.org/package/2006/content-types"><Default Extension="xml" ContentType="application/xml"/></Types>');
  const open = '<?xml version="1.0"?><Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships"><Relationship Id="rId1" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/officeDocument" Target="word/document.xml"/>';
  zip.file('_rels/.rels', `${open}${rels ?? ''}</Relationships>`);
  zip.file('word/document.xml', `<?xml version="1.0"?><w:document xmlns:w="http://schemas.openxmlformats.org/wordprocessingml/2006/main"><w:body>${body}</w:body></w:document>`);
  return (await zip.generateAsync({ type: 'nodebuffer', compression: 'DEFLATE' })).toString('base64');
}

const post = (s: Served, key: string, body: unknown) =>
  fetch(`${s.url}/v1/verify/document`, { method: 'POST', headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' }, body: JSON.stringify(body) });

async function serve(db: string, extra: string[] = []): Promise<Served> {
  const s = await startServeProcess(BIN, ['--db', db, ...extra], env);
  running.push(s);
  return s;
}

let nested: string;
let plain: string;
beforeAll(async () => {
  nested = await docx(`${'<a>'.repeat(20_000)}${'</a>'.repeat(20_000)}`);
  plain = await docx();
  expect(Buffer.from(nested, 'base64').length).toBeLessThan(4096);
});

afterAll(async () => {
  for (const s of running) {
    s.proc.kill('SIGTERM');
    await s.proc;
  }
  rmSync(home, { recursive: true, force: true });
});

/** Polls /healthz and a test key's claim while `job` runs; each must be answered within 1 s (a request timeout, not a sleep). */
async function pollWhile(s: Served, testKey: string, job: Promise<unknown>): Promise<number> {
  let done = false;
  void job.finally(() => (done = true));
  let polls = 0;
  do {
    const h = await fetch(`${s.url}/healthz`, { signal: AbortSignal.timeout(1000) });
    expect(h.status).toBe(200);
    // An unrelated request too (once: the key's rate limit would answer a stream of them 429).
    if (polls === 0) {
      const c = await fetch(`${s.url}/v1/verify/claim`, { method: 'POST', signal: AbortSignal.timeout(1000), headers: { authorization: `Bearer ${testKey}`, 'content-type': 'application/json' }, body: JSON.stringify({ claim: 'Water boils at 100 degrees Celsius at sea level' }) });
      expect(c.status).toBe(200);
    }
    polls++;
  } while (!done);
  return polls;
}

describe('serve: analysis off the event loop, bounded', () => {
  it('a DOCX that keeps a worker busy for seconds delays neither /healthz nor another request', async () => {
    const db = join(home, 'busy.db');
    const live = await createKey(db, 'live-busy', 'live');
    const test = await createKey(db, 'test-busy', 'test');
    // ~12 MB of main document part (~40 kB compressed): seconds of parsing, which ran on the event loop before the pool.
    const para = '<w:p><w:r><w:t>Lorem ipsum dolor sit amet, consectetur adipiscing elit, sed do eiusmod.</w:t></w:r></w:p>';
    const big = await docx(undefined, para.repeat(Math.ceil(12e6 / para.length)));
    const s = await serve(db);
    const job = post(s, live, { source: 'upload', content: big });
    const polls = await pollWhile(s, test, job);
    const res = await job;
    expect(res.status).toBe(200);
    expect(polls).toBeGreaterThan(0);
    expect(await usageOf(db, 'live-busy')).toMatchObject({ requests: 1 });
  });

  it('answers the 20,000-deep DOCX 422 (not charged) while /healthz answers within 1 s', async () => {
    const db = join(home, 'pool.db');
    const live = await createKey(db, 'live-pool', 'live');
    const test = await createKey(db, 'test-pool', 'test');
    const s = await serve(db);
    const job = post(s, live, { source: 'upload', content: nested });
    expect(await pollWhile(s, test, job)).toBeGreaterThan(0);
    const res = await job;
    expect(res.status).toBe(422);
    const body = (await res.json()) as { error: { code: string; message: string } };
    expect(body.error.code).toBe('UNPROCESSABLE_CONTENT');
    expect(body.error.message).toMatch(/the DOCX part _rels\/\.rels cannot be read: it nests elements more than 256 deep \(the depth limit\)/);
    expect(await usageOf(db, 'live-pool')).toMatchObject({ requests: 0, credits: 0 });

    // The same worker pool then analyses an ordinary DOCX, which is charged.
    const ok = await post(s, live, { source: 'upload', content: plain });
    expect(ok.status).toBe(200);
    expect(((await ok.json()) as { metadata: { page_count: number } }).metadata.page_count).toBeGreaterThan(0);
    expect(await usageOf(db, 'live-pool')).toMatchObject({ requests: 1 });
  });

  it('ends a job past --analysis-budget-ms: 422 naming the limit, not charged, and the server goes on', async () => {
    const db = join(home, 'budget.db');
    const live = await createKey(db, 'live-budget', 'live');
    const test = await createKey(db, 'test-budget', 'test');
    // 1 ms: no real analysis finishes in that (the worker alone takes longer to load the engine).
    const s = await serve(db, ['--analysis-budget-ms', '1', '--analysis-workers', '1']);
    for (let i = 0; i < 2; i++) {
      // Twice: the ended worker is replaced, and the second job meets the same bound (no hang, no 500).
      const res = await post(s, live, { source: 'upload', content: plain });
      expect(res.status).toBe(422);
      const body = (await res.json()) as { error: { code: string; message: string } };
      expect(body.error).toMatchObject({ code: 'UNPROCESSABLE_CONTENT', message: expect.stringMatching(/did not finish within the 1 ms per-file limit \(serve --analysis-budget-ms\)/) });
    }
    expect(await usageOf(db, 'live-budget')).toMatchObject({ requests: 0, credits: 0 });
    // Test keys' documents go through the pool too (the sandbox reads the file's own facts): same bound.
    const sandboxed = await post(s, test, { source: 'upload', content: plain });
    expect(sandboxed.status).toBe(422);
    // The server itself goes on: a request outside the pool and /healthz are answered.
    const claim = await fetch(`${s.url}/v1/verify/claim`, { method: 'POST', headers: { authorization: `Bearer ${test}`, 'content-type': 'application/json' }, body: JSON.stringify({ claim: 'Water boils at 100 degrees Celsius at sea level' }) });
    expect(claim.status).toBe(200);
    expect((await fetch(`${s.url}/healthz`, { signal: AbortSignal.timeout(1000) })).status).toBe(200);
  });

  it('a worker past --analysis-memory-mb dies alone: 422 naming the limit, not charged, the server goes on', async () => {
    const db = join(home, 'memory.db');
    const live = await createKey(db, 'live-memory', 'live');
    // 8 MB of heap: loading the engine alone needs more, so the worker dies out of memory.
    const s = await serve(db, ['--analysis-memory-mb', '8']);
    const res = await post(s, live, { source: 'upload', content: plain });
    expect(res.status).toBe(422);
    expect(((await res.json()) as { error: { message: string } }).error.message).toMatch(/needed more than the 8 MB per-worker memory limit \(serve --analysis-memory-mb\)/);
    expect(await usageOf(db, 'live-memory')).toMatchObject({ requests: 0, credits: 0 });
    expect((await fetch(`${s.url}/healthz`, { signal: AbortSignal.timeout(1000) })).status).toBe(200);
  });

  it.skipIf(!hasProc)('the pool runs in one analysis host process with the allocator settings, which ends with serve, kill -9 included, even mid-job', async () => {
    const db = join(home, 'host.db');
    const live = await createKey(db, 'live-host', 'live');
    const s = await serve(db, ['--analysis-workers', '2']);
    expect((await post(s, live, { source: 'upload', content: plain })).status).toBe(200);
    const host = childWith(s.proc.pid!, 'analysis-host-main');
    expect(host).toBeDefined();
    expect(environOf(host!)).toMatchObject({ MALLOC_ARENA_MAX: '2', MALLOC_MMAP_THRESHOLD_: '131072', MALLOC_TRIM_THRESHOLD_: '131072' });
    // Its own V8 flags (a young generation that stays small), not serve's.
    expect(readFileSync(`/proc/${host}/cmdline`, 'utf8').split('\0')).toContain('--max-semi-space-size=2');
    // Both workers are threads of that one process: a second request at once starts no other.
    const [a, b] = await Promise.all([post(s, live, { source: 'upload', content: plain }), post(s, live, { source: 'upload', content: plain })]);
    expect([a.status, b.status]).toEqual([200, 200]);
    expect(childWith(s.proc.pid!, 'analysis-host-main')).toBe(host);
    // Mid-job: a DOCX that takes the worker seconds, sent without waiting for its answer.
    const para = '<w:p><w:r><w:t>Lorem ipsum dolor sit amet, consectetur adipiscing elit, sed do eiusmod.</w:t></w:r></w:p>';
    const job = post(s, live, { source: 'upload', content: await docx(undefined, para.repeat(Math.ceil(12e6 / para.length))) }).catch((e: unknown) => e);
    // The host is at work on it once it has used 0.3 s more CPU than before (the request alone costs far less).
    const cpu0 = cpuSeconds(host!);
    expect(await reaches(() => cpuSeconds(host!) >= cpu0 + 0.3, 30_000)).toBe(true);
    s.proc.kill('SIGKILL');
    // Resolved once serve's stderr is closed by every process holding it: the host inherits it.
    await s.proc;
    expect(await ends(host!)).toBe(true);
    expect(await job).toBeInstanceOf(Error);
  });

  it('the CLI refuses the nested DOCX with exit 2 and the same error', async () => {
    const file = join(home, 'nested.docx');
    writeFileSync(file, Buffer.from(nested, 'base64'));
    const r = await cli(['verify', 'document', file, '--json']);
    expect(r.exitCode).toBe(2);
    expect(JSON.parse(r.stdout)).toMatchObject({ error: { code: 'UNPROCESSABLE_CONTENT', message: expect.stringMatching(/the DOCX part _rels\/\.rels cannot be read: it nests elements more than 256 deep/) } });
  });

  it('refuses a budget flag that is not a positive whole number', async () => {
    const r = await cli(['serve', '--port', '0', '--db', join(home, 'x.db'), '--analysis-budget-ms', '0']);
    expect(r.exitCode).toBe(2);
    expect(r.stderr).toMatch(/--analysis-budget-ms must be a whole number from 1/);
  });
});
