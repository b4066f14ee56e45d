/**
 * Webhooks end to end with the built CLI: `verity serve` + `verity listen` + `verify --remote`;
 * refusals with their diagnosis; `--forward-to` byte-identical; embedded delivery; trigger.
 */
import { createHmac, randomBytes } from 'node:crypto';
import { existsSync } from 'node:fs';
import { createServer, type IncomingHttpHeaders } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { execa, type ResultPromise } from 'execa';
import { Webhook as ReferenceWebhook } from 'standardwebhooks';
import { afterAll, describe, expect, inject, it } from 'vitest';
import { newHome, verity } from './run-cli.js';

const SECRET = 'e2e-listen-secret-0123456789-0123456789';
const procs: ResultPromise[] = [];
const closers: Array<() => void> = [];
afterAll(async () => {
  for (const c of closers) c();
  for (const p of procs) p.kill('SIGTERM');
  await Promise.allSettled(procs);
});

interface Running {
  proc: ResultPromise;
  url: string;
  stdout: string[];
  stderr: string[];
  nextStdout(pred: (l: string) => boolean): Promise<string>;
}

/** Spawns a long-running command and waits for its `Listening on URL` line on stderr. */
async function spawnServer(args: string[], home: string, env: Record<string, string> = {}): Promise<Running> {
  const root = inject('verityRoot');
  const proc = execa(process.execPath, [join(root, 'bin', 'verity.js'), ...args], {
    env: { PATH: process.env.PATH!, HOME: process.env.HOME!, VERITY_HOME: home, NO_COLOR: '1', ...env },
    extendEnv: false,
    reject: false,
  });
  procs.push(proc);
  const stdout: string[] = [];
  const stderr: string[] = [];
  const waiters: Array<{ pred: (l: string) => boolean; resolve: (l: string) => void; from: string[] }> = [];
  const feed = (into: string[]) => {
    let buf = '';
    return (chunk: Buffer) => {
      buf += chunk.toString();
      let i;
      while ((i = buf.indexOf('\n')) >= 0) {
        const line = buf.slice(0, i);
        buf = buf.slice(i + 1);
        into.push(line);
        for (const w of [...waiters]) if (w.from === into && w.pred(line)) (waiters.splice(waiters.indexOf(w), 1), w.resolve(line));
      }
    };
  };
  proc.stdout!.on('data', feed(stdout));
  proc.stderr!.on('data', feed(stderr));
  const wait = (from: string[], pred: (l: string) => boolean, consumed: Set<string>) =>
    new Promise<string>((resolve, reject) => {
      const seen = from.find((l) => !consumed.has(l) && pred(l));
      if (seen) return (consumed.add(seen), resolve(seen));
      waiters.push({ pred: (l) => !consumed.has(l) && pred(l), resolve: (l) => (consumed.add(l), resolve(l)), from });
      void proc.then((r) => reject(new Error(`${args[0]} exited (${r.exitCode}): ${stderr.join('\n')}`)));
    });
  const ready = await wait(stderr, (l) => l.startsWith('Listening on '), new Set());
  const consumed = new Set<string>();
  return { proc, url: ready.slice('Listening on '.length).trim(), stdout, stderr, nextStdout: (pred) => wait(stdout, pred, consumed) };
}

const sign = (secret: string, body: string) => `sha256=${createHmac('sha256', secret).update(body).digest('hex')}`;

function event(type = 'verification.completed', id = `wh_${Math.random().toString(36).slice(2)}E2e`) {
  return JSON.stringify({ id, type, created_at: new Date().toISOString(), data: { request_id: 'vrf_clm_E2e', verdict: 'true', trust_score: 0.9 } });
}

async function post(url: string, body: string, headers: Record<string, string>) {
  const res = await fetch(url, { method: 'POST', body, headers: { 'content-type': 'application/json', ...headers } });
  return { status: res.status, json: (await res.json().catch(() => undefined)) as any };
}

