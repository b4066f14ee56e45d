/**
 * Server batches end to end with the built CLI: `verity serve` killed (-9) mid-batch and started
 * again finishes every item exactly once; cancel; item and batch events reach `verity listen`
 * with valid signatures (the listener checks them and forwards the raw bodies to a test app).
 * Live items ask a fake Wikipedia on loopback, which answers after a delay.
 */
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { execa, type ResultPromise } from 'execa';
import { afterAll, describe, expect, inject, it } from 'vitest';
import { startWikipediaFake } from '../fakes/wikipedia.js';
import type { FakeServer } from '../fakes/claim-fake-server.js';
import { newHome, verity } from './run-cli.js';
import { BusinessResult, ClaimResult, DocumentResult, MediaResult } from '../../src/api/results.js';
import { createSandboxEngine } from '../../src/engine/index.js';

const SECRET = 'e2e-batch-listen-secret-0123456789-abcdef';
const procs: ResultPromise[] = [];
const closers: Array<() => Promise<void> | void> = [];
afterAll(async () => {
  for (const c of closers) await c();
  for (const p of procs) p.kill('SIGTERM');
  await Promise.allSettled(procs);
});

interface Running {
  proc: ResultPromise;
  url: string;
  stdout: string[];
  next(pred: (l: string) => boolean): Promise<string>;
}

/** A long-running CLI command, ready once it prints `Listening on URL` on stderr. */
async function spawn(args: string[], home: string): Promise<Running> {
  const proc = execa(process.execPath, [join(inject('verityRoot'), 'bin', 'verity.js'), ...args], {
    env: { PATH: process.env.PATH!, HOME: process.env.HOME!, VERITY_HOME: home, NO_COLOR: '1' },
    extendEnv: false,
    reject: false,
  });
  procs.push(proc);
  const stdout: string[] = [];
  const stderr: string[] = [];
  const waiters: Array<{ from: string[]; pred: (l: string) => boolean; resolve: (l: string) => void }> = [];
  const used = new Set<string>();
  const feed = (into: string[]) => {
    let buf = '';
    return (chunk: Buffer) => {
      buf += chunk.toString();
      let i;
      while ((i = buf.indexOf('\n')) >= 0) {
        const line = buf.slice(0, i);
        buf = buf.slice(i + 1);
        into.push(line);
        for (const w of [...waiters]) if (w.from === into && !used.has(line) && w.pred(line)) (waiters.splice(waiters.indexOf(w), 1), used.add(line), w.resolve(line));
      }
    };
  };
  proc.stdout!.on('data', feed(stdout));
  proc.stderr!.on('data', feed(stderr));
  const wait = (from: string[], pred: (l: string) => boolean) =>
    new Promise<string>((resolve, reject) => {
      const seen = from.find((l) => !used.has(l) && pred(l));
      if (seen) return (used.add(seen), resolve(seen));
      waiters.push({ from, pred, resolve });
      void proc.then((r) => reject(new Error(`${args[0]} exited (${r.exitCode}): ${stderr.join('\n')}`)));
    });
  const ready = await wait(stderr, (l) => l.startsWith('Listening on '));
  return { proc, url: ready.slice('Listening on '.length).trim(), stdout, next: (pred) => wait(stdout, pred) };
}

