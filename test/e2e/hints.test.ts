/**
 * Hints that point the right way (issue 32 item 5), corpus ls/rm, per-account plans and the
 * stdin prompt, through the built CLI. Remote failures come from a fake verity service on
 * loopback that speaks the API's error format; a port in use is held by this test process.
 */
import { createServer as createHttpServer, type Server } from 'node:http';
import { createServer as createNetServer } from 'node:net';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';
import { newHome, verity } from './run-cli.js';
import { hasTmux, startInTmux, type Pane } from './tmux.js';

const examples = fileURLToPath(new URL('../../examples/', import.meta.url));
const KEY = `vty_test_${'A'.repeat(32)}`;
const closers: Array<() => Promise<void>> = [];
const panes: Pane[] = [];
afterEach(async () => {
  for (const p of panes.splice(0)) p.kill();
  for (const c of closers.splice(0)) await c();
});

/** A fake verity service answering every request with one status, headers and API error body. */
async function fakeService(status: number, headers: Record<string, string>, code: string, message: string): Promise<{ url: string; hits: () => number }> {
  let hits = 0;
  const server: Server = createHttpServer((req, res) => {
    hits++;
    req.resume();
    req.on('end', () => {
      res.writeHead(status, { 'content-type': 'application/json', ...headers });
      res.end(JSON.stringify({ error: { code, message } }));
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  closers.push(() => new Promise<void>((r) => (server.closeAllConnections(), server.close(() => r()))));
  return { url: `http://127.0.0.1:${(server.address() as { port: number }).port}`, hits: () => hits };
}

/** A port held by this process, for the "already in use" errors. */
async function heldPort(): Promise<number> {
  const s = createNetServer();
  await new Promise<void>((r) => s.listen(0, '127.0.0.1', r));
  closers.push(() => new Promise<void>((r) => s.close(() => r())));
  return (s.address() as { port: number }).port;
}

describe('remote mode: retries are announced, and the hint names the real cause', () => {
  it('the service answers 503 with its own error body: each retry is a warning line; the hint says the service is up', async () => {
    const svc = await fakeService(503, { 'retry-after': '0' }, 'UNAVAILABLE', 'no claim source answered');
    const r = await verity(['verify', 'claim', 'The Eiffel Tower is in Paris', '--remote', svc.url, '--key', KEY]);
    expect(r.code).toBe(6);
    expect(svc.hits()).toBe(3);
    const host = new URL(svc.url).host;
    expect(r.stderr).toContain(`warning: the service at ${host} answered 503 (no claim source answered); retrying now (attempt 2 of 3)`);
    expect(r.stderr).toContain('(attempt 3 of 3)');
    expect(r.stderr).toContain(`hint: the service at ${host} answered, but what it depends on is unavailable`);
    expect(r.stderr).not.toContain('check that the service');
  });

  it('the service cannot be reached: retries said with their wait, then "check that the service is up"', async () => {
    const port = await heldPort(); // listening with no HTTP: connections are reset or hang up
    await closers.pop()!(); // ... then closed, so the port refuses connections
    const r = await verity(['verify', 'claim', 'x', '--remote', `http://127.0.0.1:${port}`, '--key', KEY, '--json']);
    expect(r.code).toBe(6);
    expect(JSON.parse(r.stdout)).toMatchObject({ error: { code: 'UNAVAILABLE' } });
    expect(r.stderr).toMatch(/warning: Cannot reach the service at 127\.0\.0\.1:\d+ \(ECONNREFUSED\); retrying in 250 ms \(attempt 2 of 3\)/);
    expect(r.stderr).toMatch(/hint: check that the service at 127\.0\.0\.1:\d+ is up and reachable/);
  });

  it('a rate limit gives the wait in minutes and the clock time, not seconds', async () => {
    const svc = await fakeService(429, { 'retry-after': '3500' }, 'RATE_LIMITED', 'Too many requests');
    const r = await verity(['verify', 'claim', 'x', '--remote', svc.url, '--key', KEY]);
    expect(r.code).toBe(5);
    expect(svc.hits()).toBe(1); // 58 min is past what one call waits for
    // The real clock runs here: past midnight the time carries its date ("28 Nov 00:53"); the
    // format itself is tested with an injected clock (test/unit/cli/hints.test.ts).
    expect(r.stderr).toMatch(/hint: retry in 59 min \(at (\d{1,2} [A-Z][a-z]{2} )?\d{2}:\d{2}\)/);
    expect(r.stderr).not.toContain('3500 s');
  });
});

describe('a live claim with every source down', () => {
  it('lists the failed sources and the next steps: --test, --sources local with a corpus', async () => {
    const home = newHome();
    const port = await heldPort();
    await closers.pop()!(); // a closed port: the source refuses connections at once
    expect((await verity(['config', 'set', 'sources.wikipedia.base_url', `http://127.0.0.1:${port}/w/api.php`], { home })).code).toBe(0);
    const r = await verity(['verify', 'claim', 'The Eiffel Tower is in Paris', '--sources', 'wikipedia'], { home });
    expect(r.code).toBe(6);
    expect(r.stderr).toContain('no claim source answered');
    expect(r.stderr).toContain('hint: offline or every source down? `--test` gives sandbox results; `--sources local` searches your own corpus');
  }, 30_000);
});

describe('a port already in use', () => {
  it('listen and serve name the port, its holder and --port; never the remote hint', async () => {
    const port = await heldPort();
    const env = { VERITY_BASE_URL: 'http://127.0.0.1:9' }; // a profile in remote mode must not change the hint
    for (const args of [['listen', '--port', String(port)], ['serve', '--port', String(port), '--host', '127.0.0.1']]) {
      const r = await verity(args, { env });
      expect(r.code, args[0]).toBe(6);
      expect(r.stderr, args[0]).toContain(`Port ${port} on 127.0.0.1 is already in use by pid ${process.pid}`);
      expect(r.stderr, args[0]).toContain('pick another port with --port');
      expect(r.stderr, args[0]).not.toContain('check that the service');
    }
  }, 30_000);
});

describe('the local corpus', () => {
  it('--sources local with no corpus: NOT_FOUND (exit 1) naming `verity corpus add`, not an unverifiable answer', async () => {
    const r = await verity(['verify', 'claim', 'The bridge budget was approved', '--sources', 'local', '--json']);
    expect(r.code).toBe(1);
    expect(JSON.parse(r.stdout)).toMatchObject({ error: { code: 'NOT_FOUND', details: [{ field: 'sources' }] } });
    expect(r.stderr).toContain('verity corpus add');
  });

  it('corpus ls lists files with rows; rm asks (needs --yes in a script), removes one file or all', async () => {
    const home = newHome();
    const a = join(home, 'minutes.jsonl');
    const b = join(home, 'notes.csv');
    writeFileSync(a, `${JSON.stringify({ text: 'The council approved the bridge budget.', url: 'https://council.example/1' })}\n${JSON.stringify({ text: 'The budget is 12 million euros.', url: 'https://council.example/2' })}\n`);
    writeFileSync(b, 'text,url\nThe bridge opens in 2027.,https://notes.example/1\n');
    expect((await verity(['corpus', 'add', a, b], { home })).code).toBe(0);
    const ls = await verity(['corpus', 'ls', '--json'], { home });
    expect(JSON.parse(ls.stdout).data.map((f: { file: string; rows: number }) => [f.file, f.rows])).toEqual([
      [a, 2],
      [b, 1],
    ]);
    const human = await verity(['corpus', 'ls'], { home });
    expect(human.stdout).toMatch(/ROWS\s+IMPORTED\s+FILE/);
    expect(human.stdout).toContain(a);
    // Destructive: a script must say --yes; nothing is removed without it.
    const noYes = await verity(['corpus', 'rm', a], { home });
    expect(noYes.code).toBe(2);
    expect(noYes.stderr).toContain('add --yes');
    const unknown = await verity(['corpus', 'rm', join(home, 'other.jsonl'), '--yes'], { home });
    expect(unknown.code).toBe(1);
    expect(unknown.stderr).toContain('minutes.jsonl');
    const rm = await verity(['corpus', 'rm', a, '--yes', '--json'], { home });
    expect(JSON.parse(rm.stdout)).toEqual({ removed: 2, file: a });
    expect(JSON.parse((await verity(['corpus', 'ls', '--json'], { home })).stdout).data).toHaveLength(1);
    expect(JSON.parse((await verity(['corpus', 'rm', '--all', '--yes', '--json'], { home })).stdout)).toEqual({ removed: 1, file: null });
    expect((await verity(['corpus', 'ls'], { home })).stderr).toContain('The local corpus is empty');
  });
});

describe('hints for the wrong command or setting', () => {
  it('config set base_url points at the profile setting', async () => {
    const r = await verity(['config', 'set', 'base_url', 'http://127.0.0.1:8080']);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('Unknown setting "base_url"; did you mean "profiles.default.base_url"');
    expect(r.stderr).toContain('verity config set profiles.default.base_url URL');
  });

  it('verify media on a PDF points at verify document; verify document on a video at verify media', async () => {
    const pdf = join(examples, 'letter.pdf');
    const media = await verity(['verify', 'media', pdf]);
    expect(media.code).toBe(2);
    expect(media.stderr).toContain(`hint: documents (PDF, DOCX, text) are checked with \`verity verify document ${pdf}\``);
    const home = newHome();
    const mp4 = join(home, 'clip.mp4');
    // The smallest ISO-BMFF header file-type reads as video/mp4.
    writeFileSync(mp4, Buffer.concat([Buffer.from([0, 0, 0, 0x18]), Buffer.from('ftypmp42', 'latin1'), Buffer.alloc(4), Buffer.from('mp42isom', 'latin1')]));
    const doc = await verity(['verify', 'document', mp4], { home });
    expect(doc.code).toBe(2);
    expect(doc.stderr).toContain(`hint: videos are checked with \`verity verify media ${mp4}\``);
  });

  it('validation errors in our words: allowed values listed once, no zod wording', async () => {
    const r = await verity(['verify', 'claim', 'x', '--test', '--sources', 'webb,twitter']);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('--sources: must be one of: web, wikipedia, google_fact_check, semantic_scholar, gdelt, local');
    expect(r.stderr.match(/--sources:/g)).toHaveLength(1);
    const n = await verity(['verify', 'claim', 'x', '--test', '--max-evidence', 'many']);
    expect(n.stderr).toContain('must be a number (got text)');
    for (const s of [r.stderr, n.stderr]) expect(s).not.toMatch(/Invalid option|Invalid input|expected one of|received/);
  });
});

describe('operators and embedded results', () => {
  it('admin keys create: a different --plan for an existing account is refused, naming it; --change-plan moves it', async () => {
    const home = newHome();
    expect((await verity(['admin', 'keys', 'create', '--name', 'a1', '--account', 'acme', '--plan', 'business'], { home })).code).toBe(0);
    const refused = await verity(['admin', 'keys', 'create', '--name', 'a2', '--account', 'acme', '--plan', 'starter'], { home });
    expect(refused.code).toBe(2);
    expect(refused.stderr).toContain('Account "acme" is on the business plan with 1 active key');
    expect(refused.stderr).toContain('--change-plan');
    const moved = await verity(['admin', 'keys', 'create', '--name', 'a3', '--account', 'acme', '--plan', 'starter', '--change-plan', '--json'], { home });
    expect(JSON.parse(moved.stdout)).toMatchObject({ account_name: 'acme', plan: 'starter' });
    const list = JSON.parse((await verity(['admin', 'keys', 'list', '--json'], { home })).stdout).data as Array<{ name: string; plan: string }>;
    expect(list.map((k) => [k.name, k.plan])).toEqual([['a1', 'starter'], ['a3', 'starter']]);
  });

  it('an embedded result says its credits are not billed; a removed key points at admin keys revoke', async () => {
    const r = await verity(['verify', 'claim', 'The Eiffel Tower is in Paris', '--test']);
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/not billed \(run here; \d+ credits? on a service\)/);
    const home = newHome();
    expect((await verity(['keys', 'add', 'old', '--key', KEY], { home })).code).toBe(0);
    const rm = await verity(['keys', 'rm', 'old', '--yes'], { home });
    expect(rm.stderr).toContain('verity admin keys revoke');
    expect(rm.stderr).not.toContain('dashboard');
  });
});

describe.skipIf(!hasTmux)('on a terminal', () => {
  it('a remote retry is a whole warning line while the spinner turns, not mixed into it', async () => {
    const svc = await fakeService(503, { 'retry-after': '1' }, 'UNAVAILABLE', 'no claim source answered');
    const p = startInTmux(['verify', 'claim', 'x', '--remote', svc.url, '--key', KEY], { cols: 160 });
    panes.push(p);
    expect(await p.exitStatus()).toBe(6);
    const lines = p.screen().split('\n');
    const warnings = lines.filter((l) => l.includes('retrying in'));
    expect(warnings).toHaveLength(2);
    for (const w of warnings) expect(w).toMatch(/^warning: the service at 127\.0\.0\.1:\d+ answered 503 \(no claim source answered\); retrying in 1 s \(attempt [23] of 3\)$/);
  }, 30_000);

  it('verify claim - says it reads stdin until Ctrl-D, then checks what was typed', async () => {
    const p = startInTmux(['verify', 'claim', '-', '--test'], { cols: 100 });
    panes.push(p);
    await p.waitFor(/Reading the claim from stdin; end with Ctrl-D/, 'the stdin prompt');
    p.keys('The Eiffel Tower is in Paris', 'Enter');
    p.keys('C-d');
    expect(await p.exitStatus()).toBe(0);
    expect(p.screen()).toMatch(/Verdict/i);
  }, 30_000);
});
if (!hasTmux) console.warn('hints tests on a terminal skipped: tmux is not installed (apt-get install tmux)');