describe('verity serve + verity listen + verify --remote', () => {
  it('delivers a signed verification.completed that the listener accepts and prints', async () => {
    const home = newHome();
    const listener = await spawnServer(['listen', '--port', '0', '--secret', SECRET, '--ndjson'], home);
    // The listener is on loopback: the development switch lets serve deliver there.
    const serve = await spawnServer(['serve', '--port', '0', '--log-level', 'silent', '--allow-private-webhooks'], home);
    const key = await verity(['admin', 'keys', 'create', '--name', 'wh', '--env', 'test', '--plan', 'pro'], { home });
    expect(key.code).toBe(0);
    const k = key.stdout.trim();
    const remote = ['--remote', serve.url, '--key', k];

    const add = await verity([...remote, 'webhooks', 'add', `${listener.url}/hook`, '--events', 'verification.completed', '--secret', SECRET, '--json'], { home });
    expect(add.code, add.stderr).toBe(0);
    const hook = JSON.parse(add.stdout);
    expect(hook.id).toMatch(/^we_/);

    const v = await verity([...remote, 'verify', 'claim', 'The Eiffel Tower is in Paris', '--json'], { home });
    expect(v.code, v.stderr).toBe(0);
    const result = JSON.parse(v.stdout);
    const line = JSON.parse(await listener.nextStdout((l) => l.includes(result.id)));
    expect(line).toMatchObject({
      outcome: 'accepted',
      status: 200,
      type: 'verification.completed',
      request_id: result.id,
      verdict: result.verdict,
      trust_score: result.trust_score,
      attempt: 1,
      secret_index: 0,
    });
    expect(line.event_id).toMatch(/^wh_/);

    const log = await verity([...remote, 'webhooks', 'deliveries', hook.id, '--json'], { home });
    expect(JSON.parse(log.stdout).data[0]).toMatchObject({ event_id: line.event_id, outcome: 'delivered', status_code: 200 });

    // Replay: same event id again, marked as a replay: the listener takes it (and would forward
    // it) instead of swallowing it as a duplicate, as `stripe events resend` does.
    const replay = await verity([...remote, 'webhooks', 'replay', line.event_id, '--json'], { home });
    expect(JSON.parse(replay.stdout)).toEqual({ event_id: line.event_id, deliveries: 1 });
    const again = JSON.parse(await listener.nextStdout((l) => l.includes(line.event_id)));
    expect(again).toMatchObject({ outcome: 'accepted', replay: true });

    const list = await verity([...remote, 'webhooks', 'list'], { home });
    expect(list.stdout).toContain(hook.id);
    expect(list.stdout).not.toContain(SECRET);
  });
});

