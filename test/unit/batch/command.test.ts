/** `verity verify batch` in process: real commander tree, sandbox engine, real files and journal. */
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createServer, type IncomingMessage } from 'node:http';
import type { AddressInfo } from 'node:net';
import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createSandboxEngine } from '../../../src/engine/index.js';
import { cleanHomes, fakeContext, runCli } from '../cli/fake-context.js';

const dir = mkdtempSync(join(tmpdir(), 'verity-batch-cmd-'));
afterAll(() => {
  rmSync(dir, { recursive: true, force: true });
  cleanHomes();
});
const file = (name: string, text: string | Buffer): string => {
  writeFileSync(join(dir, name), text);
  return join(dir, name);
};
const lines = (s: string): Array<Record<string, any>> =>
  s
    .split('\n')
    .filter(Boolean)
    .map((l) => JSON.parse(l));
/** A result without what differs between two runs of the same input. */
const stable = (r: Record<string, unknown>): Record<string, unknown> => {
  const { id: _id, latency_ms: _l, ...rest } = r;
  return rest;
};

let jpeg: Buffer;
beforeAll(async () => {
  jpeg = await sharp({ create: { width: 64, height: 48, channels: 3, background: { r: 200, g: 90, b: 40 } } })
    .withExif({ IFD0: { Make: 'Canon', Model: 'Canon EOS R5' } })
    .jpeg()
    .toBuffer();
  file('photo.jpg', jpeg);
});

