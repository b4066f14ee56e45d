/**
 * `verity models pull nli` / `verity models list` against a loopback HTTP server that serves the
 * tiny test model the way the hub does (a redirect for the large file), and the downloaded model
 * then loaded and run by the classifier `claim.stance = nli` builds.
 */
import { createHash } from 'node:crypto';
import { existsSync, mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { VerityError } from '../../../src/api/errors.js';
import { configuredNliClassifier } from '../../../src/engine/claim/nli/configured.js';
import { nliManifest, nliModelDir } from '../../../src/engine/claim/nli/manifest.js';
import { readRecord } from '../../../src/engine/claim/nli/model-folder.js';
import { pullModel } from '../../../src/engine/claim/nli/model-download.js';
import { writeTinyNliModel } from '../../helpers/tiny-nli-model.js';
import { cleanHomes, fakeContext, runCli, tempHome } from '../cli/fake-context.js';

const sha = (b: Buffer): string => createHash('sha256').update(b).digest('hex');

let server: Server;
let base: string;
let files: Record<string, Buffer>;
const requests: Array<{ url: string; ua: string | undefined }> = [];
/** Per repository path: what the server does instead of answering normally. */
const faults = new Map<string, 'missing' | 'cut'>();
let modelSource: string;

beforeAll(async () => {
  modelSource = mkdtempSync(join(tmpdir(), 'verity-nli-src-'));
  files = writeTinyNliModel(modelSource);
  server = createServer((req: IncomingMessage, res) => {
    requests.push({ url: req.url ?? '', ua: req.headers['user-agent'] });
    const url = req.url ?? '';
    if (url.startsWith('/loop/')) {
      res.writeHead(302, { location: url }).end();
      return;
    }
    if (url.startsWith('/private/')) {
      res.writeHead(401).end('Invalid credentials');
      return;
    }
    // The hub answers large files with a redirect to its CDN; so does this one.
    if (url.startsWith('/repo/onnx/')) {
      res.writeHead(302, { location: `/cdn/${url.slice('/repo/onnx/'.length)}` }).end();
      return;
    }
    const name = url.startsWith('/cdn/') ? 'model.onnx' : url.slice('/repo/'.length);
    const path = url.startsWith('/cdn/') ? `onnx/${url.slice(5)}` : name;
    const body = files[name];
    if (!body || faults.get(path) === 'missing') {
      res.writeHead(404).end('Entry not found');
      return;
    }
    if (faults.get(path) === 'cut') {
      // Announces the whole file, sends half, hangs up.
      res.writeHead(200, { 'content-length': String(body.length) });
      res.write(body.subarray(0, body.length >> 1), () => res.destroy());
      return;
    }
    res.writeHead(200, { 'content-length': String(body.length) }).end(body);
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}/repo`;
});

afterAll(async () => {
  await new Promise((r) => server.close(r));
  rmSync(modelSource, { recursive: true, force: true });
  cleanHomes();
});

const modelsRoot = (home: string) => join(home, 'data', 'models', 'nli');

describe('verity models pull nli', () => {
  it('downloads the files once (redirects followed, User-Agent sent), records their digests, and the model then runs', async () => {
    const home = tempHome();
    requests.length = 0;
    const r = await runCli(['models', 'pull', 'nli', '--from', base, '--json'], { home });
    expect(r.code, r.stderr).toBe(0);
    const out = JSON.parse(r.stdout);
    const dir = nliModelDir(join(home, 'data'));
    expect(out).toMatchObject({ id: 'Xenova/nli-deberta-v3-xsmall', path: dir, pulled: true, verified: true, loads: true, integrity: 'recorded' });
    expect(out.files['model.onnx']).toEqual({ size: files['model.onnx']!.length, sha256: sha(files['model.onnx']!) });
    expect(readFileSync(join(dir, 'model.onnx')).equals(files['model.onnx']!)).toBe(true);
    expect(requests.map((q) => q.url)).toEqual(['/repo/config.json', '/repo/tokenizer.json', '/repo/tokenizer_config.json', '/repo/onnx/model_quantized.onnx', '/cdn/model_quantized.onnx']);
    expect(requests.every((q) => q.ua?.startsWith('verity/'))).toBe(true);
    expect(readdirSync(modelsRoot(home))).toEqual(['Xenova--nli-deberta-v3-xsmall']);

    // A second pull finds a checked copy and fetches nothing.
    requests.length = 0;
    const again = await runCli(['models', 'pull', 'nli', '--from', base, '--json'], { home });
    expect(JSON.parse(again.stdout)).toMatchObject({ pulled: false, verified: true });
    expect(requests).toHaveLength(0);

    // What claim.stance = nli builds reads the pulled files.
    const nli = configuredNliClassifier(join(home, 'data'));
    const [s] = await nli.classify([{ premise: 'The tower is in London.', hypothesis: 'The tower is in Paris.' }]);
    expect(s!.contradiction).toBeGreaterThan(s!.entailment);
    await nli.close();
  });

  it('draws a progress bar on a terminal, and stays quiet on stdout', async () => {
    const fake = fakeContext({ stderrTTY: true });
    const r = await runCli(['models', 'pull', 'nli', '--from', base], fake);
    expect(r.code, r.stderr).toBe(0);
    expect(fake.stderr()).toContain('Downloading Xenova/nli-deberta-v3-xsmall');
    expect(fake.stderr()).toMatch(/\d+% /);
    expect(fake.stderr()).toContain('the digests of this download are recorded now');
    expect(r.stdout).toBe('');
  });

  it('a 404 or a cut-off body fails with a clear code and leaves no half model behind', async () => {
    for (const [fault, code, exit] of [
      ['missing', 'NOT_FOUND', 1],
      ['cut', 'UNAVAILABLE', 6],
    ] as const) {
      const home = tempHome();
      faults.set('onnx/model_quantized.onnx', fault);
      try {
        const r = await runCli(['models', 'pull', 'nli', '--from', base, '--json'], { home });
        // The error first: when the exit code is wrong, the failure then says which error it was.
        const err = JSON.parse(r.stdout).error;
        expect(`${err.code}: ${err.message}`, fault).toMatch(new RegExp(`^${code}:`));
        expect(r.code, fault).toBe(exit);
        expect(err.message, fault).toContain('onnx/model_quantized.onnx');
      } finally {
        faults.clear();
      }
      expect(existsSync(nliModelDir(join(home, 'data'))), fault).toBe(false);
      // Nor a staging folder.
      expect(existsSync(modelsRoot(home)) ? readdirSync(modelsRoot(home)) : [], fault).toEqual([]);
    }
  });

  it('unreachable host, redirect loop, refused access, oversized file: clear codes, nothing kept; stale staging folders are cleared', async () => {
    const home = tempHome();
    const root = modelsRoot(home);
    const { mkdirSync } = await import('node:fs');
    mkdirSync(join(root, '.pull-999-1'), { recursive: true });
    const origin = base.replace(/\/repo$/, '');
    // A port nothing listens on: bind one, note it, close it.
    const closed = createServer();
    await new Promise<void>((r) => closed.listen(0, '127.0.0.1', r));
    const deadPort = (closed.address() as AddressInfo).port;
    await new Promise((r) => closed.close(r));
    for (const [from, code, text] of [
      [`http://127.0.0.1:${deadPort}/repo`, 'UNAVAILABLE', 'could not be reached for config.json'],
      [`${origin}/loop`, 'UNAVAILABLE', 'More than 5 redirects for config.json'],
      [`${origin}/private`, 'FORBIDDEN', 'answered 401 for config.json'],
    ] as const) {
      const r = await runCli(['models', 'pull', 'nli', '--from', from, '--json'], { home });
      const err = JSON.parse(r.stdout).error;
      expect(err.code, from).toBe(code);
      expect(err.message, from).toContain(text);
      expect(readdirSync(root), from).toEqual([]);
    }
    // A server sending more than the pinned size is cut off at that size.
    const manifest = nliManifest();
    manifest.files[3] = { ...manifest.files[3]!, size: 10 };
    const err = await pullModel({ manifest, dir: join(root, 'x'), from: base, userAgent: 'verity/test' }).catch((e: unknown) => e);
    expect((err as VerityError).code).toBe('UNPROCESSABLE_CONTENT');
    expect((err as VerityError).message).toContain('larger than 10 bytes');
    expect(readdirSync(root)).toEqual([]);
  });

  it('files that arrive whole but do not load (garbage ONNX) replace nothing', async () => {
    const home = tempHome();
    expect((await runCli(['models', 'pull', 'nli', '--from', base], { home })).code).toBe(0);
    const dir = nliModelDir(join(home, 'data'));
    const good = readFileSync(join(dir, 'model.onnx'));
    const saved = files['model.onnx']!;
    files['model.onnx'] = Buffer.from('not an onnx file, but complete');
    try {
      const r = await runCli(['models', 'pull', 'nli', '--from', base, '--force', '--json'], { home });
      expect(r.code).toBe(6);
      const err = JSON.parse(r.stdout).error;
      expect(err.code).toBe('UNAVAILABLE');
      expect(err.message).toContain('The downloaded model does not load');
      expect(err.message).toContain(join(dir, 'model.onnx'));
    } finally {
      files['model.onnx'] = saved;
    }
    // The previous, working model is still in place, and nothing else is left over.
    expect(readFileSync(join(dir, 'model.onnx')).equals(good)).toBe(true);
    expect(readdirSync(modelsRoot(home))).toEqual(['Xenova--nli-deberta-v3-xsmall']);
  });

  it('a pinned digest that does not match refuses the file', async () => {
    const dir = join(tempHome(), 'm');
    const manifest = nliManifest('Xenova/nli-deberta-v3-xsmall');
    manifest.files[3] = { ...manifest.files[3]!, sha256: sha(Buffer.from('another file')) };
    const err = await pullModel({ manifest, dir, from: base, userAgent: 'verity/test' }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(VerityError);
    expect((err as VerityError).code).toBe('UNPROCESSABLE_CONTENT');
    expect((err as VerityError).message).toMatch(/SHA-256 [0-9a-f]{64} does not match the pinned/);
    expect(existsSync(dir)).toBe(false);
    // With the right digest and size pinned, the record says so.
    manifest.files[3] = { ...manifest.files[3]!, sha256: sha(files['model.onnx']!), size: files['model.onnx']!.length };
    for (const f of manifest.files.slice(0, 3)) f.sha256 = sha(files[f.local]!);
    const rec = await pullModel({ manifest, dir, from: base, userAgent: 'verity/test' });
    expect(rec.integrity).toBe('pinned');
    expect(readRecord(dir)?.integrity).toBe('pinned');
  });

  it('copies from a folder (--from DIR), and refuses bad --model / --onnx-file values', async () => {
    const home = tempHome();
    const r = await runCli(['models', 'pull', 'nli', '--from', modelSource, '--model', 'acme/tiny-nli', '--json'], { home });
    expect(r.code, r.stderr).toBe(0);
    expect(JSON.parse(r.stdout)).toMatchObject({ id: 'acme/tiny-nli', integrity: 'local' });
    for (const args of [
      ['--model', '../../etc'],
      ['--model', 'no-owner'],
      ['--onnx-file', '../model.onnx'],
    ]) {
      const bad = await runCli(['models', 'pull', 'nli', '--from', modelSource, ...args, '--json'], { home });
      expect(bad.code, args.join(' ')).toBe(2);
      expect(JSON.parse(bad.stdout).error.code).toBe('VALIDATION_FAILED');
    }
    const missing = await runCli(['models', 'pull', 'nli', '--from', join(home, 'nowhere'), '--json'], { home });
    expect(missing.code).toBe(2);
    expect(JSON.parse(missing.stdout).error.code).toBe('VALIDATION_FAILED');
  });
});