describe('verity listen', () => {
  it('refuses and explains tampered, re-encoded, unsigned and stale events; dedupes by id', async () => {
    const home = newHome();
    const l = await spawnServer(['listen', '--port', '0', '--secret', 'old-secret-0123456789-0123456789-abc', '--secret', SECRET], home);
    const body = event();
    const sig = sign(SECRET, body);

    expect((await post(`${l.url}/any/path`, body, { 'x-service-signature': sig })).status).toBe(200);
    expect(await l.nextStdout((x) => x.includes('attempt'))).toContain('vrf_clm_E2e');

    const tampered = await post(l.url, body.replace('0.9', '0.1'), { 'x-service-signature': sig });
    expect(tampered.status).toBe(401);
    expect(tampered.json.error.reason).toBe('no_secret_matched');
    expect(await l.nextStdout((x) => x.includes('refused'))).toMatch(/refused 401 .*no configured secret .*\(no_secret_matched\)/);
    // The first wrong-secret refusal says where the secret comes from.
    expect(await l.nextStdout((x) => x.includes('hint:'))).toContain("pass the webhook's signing secret: `verity webhooks add` printed it once");
    // A delivery from `verity serve` names its event and webhook in headers: the line names them.
    const named = await post(l.url, body.replace('0.9', '0.2'), {
      'x-service-signature': sig,
      'x-service-event-id': 'wh_Named1',
      'x-service-event-type': 'verification.completed',
      'x-service-webhook-id': 'we_Hook1',
    });
    expect(named.status).toBe(401);
    expect(await l.nextStdout((x) => x.includes('wh_Named1'))).toMatch(
      /refused 401 {2}verification\.completed wh_Named1 \(as its headers say\) for webhook we_Hook1: no configured secret/,
    );

    const pretty = JSON.stringify(JSON.parse(body), null, 2);
    expect((await post(l.url, pretty, { 'x-service-signature': sig })).json.error.reason).toBe('body_reencoded');
    expect(await l.nextStdout((x) => x.includes('refused'))).toMatch(/re-encoded after signing/);

    expect((await post(l.url, body, {})).json.error.reason).toBe('missing_header');
    expect((await post(l.url, body, { 'x-service-signature': sig.replace('sha256', 'sha1') })).json.error.reason).toBe('wrong_prefix');

    const old = JSON.stringify({ ...JSON.parse(event()), created_at: new Date(Date.now() - 9 * 3_600_000).toISOString() });
    const stale = await post(l.url, old, { 'x-service-signature': sign(SECRET, old) });
    expect(stale.status).toBe(401);
    expect(stale.json.error.reason).toBe('stale_event');

    const again = await post(l.url, body, { 'x-service-signature': sig });
    expect(again.json).toEqual({ received: true, duplicate: true });
  });

  it('forwards byte-identical bodies and headers, and answers 502 when the app is down', async () => {
    const received: Array<{ body: Buffer; headers: IncomingHttpHeaders }> = [];
    const app = createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => {
        received.push({ body: Buffer.concat(chunks), headers: req.headers });
        res.end('thanks from the app');
      });
    });
    await new Promise<void>((r) => app.listen(0, '127.0.0.1', r));
    closers.push(() => app.close());
    const appUrl = `http://127.0.0.1:${(app.address() as AddressInfo).port}/webhooks`;
    const home = newHome();
    const l = await spawnServer(
      ['listen', '--port', '0', '--secret', SECRET, '--forward-to', appUrl, '--forward-to', 'credit.threshold=http://127.0.0.1:9/down'],
      home,
    );
    // Unusual but valid bytes: unicode, escaped slashes, odd spacing. They must arrive unchanged.
    const body = `{"id":"wh_Fwd1","type":"verification.completed","created_at":"${new Date().toISOString()}",  "data":{"note":"caf\u00e9 \\/ ✓"}}`;
    const sig = sign(SECRET, body);
    const r = await post(l.url, body, { 'x-service-signature': sig, 'x-service-event-id': 'wh_Fwd1', 'x-service-attempt': '3' });
    expect(r.status).toBe(200);
    expect(received).toHaveLength(1);
    expect(received[0]!.body.equals(Buffer.from(body))).toBe(true);
    expect(received[0]!.headers['x-service-signature']).toBe(sig);
    expect(received[0]!.headers['x-service-attempt']).toBe('3');
    const line = await l.nextStdout((x) => x.includes('→'));
    expect(line).toContain(`→ ${appUrl}  200`);

    // credit.threshold goes to its typed route only (the most specific route wins), whose app is
    // down → 502, so the sender retries; the catch-all app does not get it.
    const credit = event('credit.threshold');
    const down = await post(l.url, credit, { 'x-service-signature': sign(SECRET, credit) });
    expect(down.status).toBe(502);
    expect(down.json.error.message).toMatch(/connection refused/);
    expect(received).toHaveLength(1);
  });

  it('exits non-zero with a message when the port is taken; trigger reaches it with the shared local secret', async () => {
    const home = newHome();
    const l = await spawnServer(['listen', '--port', '0'], home);
    const port = new URL(l.url).port;
    const clash = await verity(['listen', '--port', port], { home });
    expect(clash.code).not.toBe(0);
    expect(clash.stderr).toMatch(/already in use/);

    const t = await verity(['webhooks', 'trigger', 'credit.threshold', '--to', `${l.url}/`, '--json'], { home });
    expect(t.code, t.stderr).toBe(0);
    const sent = JSON.parse(t.stdout);
    expect(sent).toMatchObject({ type: 'credit.threshold', status: 200 });
    expect(await l.nextStdout((x) => x.includes(sent.event_id))).toContain('credit.threshold');

    const wrong = await verity(['webhooks', 'trigger', 'verification.failed', '--to', l.url, '--secret', 'x'.repeat(40)], { home });
    expect(wrong.code).toBe(6);
    expect(wrong.stderr).toMatch(/HTTP 401/);
    const secret = await verity(['listen', '--print-secret'], { home });
    expect(secret.stdout.trim()).toMatch(/^whsec_/);
  });
});