async function createBatch(url: string, key: string, body: unknown): Promise<{ id: string; status: string }> {
  const res = await fetch(`${url}/v1/batches`, {
    method: 'POST',
    headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  expect(res.status).toBe(202);
  return (await res.json()) as { id: string; status: string };
}

async function getBatch(url: string, key: string, id: string): Promise<any> {
  return (await fetch(`${url}/v1/batches/${id}`, { headers: { authorization: `Bearer ${key}` } })).json();
}

const lines = (stdout: string): any[] => stdout.split('\n').filter(Boolean).map((l) => JSON.parse(l));

// Real processes on a shared 2-core machine: generous bounds, never waits on the clock.
describe('batches in verity serve', { timeout: 90_000 }, () => {
  it('a batch survives kill -9 of serve: after the restart every item is done exactly once and charged once', async () => {
    // 300 ms per source answer, 8 items at a time: ~4.5 s for the whole batch, so the follower
    // (on a loaded machine too) sees its first lines long before the end.
    const wiki: FakeServer = await startWikipediaFake(undefined, { delayMs: 300 });
    closers.push(() => wiki.close());
    const home = newHome();
    writeFileSync(join(home, 'config.json'), JSON.stringify({ contact: 'e2e@example.com', sources: { wikipedia: { base_url: `${wiki.url}/w/api.php` } } }));
    const key = (await verity(['admin', 'keys', 'create', '--name', 'b', '--env', 'live', '--plan', 'pro'], { home })).stdout.trim();
    let serve = await spawn(['serve', '--port', '0', '--log-level', 'silent'], home);
    const N = 120;
    const items = Array.from({ length: N }, (_, i) => ({ custom_id: `row-${i}`, claim: `The Eiffel Tower is in Paris (${i})`, sources: ['wikipedia'] }));
    const { id } = await createBatch(serve.url, key, { type: 'claim', items });

    // Follow until a few items are done, then kill the server without warning (the follower keeps going).
    const follower = execa(process.execPath, [join(inject('verityRoot'), 'bin', 'verity.js'), '--remote', serve.url, '--key', key, 'batches', 'results', id, '--follow'], {
      env: { PATH: process.env.PATH!, VERITY_HOME: home },
      extendEnv: false,
      reject: false,
    });
    const seen: string[] = [];
    await new Promise<void>((resolve) => {
      let buf = '';
      follower.stdout!.on('data', (c: Buffer) => {
        buf += c.toString();
        const parts = buf.split('\n');
        buf = parts.pop()!;
        seen.push(...parts.filter(Boolean));
        if (seen.length >= 6) resolve();
      });
    });
    // From now on the source holds new requests: the batch cannot finish before the kill, however loaded the machine.
    wiki.options.mode = 'hang';
    const before = await getBatch(serve.url, key, id);
    serve.proc.kill('SIGKILL');
    await serve.proc;
    expect(before.status).toBe('running');
    expect(before.request_counts.succeeded + before.request_counts.failed).toBeLessThan(N);

    // The same port again: the follower (still running) resumes its stream after its last line.
    wiki.options.mode = 'ok';
    serve = await spawn(['serve', '--port', new URL(serve.url).port, '--log-level', 'silent'], home);
    const followed = await follower;
    expect(followed.exitCode, String(followed.stderr)).toBe(0);
    const resumed = seen.map((l) => JSON.parse(l));
    expect(resumed.map((l) => l.seq)).toEqual(Array.from({ length: N }, (_, i) => i + 1));
    expect(new Set(resumed.map((l) => l.custom_id)).size).toBe(N);

    const r = await verity(['--remote', serve.url, '--key', key, 'batches', 'results', id, '--follow'], { home });
    expect(r.code, r.stderr).toBe(0);
    const all = lines(r.stdout);
    expect(all).toHaveLength(N);
    expect(new Set(all.map((l) => l.custom_id)).size).toBe(N);
    expect(all.map((l) => l.seq)).toEqual(Array.from({ length: N }, (_, i) => i + 1));
    // The follower across the restart saw exactly the same sequence.
    expect(resumed.map((l) => l.custom_id)).toEqual(all.map((l) => l.custom_id));
    const after = await getBatch(serve.url, key, id);
    expect(after.status).toBe('completed');
    expect(after.request_counts).toEqual({ total: N, succeeded: N, failed: 0, cancelled: 0 });
    expect(after.credits_used).toBe(N);
    serve.proc.kill('SIGTERM');
    await serve.proc;
    // Charged once per item, though the killed server had items in flight.
    const usage = JSON.parse((await verity(['admin', 'usage', '--json'], { home })).stdout).data;
    expect(usage).toEqual([expect.objectContaining({ environment: 'live', credits: N, requests: N })]);
  });

  it('cancel from the CLI stops a live batch; get and list show it', async () => {
    const wiki = await startWikipediaFake(undefined, { mode: 'hang' });
    closers.push(() => wiki.close());
    const home = newHome();
    writeFileSync(join(home, 'config.json'), JSON.stringify({ contact: 'e2e@example.com', sources: { wikipedia: { base_url: `${wiki.url}/w/api.php` } } }));
    const key = (await verity(['admin', 'keys', 'create', '--name', 'c', '--env', 'live', '--plan', 'starter'], { home })).stdout.trim();
    const serve = await spawn(['serve', '--port', '0', '--log-level', 'silent'], home);
    const remote = ['--remote', serve.url, '--key', key];
    const items = Array.from({ length: 10 }, (_, i) => ({ custom_id: `c${i}`, claim: `The Eiffel Tower is in Paris (${i})`, sources: ['wikipedia'] }));
    const { id } = await createBatch(serve.url, key, { type: 'claim', items, metadata: { job: 'nightly' } });
    // Items are waiting at the fake source.
    while (wiki.requests.length < 2) await new Promise((r) => setImmediate(r));
    const c = await verity([...remote, 'batches', 'cancel', id, '--yes', '--json'], { home });
    expect(c.code, c.stderr).toBe(0);
    expect(['cancelling', 'cancelled']).toContain(JSON.parse(c.stdout).status);
    const res = await verity([...remote, 'batches', 'results', id, '--follow', '--json'], { home });
    expect(JSON.parse(res.stdout).data.every((l: { status: string }) => l.status === 'cancelled')).toBe(true);
    const g = await verity([...remote, 'batches', 'get', id, '--json'], { home });
    expect(JSON.parse(g.stdout)).toMatchObject({ id, status: 'cancelled', request_counts: { total: 10, cancelled: 10 }, credits_used: 0, metadata: { job: 'nightly' } });
    const human = await verity([...remote, 'batches', 'get', id], { home });
    expect(human.stdout).toMatch(/cancelled[\s\S]*10\/10 done: 0 succeeded, 0 failed, 10 cancelled/);
    const list = await verity([...remote, 'batches', 'list', '--json'], { home });
    expect(JSON.parse(list.stdout)).toEqual({ data: [expect.objectContaining({ id })] });
    expect(list.stdout + g.stdout + c.stdout + human.stdout).not.toContain(key.slice(13));
    const embedded = await verity(['batches', 'list'], { home });
    expect(embedded.code).toBe(2);
    expect(embedded.stderr).toMatch(/--remote/);
  });

  it('item events carry batch_id and custom_id, one batch.partial ends it; verity listen accepts their signatures', async () => {
    const bodies: any[] = [];
    const app = createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => {
        bodies.push(JSON.parse(Buffer.concat(chunks).toString('utf8')));
        res.end('ok');
      });
    });
    await new Promise<void>((r) => app.listen(0, '127.0.0.1', r));
    closers.push(() => new Promise<void>((r) => app.close(() => r())));
    const home = newHome();
    const listener = await spawn(['listen', '--port', '0', '--secret', SECRET, '--ndjson', '--forward-to', `http://127.0.0.1:${(app.address() as AddressInfo).port}/`], home);
    const serve = await spawn(['serve', '--port', '0', '--log-level', 'silent', '--allow-private-webhooks'], home);
    const key = (await verity(['admin', 'keys', 'create', '--name', 'e', '--env', 'test', '--plan', 'pro'], { home })).stdout.trim();
    const remote = ['--remote', serve.url, '--key', key];
    const types = 'verification.completed,verification.failed,batch.completed,batch.partial';
    const add = await verity([...remote, 'webhooks', 'add', `${listener.url}/hook`, '--events', types, '--secret', SECRET], { home });
    expect(add.code, add.stderr).toBe(0);
    const items = [
      { custom_id: 'a', claim: 'Water boils at 100 degrees at sea level' },
      { custom_id: 'b', claim: 'This one fails #unavailable' },
      { custom_id: 'c', claim: 'The Moon orbits the Earth' },
    ];
    const { id } = await createBatch(serve.url, key, { type: 'claim', items });
    const terminal = JSON.parse(await listener.next((l) => l.includes('"batch.partial"')));
    expect(terminal).toMatchObject({ outcome: 'accepted', status: 200, type: 'batch.partial', detail: '2/3 succeeded' });
    for (let i = 0; i < 3; i++) expect(JSON.parse(await listener.next((l) => l.includes('"verification.')))).toMatchObject({ outcome: 'accepted' });
    const data = bodies.map((b) => ({ ...b.data, type: b.type }));
    const byCustom = Object.fromEntries(data.filter((d) => d.custom_id).map((d) => [d.custom_id, d]));
    expect(byCustom.a).toMatchObject({ type: 'verification.completed', batch_id: id, request_type: 'claim' });
    expect(byCustom.c).toMatchObject({ type: 'verification.completed', batch_id: id });
    expect(byCustom.b).toMatchObject({ type: 'verification.failed', batch_id: id, error: { code: 'UNAVAILABLE' } });
    const end = data.filter((d) => d.type.startsWith('batch.'));
    expect(end).toEqual([
      expect.objectContaining({ type: 'batch.partial', batch_id: id, status: 'partial', total: 3, succeeded: 2, failed: 1, cancelled: 0, results_url: `/v1/batches/${id}/results` }),
    ]);
  });

  it('verify batch --remote runs a server batch; after kill -9 of the CLI, --resume follows the same batch (each item charged once); --no-wait prints the id', async () => {
    const wiki = await startWikipediaFake(undefined, { delayMs: 250 });
    closers.push(() => wiki.close());
    const home = newHome();
    writeFileSync(join(home, 'config.json'), JSON.stringify({ contact: 'e2e@example.com', sources: { wikipedia: { base_url: `${wiki.url}/w/api.php` } } }));
    const key = (await verity(['admin', 'keys', 'create', '--name', 'r', '--env', 'live', '--plan', 'pro'], { home })).stdout.trim();
    const serve = await spawn(['serve', '--port', '0', '--log-level', 'silent'], home);
    const N = 24;
    const input = join(home, 'claims.jsonl');
    writeFileSync(input, Array.from({ length: N }, (_, i) => JSON.stringify({ custom_id: `k${i}`, claim: `The Eiffel Tower is in Paris (${i})`, sources: ['wikipedia'] })).join('\n'));
    const journal = join(home, 'results.ndjson');
    const args = ['--remote', serve.url, '--key', key, 'verify', 'batch', input, '--type', 'claim', '--out', journal];

    // First run: killed without warning once the first result is printed (and journaled).
    const first = execa(process.execPath, [join(inject('verityRoot'), 'bin', 'verity.js'), ...args], {
      env: { PATH: process.env.PATH!, VERITY_HOME: home },
      extendEnv: false,
      reject: false,
    });
    await new Promise<void>((resolve) => first.stdout!.on('data', () => resolve()));
    wiki.options.mode = 'hang'; // the rest waits at the source: the batch is surely unfinished at the kill
    first.kill('SIGKILL');
    await first;
    const before = readFileSync(journal, 'utf8').split('\n').filter(Boolean).length;
    expect(before).toBeGreaterThan(0);
    expect(before).toBeLessThan(N);
    wiki.options.mode = 'ok';

    const again = await verity([...args, '--resume', '--json'], { home });
    expect(again.code, again.stderr).toBe(0);
    expect(JSON.parse(again.stdout)).toMatchObject({ total: N, succeeded: N, failed: 0, resumed: before });
    const lines = readFileSync(journal, 'utf8').split('\n').filter(Boolean).map((l) => JSON.parse(l));
    expect(lines).toHaveLength(N);
    expect(new Set(lines.map((l) => l.custom_id)).size).toBe(N);
    expect(lines.every((l) => l.status === 'succeeded' && l.type === 'claim' && typeof l.line === 'number')).toBe(true);
    // One server batch, run once: N credits, though the command ran twice.
    const list = JSON.parse((await verity(['--remote', serve.url, '--key', key, 'batches', 'list', '--json'], { home })).stdout);
    expect(list.data).toHaveLength(1);
    expect(list.data[0]).toMatchObject({ status: 'completed', request_counts: { total: N, succeeded: N } });

    const nowait = await verity(['--remote', serve.url, '--key', key, 'verify', 'batch', input, '--type', 'claim', '--no-wait'], { home });
    expect(nowait.code, nowait.stderr).toBe(0);
    // The same input within 24 h: the same server batch, not a new one.
    expect(nowait.stdout.trim()).toBe(list.data[0].id);
    serve.proc.kill('SIGTERM');
    await serve.proc;
    const usage = JSON.parse((await verity(['admin', 'usage', '--json'], { home })).stdout).data;
    expect(usage).toEqual([expect.objectContaining({ environment: 'live', credits: N, requests: N })]);
  });

  it('a 500-item mixed batch in remote mode gives the results of single calls (ids and latency aside)', async () => {
    const home = newHome();
    const { default: sharp } = await import('sharp');
    mkdirSync(join(home, 'photos'));
    for (let i = 0; i < 6; i++)
      await sharp({ create: { width: 320 + i * 8, height: 240, channels: 3, background: { r: 30 * i, g: 120, b: 90 } } })
        .withExif({ IFD0: { Make: 'Canon', Model: 'Canon EOS R5' } })
        .jpeg({ quality: 85 })
        .toFile(join(home, 'photos', `p${i}.jpg`));
    const verdicts = ['', ' #false', ' #unverifiable', ' #conflicting'];
    const items = Array.from({ length: 500 }, (_, i): Record<string, unknown> => {
      if (i % 4 === 0) return { type: 'claim', claim: `Claim number ${i} about the world${verdicts[(i / 4) % 4]}`, max_evidence: 1 + (i % 5) };
      if (i % 4 === 1) return { type: 'business', company_name: `Company ${i} Ltd`, jurisdiction: 'gb', officers: i % 3 === 0 };
      if (i % 4 === 2) return { type: 'media', file: `photos/p${i % 6}.jpg` };
      return { type: 'document', content: `Memo ${i}: the quarterly figures.` };
    });
    writeFileSync(join(home, 'mixed.jsonl'), items.map((i) => JSON.stringify(i)).join('\n'));
    const serve = await spawn(['serve', '--port', '0', '--log-level', 'silent'], home);
    const key = (await verity(['admin', 'keys', 'create', '--name', 'm', '--env', 'test', '--plan', 'business'], { home })).stdout.trim();
    const r = await verity(['--remote', serve.url, '--key', key, 'verify', 'batch', join(home, 'mixed.jsonl')], { home, cwd: home });
    expect(r.code, r.stderr).toBe(0);
    const out = lines(r.stdout).sort((a, b) => a.index - b.index);
    expect(out).toHaveLength(500);
    const schema = { claim: ClaimResult, business: BusinessResult, media: MediaResult, document: DocumentResult } as const;
    const engine = createSandboxEngine({ clock: { now: () => new Date() }, config: {}, http: null as never, fetchInput: null as never });
    const stable = (x: Record<string, unknown>): Record<string, unknown> => {
      const { id: _i, latency_ms: _l, ...rest } = x;
      return rest;
    };
    for (const [i, line] of out.entries()) {
      const { type, ...req } = items[i]! as Record<string, unknown> & { type: keyof typeof schema };
      expect([line.index, line.line, line.custom_id, line.type, line.status]).toEqual([i, i + 1, `line-${i + 1}`, type, 'succeeded']);
      expect(schema[type].safeParse(line.result).success).toBe(true);
      const single =
        type === 'claim'
          ? await engine.verifyClaim(req as never)
          : type === 'business'
            ? await engine.verifyBusiness(req as never)
            : type === 'media'
              ? await engine.verifyMedia({ file: readFileSync(join(home, req.file as string)).toString('base64') } as never)
              : await engine.verifyDocument({ source: 'raw', ...req } as never);
      expect(stable(line.result), `item ${i}`).toEqual(stable(single as never));
    }
    // One server batch per type.
    const list = JSON.parse((await verity(['--remote', serve.url, '--key', key, 'batches', 'list', '--json'], { home })).stdout);
    expect(list.data.map((b: { type: string }) => b.type).sort()).toEqual(['business', 'claim', 'document', 'media']);
  });
});
