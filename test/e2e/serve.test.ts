/**
 * `verity serve` end to end: the built bin, a temporary database, keys made with `admin`, the four
 * `verify` commands in remote mode against it, compared with embedded mode on the same sandbox
 * input; the CLI's exit codes and hints for 401/403; and SIGTERM during a request.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { connect } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { execa } from 'execa';
import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { head, rawRequest } from './raw-http.js';
import { startServeProcess, type Served } from './serve-process.js';

// The private copy of the built CLI made by test/e2e/global-setup.ts (a rebuild elsewhere empties dist/).
const BIN = join(inject('verityRoot'), 'bin', 'verity.js');
const home = mkdtempSync(join(tmpdir(), 'verity-serve-e2e-'));
const db = join(home, 'server.db');
const env = { VERITY_HOME: home, NO_COLOR: '1', VERITY_API_KEY: '', VERITY_BASE_URL: '' };
const cli = (args: string[], input?: string) => execa('node', [BIN, ...args], { env, reject: false, input });

async function startServe(extra: string[] = []): Promise<Served> {
  return startServeProcess(BIN, ['--db', db, ...extra], env);
}

async function createKey(name: string, envName: 'live' | 'test', plan: string): Promise<string> {
  const r = await cli(['admin', 'keys', 'create', '--name', name, '--env', envName, '--plan', plan, '--account', name, '--db', db]);
  expect(r.exitCode).toBe(0);
  return r.stdout.trim();
}

const strip = (o: Record<string, unknown>) => {
  const { id, latency_ms, ...rest } = o;
  expect(typeof id).toBe('string');
  expect(typeof latency_ms).toBe('number');
  return rest;
};

let served: Served;
let starter: string;
let business: string;
let imagePath: string;

beforeAll(async () => {
  starter = await createKey('starter-ci', 'test', 'starter');
  business = await createKey('business-ci', 'test', 'business');
  expect(starter).toMatch(/^vty_test_[0-9A-Za-z]{32}$/);
  imagePath = join(home, 'photo.jpg');
  await sharp({ create: { width: 64, height: 48, channels: 3, background: { r: 200, g: 40, b: 40 } } }).jpeg().toFile(imagePath);
  served = await startServe();
});

afterAll(async () => {
  served?.proc.kill('SIGTERM');
  await served?.proc;
  rmSync(home, { recursive: true, force: true });
});

describe('verity serve + remote mode', () => {
  it('prints exactly one ready line and lists the keys it was given (prefix only)', async () => {
    expect(served.stderr.filter((l) => l.startsWith('Listening on ')).length).toBe(1);
    expect(served.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    const list = await cli(['admin', 'keys', 'list', '--db', db, '--json']);
    const rows = (JSON.parse(list.stdout) as { data: Array<{ name: string; prefix: string; plan: string }> }).data;
    expect(rows.map((r) => r.name).sort()).toEqual(['business-ci', 'starter-ci']);
    expect(list.stdout).not.toContain(starter);
  });

  it('gives the same --json document in remote and embedded mode for all four verify commands (ids and latency aside)', async () => {
    const runs: string[][] = [
      ['verify', 'claim', 'The Eiffel Tower is in Paris'],
      ['verify', 'business', 'Acme Widgets Ltd', '--jurisdiction', 'gb', '--officers'],
      ['verify', 'media', imagePath],
      ['verify', 'document', '--source', 'raw', '--content', 'Quarterly results were strong. #ai_generated_text'],
    ];
    for (const args of runs) {
      const remote = await cli([...args, '--json', '--remote', served.url, '--key', business]);
      const local = await cli([...args, '--json', '--test']);
      expect(remote.exitCode, remote.stderr).toBe(0);
      expect(local.exitCode, local.stderr).toBe(0);
      expect(strip(JSON.parse(remote.stdout))).toEqual(strip(JSON.parse(local.stdout)));
    }
    const usage = await cli(['admin', 'usage', '--db', db, '--json']);
    const rows = (JSON.parse(usage.stdout) as { data: Array<{ account_name: string; environment: string; credits: number; requests: number }> }).data;
    // claim 1 + business 3 (officers) + media 5 + document 3, counted as test usage (no quota)
    expect(rows.find((r) => r.account_name === 'business-ci')).toMatchObject({ environment: 'test', credits: 12, requests: 4 });
  });

  it('exits 4 with an actionable message for a starter key asking for media, and for an unknown or revoked key', async () => {
    const forbidden = await cli(['verify', 'media', imagePath, '--remote', served.url, '--key', starter]);
    expect(forbidden.exitCode).toBe(4);
    expect(forbidden.stderr).toMatch(/business plan/);
    const forbiddenJson = await cli(['verify', 'media', imagePath, '--json', '--remote', served.url, '--key', starter]);
    expect(JSON.parse(forbiddenJson.stdout).error).toMatchObject({ code: 'FORBIDDEN', required_plan: 'business' });

    const unknown = await cli(['verify', 'claim', 'x', '--remote', served.url, '--key', `vty_test_${'Z'.repeat(32)}`]);
    expect(unknown.exitCode).toBe(4);
    expect(unknown.stderr).toMatch(/UNAUTHORIZED/);
    expect(unknown.stderr).toMatch(/verity keys add/);

    const extra = await createKey('to-revoke', 'test', 'pro');
    expect((await cli(['verify', 'claim', 'x', '--remote', served.url, '--key', extra])).exitCode).toBe(0);
    const rev = await cli(['admin', 'keys', 'revoke', extra.slice(0, 13), '--db', db, '--yes']);
    expect(rev.exitCode).toBe(0);
    const after = await cli(['verify', 'claim', 'x', '--json', '--remote', served.url, '--key', extra]);
    expect(after.exitCode).toBe(4);
    expect(JSON.parse(after.stdout).error.message).toMatch(/revoked/);
  });

  it('answers an oversized body with 413 and never logs a key', async () => {
    // Written over a raw socket: the server answers 413 and closes while the client may still be
    // writing; that early close (EPIPE/ECONNRESET on a loaded machine) is the expected outcome.
    const body = JSON.stringify({ source: 'upload', content: 'A'.repeat(31 * 1024 * 1024) });
    const res = await rawRequest(
      served.url,
      head('POST', '/v1/verify/document', served.url, [`Authorization: Bearer ${business}`, 'Content-Type: application/json', `Content-Length: ${Buffer.byteLength(body)}`]),
      body,
    );
    if (res.status === null) expect(res.closedEarly).toBe(true); // reset before the answer could be read
    else {
      expect(res.status).toBe(413);
      expect(JSON.parse(res.body).error.code).toBe('PAYLOAD_TOO_LARGE');
    }
    // Whatever reached the client, the server logged the request as a 413.
    await served.waitFor(/"status":413/);
    const logs = served.stderr.join('\n');
    expect(logs).toMatch(/"reqId":"req_/);
    for (const k of [starter, business]) expect(logs).not.toContain(k.slice(13));
  });
});

describe('graceful shutdown', () => {
  it('finishes a request that is in flight at SIGTERM, records its usage, and refuses new connections', async () => {
    // One serve per database: the suite's server stops first.
    served.proc.kill('SIGTERM');
    expect((await served.proc).exitCode).toBe(0);
    const s = await startServe(['--log-level', 'debug']);
    const { port, hostname } = new URL(s.url);
    const body = JSON.stringify({ claim: 'In flight at shutdown' });
    const sock = connect(Number(port), hostname);
    await new Promise<void>((r) => sock.once('connect', () => r()));
    let response = '';
    sock.on('data', (c) => (response += c.toString()));
    const closed = new Promise<void>((r) => sock.once('close', () => r()));
    sock.write(
      `POST /v1/verify/claim HTTP/1.1\r\nHost: ${hostname}\r\nAuthorization: Bearer ${business}\r\n` +
        `Content-Type: application/json\r\nContent-Length: ${Buffer.byteLength(body)}\r\n\r\n${body.slice(0, 10)}`,
    );
    // Once the server has the headers the request is in flight; stop the server then.
    await s.waitFor(/"msg":"incoming request"/);
    const inFlightSeen = s.waitFor(/stopped accepting connections/);
    s.proc.kill('SIGTERM');
    await inFlightSeen;
    const refused = await new Promise<string>((resolve) => {
      const c = connect(Number(port), hostname);
      c.once('connect', () => (c.destroy(), resolve('connected')));
      c.once('error', (e: NodeJS.ErrnoException) => resolve(e.code ?? 'error'));
    });
    expect(refused).toBe('ECONNREFUSED');
    sock.write(body.slice(10));
    await closed;
    expect(response).toMatch(/^HTTP\/1\.1 200 OK/);
    const result = JSON.parse(response.slice(response.indexOf('\r\n\r\n') + 4));
    expect(result.id).toMatch(/^vrf_clm_/);
    const exit = await s.proc;
    expect(exit.exitCode).toBe(0);
    expect(s.stderr.some((l) => /"msg":"shut down"/.test(l))).toBe(true);
    const usage = (JSON.parse((await cli(['admin', 'usage', '--db', db, '--json'])).stdout) as { data: Array<{ account_name: string; requests: number }> }).data;
    expect(usage.find((r) => r.account_name === 'business-ci')!.requests).toBe(5);
  });
});

describe('Ctrl-C stops a server as its normal end', () => {
  it('serve and listen: SIGINT is a graceful stop, exit 0, no "interrupted" line', async () => {
    const own = mkdtempSync(join(tmpdir(), 'verity-serve-sigint-'));
    try {
      const s = await startServeProcess(BIN, ['--db', join(own, 's.db')], { ...env, VERITY_HOME: own });
      s.proc.kill('SIGINT');
      const exit = await s.proc;
      expect(exit.exitCode).toBe(0);
      expect(s.stderr.some((l) => /"msg":"shut down"/.test(l))).toBe(true);
      expect(s.stderr.join('\n')).not.toMatch(/interrupted/);

      const l = execa('node', [BIN, 'listen', '--port', '0'], { env: { ...env, VERITY_HOME: own }, reject: false });
      await new Promise<void>((resolve, reject) => {
        let seen = '';
        l.stderr!.on('data', (c: Buffer) => {
          seen += c.toString();
          if (/Listening on /.test(seen)) resolve();
        });
        void l.then((r) => reject(new Error(`listen exited (${r.exitCode}): ${seen}`)));
      });
      l.kill('SIGINT');
      const done = await l;
      expect(done.exitCode).toBe(0);
      expect(String(done.stderr)).toMatch(/listener stopped/);
      expect(String(done.stderr)).not.toMatch(/interrupted/);
    } finally {
      rmSync(own, { recursive: true, force: true });
    }
  });
});

describe('verity admin migrate (SQLite)', () => {
  it('applies every component `verity serve` applies at start, batches included, and then nothing more', async () => {
    const fresh = join(home, 'migrated.db');
    const m = await cli(['admin', 'migrate', '--db', fresh, '--json']);
    expect(m.exitCode, m.stderr).toBe(0);
    expect(JSON.parse(m.stdout)).toEqual({
      database: fresh,
      applied: ['server@1', 'webhooks@1', 'webhooks@2', 'webhooks@3', 'webhooks@4', 'event_stream@1', 'event_stream@2', 'batches@1'],
    });
    expect(JSON.parse((await cli(['admin', 'migrate', '--db', fresh, '--json'])).stdout).applied).toEqual([]);
    // The database `serve` already migrated (at start) has nothing left either.
    expect(JSON.parse((await cli(['admin', 'migrate', '--db', db, '--json'])).stdout).applied).toEqual([]);
  });
});