describe('embedded webhooks', () => {
  it('a verification delivers to a local registration; without one the store is never opened', async () => {
    const home = newHome();
    const plain = await verity(['verify', 'claim', 'Water boils at 100 °C at sea level', '--test', '--json'], { home });
    expect(plain.code).toBe(0);
    expect(existsSync(join(home, 'data', 'verity.db'))).toBe(false);

    const l = await spawnServer(['listen', '--port', '0', '--secret', SECRET, '--ndjson'], home);
    const add = await verity(['webhooks', 'add', l.url, '--events', 'verification.completed', '--secret', SECRET, '--json'], { home });
    expect(add.code, add.stderr).toBe(0);
    const v = await verity(['verify', 'claim', 'Water boils at 100 °C at sea level', '--test', '--json'], { home });
    expect(v.code, v.stderr).toBe(0);
    const id = JSON.parse(v.stdout).id;
    expect(JSON.parse(await l.nextStdout((x) => x.includes(id)))).toMatchObject({ outcome: 'accepted', request_id: id });

    const hook = JSON.parse(add.stdout).id;
    const tst = await verity(['webhooks', 'test', hook, '--json'], { home });
    expect(JSON.parse(tst.stdout).attempt).toMatchObject({ ok: true, status_code: 200 });
    const rm = await verity(['webhooks', 'remove', hook, '--yes'], { home });
    expect(rm.code).toBe(0);
    expect(existsSync(join(home, 'data', 'webhooks.enabled'))).toBe(false);
  });
});

describe('embedded webhooks when the receiver is down', () => {
  it('warns, keeps the event, and delivers it later (replay + deliver) with the same id', async () => {
    const home = newHome();
    // A port that is free now: nothing listens there during the verification.
    const probe = createServer();
    await new Promise<void>((r) => probe.listen(0, '127.0.0.1', r));
    const port = (probe.address() as AddressInfo).port;
    await new Promise<void>((r) => probe.close(() => r()));

    const add = await verity(['webhooks', 'add', `http://127.0.0.1:${port}/`, '--events', 'verification.completed', '--secret', SECRET, '--json'], { home });
    expect(add.code, add.stderr).toBe(0);
    const hook = JSON.parse(add.stdout).id;
    const v = await verity(['verify', 'claim', 'The Moon orbits the Earth', '--test', '--json'], { home });
    expect(v.code).toBe(0); // a webhook problem never fails the verification
    expect(v.stderr).toMatch(/warning: webhook wh_\w+ to .* failed \(connection refused\)/);
    const eventId = /webhook (wh_\w+)/.exec(v.stderr)![1]!;

    const log = JSON.parse((await verity(['webhooks', 'deliveries', hook, '--json'], { home })).stdout);
    expect(log.data[0]).toMatchObject({ event_id: eventId, attempt: 1, outcome: 'failed', error: 'connection refused' });
    expect(log.outstanding[0]).toMatchObject({ event_id: eventId, status: 'pending', attempts: 1 });

    // A test delivery the receiver cannot take fails the command (exit 6, as `webhooks trigger`),
    // with the result still on stdout for the details.
    const tst = await verity(['webhooks', 'test', hook, '--json'], { home });
    expect(tst.code).toBe(6);
    expect(JSON.parse(tst.stdout).attempt).toMatchObject({ ok: false });
    expect(tst.stderr).toMatch(/did not accept the test event/);

    const l = await spawnServer(['listen', '--port', String(port), '--secret', SECRET, '--ndjson'], home);
    // The receiver is back: replay sends it now instead of at the next retry (same id and body).
    const replay = await verity(['webhooks', 'replay', eventId, '--json'], { home });
    expect(replay.code, replay.stderr).toBe(0);
    expect(JSON.parse(replay.stdout)).toEqual({ event_id: eventId, deliveries: 1 });
    expect(JSON.parse(await l.nextStdout((x) => x.includes(eventId)))).toMatchObject({ outcome: 'accepted', attempt: 1 });
    const deliver = await verity(['webhooks', 'deliver', '--json'], { home });
    // Only the refused test event is left, waiting for its first retry.
    expect(JSON.parse(deliver.stdout)).toMatchObject({ attempts: 0, outstanding: 1 });
  });
});

