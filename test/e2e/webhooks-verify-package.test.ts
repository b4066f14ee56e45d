/**
 * `verity/webhooks` as an app gets it: the package as `npm pack` makes it, unpacked into an app's
 * node_modules with NOTHING else (the module must need no dependency), imported by name from an
 * ES module and required from CommonJS, its types resolved by TypeScript through the exports
 * map. Then docs/examples/webhooks/{express,fastify,node-http}.mjs run in that app on loopback and
 * get real signed deliveries from `verity webhooks trigger` (both schemes): valid accepted,
 * forged refused with a code.
 */
import { execFileSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { copyFileSync, mkdirSync, mkdtempSync, readdirSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { execa, type ResultPromise } from 'execa';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { newHome, verity } from './run-cli.js';

const repo = fileURLToPath(new URL('../../', import.meta.url));
/** One secret for both schemes: a `whsec_` base64 string is also a valid verity secret (any 32+ characters). */
const SECRET = `whsec_${randomBytes(32).toString('base64')}`;
let app: string;
const procs: ResultPromise[] = [];

beforeAll(() => {
  const root = inject('verityRoot');
  app = mkdtempSync(join(tmpdir(), 'verity-app-'));
  const packed = execFileSync('npm', ['pack', '--silent', '--pack-destination', app], { cwd: root, encoding: 'utf8' }).trim().split('\n').at(-1)!;
  const pkg = join(app, 'node_modules', 'verity');
  mkdirSync(pkg, { recursive: true });
  execFileSync('tar', ['-xzf', join(app, packed), '-C', pkg, '--strip-components=1']);
  writeFileSync(join(app, 'package.json'), JSON.stringify({ name: 'some-app', private: true, type: 'module' }));
  // The examples' frameworks (the app's own dependencies), not verity's.
  for (const dep of ['express', 'fastify']) symlinkSync(join(repo, 'node_modules', dep), join(app, 'node_modules', dep), 'dir');
  for (const f of readdirSync(join(repo, 'docs', 'examples', 'webhooks'))) copyFileSync(join(repo, 'docs', 'examples', 'webhooks', f), join(app, f));
}, 60_000);

afterAll(async () => {
  for (const p of procs) p.kill('SIGTERM');
  await Promise.allSettled(procs);
  if (app) rmSync(app, { recursive: true, force: true });
});

const node = (args: string[]) => execa(process.execPath, args, { cwd: app, reject: false, env: { PATH: process.env.PATH!, SECRET } });

describe('verity/webhooks from the packed package', () => {
  it('imports by name from ES modules and CommonJS with no dependency installed, and types resolve', async () => {
    expect(readdirSync(join(app, 'node_modules')).sort()).toEqual(['express', 'fastify', 'verity']);
    const probe = `const body = JSON.stringify({ id: 'wh_App1', type: 'credit.threshold', created_at: new Date().toISOString(), data: { threshold: 90 } });
      const { createHmac } = await import('node:crypto');
      const sig = 'sha256=' + createHmac('sha256', process.env.SECRET).update(body).digest('hex');
      const ev = m.verifyWebhook(body, { 'X-Service-Signature': sig }, process.env.SECRET);
      const forged = sig.slice(0, -1) + (sig.endsWith('0') ? '1' : '0');
      let code; try { m.verifyWebhook(body, { 'x-service-signature': forged }, process.env.SECRET) } catch (e) { code = e.code }
      console.log(ev.type, ev.data.threshold, code, m.WebhookVerificationError.name);`;
    writeFileSync(join(app, 'esm.mjs'), `import * as m from 'verity/webhooks';\n${probe}`);
    writeFileSync(join(app, 'cjs.cjs'), `const m = require('verity/webhooks');\n(async () => { ${probe} })();`);
    for (const f of ['esm.mjs', 'cjs.cjs']) {
      const r = await node([f]);
      expect(r.stderr).toBe('');
      expect(r.stdout.trim()).toBe('credit.threshold 90 bad_signature WebhookVerificationError');
    }
    // Internal files are not importable: only the exported subpath is public.
    expect((await node(['-e', "import('verity/dist/webhooks.mjs').catch((e) => { console.log(e.code); })"])).stdout.trim()).toBe('ERR_PACKAGE_PATH_NOT_EXPORTED');

    writeFileSync(
      join(app, 'typed.mts'),
      `import { verifyWebhook, type WebhookEvent } from 'verity/webhooks';
       const ev: WebhookEvent = verifyWebhook('{}', {}, 'secret');
       if (ev.type === 'verification.completed') { const score: number = ev.data.trust_score; void score; }
       // @ts-expect-error credit.threshold data has no trust_score
       if (ev.type === 'credit.threshold') void ev.data.trust_score;\n`,
    );
    const tsc = await execa(process.execPath, [join(repo, 'node_modules', 'typescript', 'bin', 'tsc'), '--ignoreConfig', '--noEmit', '--strict', '--module', 'nodenext',
      '--moduleResolution', 'nodenext', '--target', 'es2023', '--types', 'node', '--typeRoots', join(repo, 'node_modules', '@types'), 'typed.mts'], { cwd: app, reject: false });
    expect(tsc.stdout + tsc.stderr).toBe('');
    expect(tsc.exitCode).toBe(0);
  });
});

/** Starts an example on a free loopback port; resolves with its URL once it prints `Listening on`. */
async function startExample(file: string): Promise<{ url: string; lines: string[] }> {
  const proc = execa(process.execPath, [file], { cwd: app, reject: false, env: { PATH: process.env.PATH!, PORT: '0', WEBHOOK_SECRET: SECRET } });
  procs.push(proc);
  const lines: string[] = [];
  const url = await new Promise<string>((resolve, reject) => {
    proc.stdout!.on('data', (c: Buffer) => {
      for (const l of c.toString().split('\n').filter(Boolean)) {
        lines.push(l);
        if (l.startsWith('Listening on ')) resolve(l.slice('Listening on '.length).trim());
      }
    });
    void proc.then((r) => reject(new Error(`${file} exited (${r.exitCode}): ${String(r.stderr)}`)));
  });
  return { url: `${url}/webhooks`, lines };
}

describe.each(['express.mjs', 'fastify.mjs', 'node-http.mjs'])('docs/examples/webhooks/%s', (file) => {
  it('accepts real deliveries of both schemes and refuses forged ones with a code', async () => {
    const ex = await startExample(file);
    const home = newHome();
    for (const scheme of ['verity', 'standard']) {
      const ok = await verity(['webhooks', 'trigger', 'verification.completed', '--to', ex.url, '--secret', SECRET, '--signature-scheme', scheme, '--json'], { home });
      expect(ok.code, ok.stderr).toBe(0);
      const id = JSON.parse(ok.stdout).event_id;
      await expect.poll(() => ex.lines.some((l) => l.startsWith(`verification.completed ${id}`)), { timeout: 5_000 }).toBe(true);
      // Signed with another secret: the sender is told why (exit 6 with the app's answer).
      const forged = await verity(['webhooks', 'trigger', 'verification.completed', '--to', ex.url, '--secret', `whsec_${randomBytes(32).toString('base64')}`, '--signature-scheme', scheme], { home });
      expect(forged.code).toBe(6);
      expect(forged.stderr).toContain('HTTP 400');
      expect(forged.stderr).toContain('bad_signature');
    }
    // Unsigned, and re-encoded (what a JSON body parser in front of the route would cause).
    const body = JSON.stringify({ id: 'wh_Forged1', type: 'verification.completed', created_at: new Date().toISOString(), data: {} });
    const unsigned = await fetch(ex.url, { method: 'POST', headers: { 'content-type': 'application/json' }, body });
    expect(unsigned.status).toBe(400);
    expect(((await unsigned.json()) as { error: { code: string } }).error.code).toBe('missing_signature');
    const { createHmac } = await import('node:crypto');
    const sig = `sha256=${createHmac('sha256', SECRET).update(body).digest('hex')}`;
    const pretty = await fetch(ex.url, { method: 'POST', headers: { 'content-type': 'application/json', 'x-service-signature': sig }, body: JSON.stringify(JSON.parse(body), null, 2) });
    expect(((await pretty.json()) as { error: { code: string } }).error.code).toBe('body_reencoded');
  });
});