describe('verity models list', () => {
  it('shows each model with size, path, and whether its files still match; a changed byte is caught', async () => {
    const home = tempHome();
    const empty = await runCli(['models', 'list', '--json'], { home });
    expect(JSON.parse(empty.stdout)).toEqual({ data: [] });
    expect((await runCli(['models', 'list'], { home })).stderr).toContain('verity models pull nli');

    await runCli(['models', 'pull', 'nli', '--from', base], { home });
    await runCli(['config', 'set', 'claim.stance', 'nli'], { home });
    const total = Object.values(files).reduce((a, b) => a + b.length, 0);
    const [row] = JSON.parse((await runCli(['models', 'list', '--json'], { home })).stdout).data;
    expect(row).toMatchObject({ kind: 'nli', id: 'Xenova/nli-deberta-v3-xsmall', size: total, verified: true, problems: [], integrity: 'recorded', active: true });
    const human = await runCli(['models', 'list'], { home });
    expect(human.stdout).toMatch(/\*\s+nli\s+Xenova\/nli-deberta-v3-xsmall\s+[\d.]+ MB\s+verified/);

    // Same size, one byte changed: only the digest can tell.
    const onnx = join(row.path, 'model.onnx');
    const bytes = readFileSync(onnx);
    bytes.writeUInt8(bytes.readUInt8(bytes.length - 1) ^ 0xff, bytes.length - 1);
    writeFileSync(onnx, bytes);
    const [changed] = JSON.parse((await runCli(['models', 'list', '--json'], { home })).stdout).data;
    expect(changed.verified).toBe(false);
    expect(changed.problems).toEqual(['model.onnx has changed since it was downloaded (SHA-256 differs)']);
    expect((await runCli(['models', 'list'], { home })).stderr).toContain('--force');

    // A pull without --force notices and downloads it again.
    const fixed = await runCli(['models', 'pull', 'nli', '--from', base, '--json'], { home });
    expect(JSON.parse(fixed.stdout)).toMatchObject({ pulled: true });
    expect(JSON.parse((await runCli(['models', 'list', '--json'], { home })).stdout).data[0].verified).toBe(true);
  });

  it('claim.stance accepts local or nli only', async () => {
    const home = tempHome();
    expect((await runCli(['config', 'set', 'claim.stance', 'nli'], { home })).code).toBe(0);
    const bad = await runCli(['config', 'set', 'claim.stance', 'llm', '--json'], { home });
    expect(bad.code).toBe(2);
    expect(JSON.parse(bad.stdout).error.code).toBe('VALIDATION_FAILED');
  });
});