describe('Standard Webhooks end to end (--signature-scheme standard)', () => {
  it('serve signs a standard endpoint\'s deliveries; listen verifies them; list shows the scheme', async () => {
    const home = newHome();
    const secret = `whsec_${randomBytes(32).toString('base64')}`;
    const listener = await spawnServer(['listen', '--port', '0', '--secret', secret, '--ndjson'], home);
    const serve = await spawnServer(['serve', '--port', '0', '--log-level', 'silent', '--allow-private-webhooks'], home);
    const key = await verity(['admin', 'keys', 'create', '--name', 'std', '--env', 'test', '--plan', 'pro'], { home });
    const remote = ['--remote', serve.url, '--key', key.stdout.trim()];
    const add = await verity([...remote, 'webhooks', 'add', `${listener.url}/hook`, '--events', 'verification.completed', '--signature-scheme', 'standard', '--secret', secret, '--json'], { home });
    expect(add.code, add.stderr).toBe(0);
    expect(JSON.parse(add.stdout).signature_scheme).toBe('standard');
    const refused = await verity([...remote, 'webhooks', 'add', `${listener.url}/x`, '--events', 'verification.completed', '--signature-scheme', 'standard', '--secret', 'x'.repeat(40)], { home });
    expect(refused.code).not.toBe(0);
    expect(refused.stderr).toContain('whsec_');

    const v = await verity([...remote, 'verify', 'claim', 'The Eiffel Tower is in Paris', '--json'], { home });
    expect(v.code, v.stderr).toBe(0);
    const id = JSON.parse(v.stdout).id;
    expect(JSON.parse(await listener.nextStdout((l) => l.includes(id)))).toMatchObject({ outcome: 'accepted', request_id: id, signature_scheme: 'standard' });

    const list = await verity([...remote, 'webhooks', 'list'], { home });
    expect(list.stdout).toContain('signature: standard (webhook-id, webhook-timestamp, webhook-signature)');
    expect(list.stdout).not.toContain(secret);
  });

  it('embedded: a generated whsec_ base64 secret signs what the reference library verifies; trigger signs for listen', async () => {
    const home = newHome();
    const got: Array<{ body: string; headers: IncomingHttpHeaders }> = [];
    const app = createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => {
        got.push({ body: Buffer.concat(chunks).toString('utf8'), headers: req.headers });
        res.end('ok');
      });
    });
    await new Promise<void>((r) => app.listen(0, '127.0.0.1', r));
    closers.push(() => app.close());
    const url = `http://127.0.0.1:${(app.address() as AddressInfo).port}/`;
    const add = await verity(['webhooks', 'add', url, '--events', 'credit.threshold', '--signature-scheme', 'standard', '--json'], { home });
    expect(add.code, add.stderr).toBe(0);
    const hook = JSON.parse(add.stdout);
    expect(hook.secret).toMatch(/^whsec_[A-Za-z0-9+/]{43}=$/);
    const tst = await verity(['webhooks', 'test', hook.id, '--json'], { home });
    expect(tst.code, tst.stderr).toBe(0);
    expect(got).toHaveLength(1);
    expect(new ReferenceWebhook(hook.secret).verify(got[0]!.body, got[0]!.headers as Record<string, string>)).toEqual(JSON.parse(got[0]!.body));

    const l = await spawnServer(['listen', '--port', '0', '--secret', hook.secret, '--ndjson'], home);
    const trig = await verity(['webhooks', 'trigger', 'credit.threshold', '--to', l.url, '--secret', hook.secret, '--signature-scheme', 'standard', '--json'], { home });
    expect(trig.code, trig.stderr).toBe(0);
    const eventId = JSON.parse(trig.stdout).event_id;
    expect(JSON.parse(await l.nextStdout((x) => x.includes(eventId)))).toMatchObject({ outcome: 'accepted', signature_scheme: 'standard' });
  });
});