describe('verify batch (sandbox, in process)', () => {
  it('a mixed JSONL batch: one line per item naming its input, results equal to single engine calls', async () => {
    const input = [
      { type: 'claim', claim: 'Water boils at 100 °C', custom_id: 'c1' },
      { type: 'claim', claim: 'The moon is cheese #false' },
      { type: 'business', company_name: 'Acme Widgets Ltd', jurisdiction: 'gb', officers: true },
      { type: 'media', file: 'photo.jpg' },
      { type: 'document', content: 'A memo. #ai_generated_text' },
    ];
    const path = file('mixed.jsonl', input.map((l) => JSON.stringify(l)).join('\n'));
    const r = await runCli(['verify', 'batch', path, '--test', '--concurrency', '2']);
    expect(r.stderr).toContain('5 items: 5 succeeded, 0 failed');
    expect(r.code).toBe(0);
    const out = lines(r.stdout).sort((a, b) => a.index - b.index);
    expect(out.map((l) => [l.custom_id, l.index, l.line, l.type, l.status])).toEqual([
      ['c1', 0, 1, 'claim', 'succeeded'],
      ['line-2', 1, 2, 'claim', 'succeeded'],
      ['line-3', 2, 3, 'business', 'succeeded'],
      ['line-4', 3, 4, 'media', 'succeeded'],
      ['line-5', 4, 5, 'document', 'succeeded'],
    ]);
    const engine = createSandboxEngine({ clock: fakeContext().ctx.clock, config: {}, http: null as never, fetchInput: null as never });
    const single = [
      await engine.verifyClaim({ claim: 'Water boils at 100 °C' }),
      await engine.verifyClaim({ claim: 'The moon is cheese #false' }),
      await engine.verifyBusiness({ company_name: 'Acme Widgets Ltd', jurisdiction: 'gb', officers: true }),
      await engine.verifyMedia({ file: jpeg.toString('base64') }),
      await engine.verifyDocument({ source: 'raw', content: 'A memo. #ai_generated_text' }),
    ];
    expect(out.map((l) => stable(l.result))).toEqual(single.map((s) => stable(s as never)));
    expect(out[1]!.result.verdict).toBe('false');
  });

  it('invalid input: exit 2 naming line and field, nothing run, no journal written', async () => {
    const path = file('bad.jsonl', '{"claim":"fine"}\n{"claim":""}\n');
    const out = join(dir, 'never.ndjson');
    const r = await runCli(['verify', 'batch', path, '--type', 'claim', '--test', '--out', out]);
    expect(r.code).toBe(2);
    expect(r.stdout).toBe('');
    expect(r.stderr).toContain('line 2 (claim): must not be empty');
    expect(r.stderr).toContain('VALIDATION_FAILED');
    expect(existsSync(out)).toBe(false);
    const json = await runCli(['verify', 'batch', path, '--type', 'claim', '--test', '--json']);
    expect(JSON.parse(json.stdout).error.details).toEqual([{ field: 'line 2 (claim)', issue: 'must not be empty' }]);
  });

  it('failed items are lines with an error; exit 1 (6 only when every item was "unavailable")', async () => {
    const path = file('fails.jsonl', ['{"company_name":"Notfound Holdings"}', '{"company_name":"Acme Ltd"}'].join('\n'));
    const r = await runCli(['verify', 'batch', path, '--type', 'business', '--test']);
    expect(r.code).toBe(1);
    const failed = lines(r.stdout).find((l) => l.status === 'failed')!;
    expect(failed).toMatchObject({ custom_id: 'line-1', line: 1, error: { code: 'NOT_FOUND' } });
    expect(failed.result).toBeUndefined();
    expect(r.stderr).toMatch(/line 1 line-1: .*\(NOT_FOUND\)/);
    // One item unavailable beside one that ran: some items failed (1), not "unavailable".
    const some = await runCli(['verify', 'batch', '-', '--type', 'claim', '--test'], { stdin: '{"claim":"x #unavailable"}\n{"claim":"y"}\n' });
    expect(some.code).toBe(1);
    const down = await runCli(['verify', 'batch', '-', '--type', 'claim', '--test'], { stdin: '{"claim":"x #unavailable"}\n{"claim":"y #unavailable"}\n' });
    expect(down.code).toBe(6);
    // A gate failure beside an unavailable item: the gate decides (3).
    const gated = await runCli(['verify', 'batch', '-', '--type', 'claim', '--test', '--fail-on', 'false'], {
      stdin: '{"claim":"x #unavailable"}\n{"claim":"Sky is green #false"}\n',
    });
    expect(gated.code).toBe(3);
  });

  it('--json: one summary with counts, failures and the gate over every item (exit 3)', async () => {
    const path = file('gate.csv', 'custom_id,claim\na,Sky is blue\nb,Sky is green #false\nc,Maybe #unverifiable\n');
    const r = await runCli(['verify', 'batch', path, '--type', 'claim', '--test', '--json', '--fail-on', 'false,unverifiable']);
    expect(r.code).toBe(3);
    const s = JSON.parse(r.stdout);
    expect(s).toMatchObject({ total: 3, succeeded: 3, failed: 0, resumed: 0, not_run: 0, failures: [], exit_code: 3 });
    expect(s.gate).toEqual({
      set: true,
      passed: false,
      failed_items: [
        { custom_id: 'b', line: 3, reasons: ['result is "false" (--fail-on)'] },
        { custom_id: 'c', line: 4, reasons: ['result is "unverifiable" (--fail-on)'] },
      ],
    });
    const pass = await runCli(['verify', 'batch', path, '--type', 'claim', '--test', '--json', '--fail-on', 'conflicting']);
    expect(pass.code).toBe(0);
  });

  it('--out journals every line; --resume skips what succeeded, reruns failures, and still gates over all items', async () => {
    const path = file('resume.jsonl', ['{"claim":"one #false"}', '{"claim":"two"}', '{"claim":"three"}'].join('\n'));
    const out = join(dir, 'resume.ndjson');
    // An earlier run that got through line 1 and failed line 2 (as if the source had been down).
    writeFileSync(
      out,
      `${JSON.stringify({ custom_id: 'line-1', index: 0, line: 1, type: 'claim', status: 'succeeded', result: { verdict: 'false', trust_score: 0.1 } })}\n` +
        `${JSON.stringify({ custom_id: 'line-2', index: 1, line: 2, type: 'claim', status: 'failed', error: { code: 'UNAVAILABLE', message: 'down' } })}\n`,
    );
    const refused = await runCli(['verify', 'batch', path, '--type', 'claim', '--test', '--out', out]);
    expect(refused.code).toBe(2);
    expect(refused.stderr).toContain('--resume');
    const r = await runCli(['verify', 'batch', path, '--type', 'claim', '--test', '--out', out, '--resume', '--fail-on', 'false']);
    expect(lines(r.stdout).map((l) => l.custom_id).sort()).toEqual(['line-2', 'line-3']);
    expect(r.code).toBe(3); // line 1's "false" from the earlier run still counts
    expect(r.stderr).toContain('resuming: 1 of 3 items already succeeded');
    const journal = lines(readFileSync(out, 'utf8'));
    expect(journal.map((l) => `${l.custom_id}:${l.status}`)).toEqual(['line-1:succeeded', 'line-2:failed', 'line-2:succeeded', 'line-3:succeeded']);
    expect(journal[3]!.idempotency_key).toMatch(/^vb-claim-[0-9a-f]{64}$/);
    expect((await runCli(['verify', 'batch', path, '--type', 'claim', '--test', '--resume'])).code).toBe(2);
    // An edit moves a different claim under line-2's default id: the journal's key no longer matches, so it runs again.
    writeFileSync(path, ['{"claim":"one #false"}', '{"claim":"two, edited"}', '{"claim":"three"}'].join('\n'));
    const edited = await runCli(['verify', 'batch', path, '--type', 'claim', '--test', '--out', out, '--resume']);
    expect(edited.code).toBe(0);
    expect(lines(edited.stdout).map((l) => l.custom_id)).toEqual(['line-2']);
    expect(edited.stderr).toContain('1 item in');
    expect(edited.stderr).toContain('line 2 line-2); they run again');
  });

  it('Ctrl-C: no new item starts, the journal holds every printed line, exit 130', async () => {
    const path = file('many.jsonl', Array.from({ length: 200 }, (_, i) => JSON.stringify({ claim: `claim ${i}` })).join('\n'));
    const out = join(dir, 'interrupted.ndjson');
    const fake = fakeContext();
    const ctrlC = new AbortController();
    fake.ctx.interrupted = ctrlC.signal;
    let seen = 0;
    fake.ctx.stdout.on('data', () => {
      if (++seen === 20) ctrlC.abort(new Error('interrupted'));
    });
    const r = await runCli(['verify', 'batch', path, '--type', 'claim', '--test', '--out', out, '--concurrency', '1'], fake);
    expect(r.code).toBe(130);
    const printed = lines(r.stdout);
    expect(printed.length).toBeGreaterThanOrEqual(20);
    expect(printed.length).toBeLessThan(200);
    expect(lines(readFileSync(out, 'utf8'))).toEqual(printed);
  });

  it('the progress line is drawn on stderr only on a terminal, never into stdout', async () => {
    const path = file('progress.jsonl', Array.from({ length: 30 }, (_, i) => JSON.stringify({ claim: `c ${i}` })).join('\n'));
    const tty = await runCli(['verify', 'batch', path, '--type', 'claim', '--test'], { stderrTTY: true });
    expect(tty.code).toBe(0);
    expect(tty.stderr).toMatch(/\d+\/30 ✓\d+ ✗0/);
    expect(lines(tty.stdout)).toHaveLength(30);
    const piped = await runCli(['verify', 'batch', path, '--type', 'claim', '--test']);
    expect(piped.stderr).not.toMatch(/✓\d+ ✗/);
    expect(piped.stderr).toContain('30 items: 30 succeeded');
  });

  it('a person at a terminal (stdout a TTY) gets a summary table, no JSON; --ndjson and --out still get the lines', async () => {
    const path = file('tty.jsonl', [...Array.from({ length: 4 }, (_, i) => JSON.stringify({ claim: `claim number ${i}` })), JSON.stringify({ type: 'business', company_name: 'Acme Widgets Ltd', jurisdiction: 'gb' })].join('\n'));
    const tty = await runCli(['verify', 'batch', path, '--type', 'claim', '--test', '--min-trust', '0.99', '--no-color'], { stdoutTTY: true, stderrTTY: true });
    expect(tty.code).toBe(3);
    expect(tty.stdout).not.toMatch(/^\{/m);
    expect(tty.stdout).not.toContain('"custom_id"');
    expect(tty.stdout).toMatch(/Batch\s+5 items · 5 succeeded · 0 failed/);
    expect(tty.stdout).toMatch(/│ Kind\s+│ Items │\s+OK │ Failed │ Gate │ Outcomes/);
    expect(tty.stdout).toMatch(/│ claims\s+│\s+4 │\s+4 │\s+0 │/);
    expect(tty.stdout).toMatch(/│ companies\s+│\s+1 │\s+1 │\s+0 │\s+1 │ active 1/);
    expect(tty.stdout).toMatch(/Gate hits \(5\)/);
    expect(tty.stdout).toMatch(/below --min-trust 0\.99/);
    expect(tty.stdout).toContain('not kept: add --out FILE');
    for (const l of tty.stdout.split('\n')) expect(l.replace(/\u001b\[[0-9;]*m/g, '').length, l).toBeLessThanOrEqual(100);

    const nd = await runCli(['verify', 'batch', path, '--type', 'claim', '--test', '--ndjson'], { stdoutTTY: true });
    expect(lines(nd.stdout)).toHaveLength(5);
    expect(nd.stderr).toContain('5 items: 5 succeeded');

    const journal = join(dir, 'tty-journal.ndjson');
    const kept = await runCli(['verify', 'batch', path, '--type', 'claim', '--test', '--out', journal], { stdoutTTY: true });
    expect(kept.code).toBe(0);
    expect(lines(readFileSync(journal, 'utf8'))).toHaveLength(5);
    expect(kept.stdout).not.toContain('"custom_id"');
    expect(kept.stdout).toContain(`one JSON line per item in ${journal}`);
  });

  it('--concurrency is checked before the input is read', async () => {
    const r = await runCli(['verify', 'batch', 'nowhere.jsonl', '--type', 'claim', '--test', '--concurrency', '0']);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('--concurrency');
  });

  it('remote, item by item (--per-item): each item sends the key derived from its input, the same on a re-run; a quota error stops the rest (exit 5)', async () => {
    const seen: Array<{ key: string; body: string }> = [];
    let quotaAfter = Infinity;
    const server = createServer((req: IncomingMessage, res) => {
      let body = '';
      req.on('data', (c) => (body += c));
      req.on('end', () => {
        seen.push({ key: String(req.headers['idempotency-key']), body });
        const quota = seen.length > quotaAfter;
        res.writeHead(quota ? 402 : 200, { 'content-type': 'application/json' });
        res.end(JSON.stringify(quota ? { error: { code: 'QUOTA_EXCEEDED', message: 'credits used up' } } : { id: 'vrf_clm_x', verdict: 'true', trust_score: 0.8 }));
      });
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    try {
      const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
      const path = file('remote.jsonl', ['{"claim":"a"}', '{"claim":"b","language":"en"}', '{"claim":"c"}', '{"claim":"d"}'].join('\n'));
      const args = ['verify', 'batch', path, '--type', 'claim', '--remote', url, '--concurrency', '1', '--per-item'];
      expect((await runCli(args)).code).toBe(0);
      const first = seen.splice(0).map((s) => s.key);
      expect(new Set(first).size).toBe(4);
      expect(first.every((k) => /^vb-claim-[0-9a-f]{64}$/.test(k))).toBe(true);
      quotaAfter = 2;
      const again = await runCli([...args, '--json']);
      expect(again.code).toBe(5);
      expect(seen.map((s) => s.key)).toEqual(first.slice(0, 3));
      expect(JSON.parse(again.stdout)).toMatchObject({ succeeded: 2, failed: 1, not_run: 1, exit_code: 5 });
    } finally {
      server.close();
    }
  });

  it('stdin over the bound (1 GB offered) is refused once 100 MB have arrived, not read to the end', async () => {
    const fake = fakeContext();
    let sent = 0;
    const { Readable } = await import('node:stream');
    const chunk = Buffer.alloc(1024 * 1024, 0x20);
    fake.ctx.stdin = Readable.from(
      (function* () {
        while (sent < 1024) {
          sent++;
          yield chunk;
        }
      })(),
    );
    const r = await runCli(['verify', 'batch', '-', '--type', 'claim', '--test'], fake);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('PAYLOAD_TOO_LARGE');
    expect(sent).toBeLessThan(110);
  });

  it('`verify claim -` with several lines still checks one claim, and says batch is the way to check one per line', async () => {
    const r = await runCli(['verify', 'claim', '-', '--test', '--json'], { stdin: 'first claim\nsecond claim\n' });
    expect(r.code).toBe(0);
    expect(r.stderr).toContain('stdin has 2 lines; they are checked as one claim');
    expect(r.stderr).toContain('verity verify batch');
    const one = await runCli(['verify', 'claim', '-', '--test', '--json'], { stdin: 'just one\n' });
    expect(one.stderr).toBe('');
  });

  it('a folder of files with --type media', async () => {
    const f = join(dir, 'album');
    const { mkdirSync } = await import('node:fs');
    mkdirSync(f);
    writeFileSync(join(f, 'a.jpg'), jpeg);
    writeFileSync(join(f, 'b.jpg'), Buffer.concat([jpeg, Buffer.from('verity-sandbox:manipulated')]));
    const r = await runCli(['verify', 'batch', f, '--type', 'media', '--test', '--fail-on', 'manipulated']);
    expect(r.code).toBe(3);
    const out = Object.fromEntries(lines(r.stdout).map((l) => [l.custom_id, l.result.authenticity]));
    expect(out).toEqual({ 'a.jpg': 'likely_authentic', 'b.jpg': 'manipulated' });
    expect(r.stderr).toContain('line 2 b.jpg: result is "manipulated"');
  });
});
