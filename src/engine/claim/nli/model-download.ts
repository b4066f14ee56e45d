/**
 * Downloads a model's files once into the data folder (`verity models pull`): streamed to disk
 * through undici with the project's User-Agent, redirects followed (the hub answers with a
 * redirect to its file CDN), a deadline for the headers and for every pause in the body rather
 * than for the whole file, SHA-256 computed while writing and checked against the manifest.
 * Files land in a staging folder that replaces the model folder only when every file checked
 * out, so an interrupted or failed pull never leaves a half model where the engine looks.
 */
import { createHash } from 'node:crypto';
import { createReadStream, createWriteStream, existsSync, mkdirSync, readdirSync, renameSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { copyFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { Transform } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { request, type Dispatcher } from 'undici';
import { VerityError } from '../../../api/errors.js';
import { RECORD_FILE, type ModelRecord } from './model-folder.js';
import type { ModelManifest } from './manifest.js';

export interface PullProgress {
  file: string;
  /** Bytes of this file so far, and in total when known. */
  done: number;
  total: number | null;
}

export interface PullOptions {
  manifest: ModelManifest;
  /** The model's folder (replaced when the pull succeeds). */
  dir: string;
  /** An http(s) base URL replacing the manifest's, or a local folder holding the files. */
  from?: string;
  userAgent: string;
  signal?: AbortSignal;
  onProgress?: (p: PullProgress) => void;
  now?: () => Date;
  dispatcher?: Dispatcher;
  /** Deadline for response headers and for any pause in the body (default 30 s). */
  idleTimeoutMs?: number;
  /** Runs on the complete staging folder before it replaces the model's; throwing keeps nothing. */
  check?: (dir: string) => Promise<void>;
}

const MAX_REDIRECTS = 5;
/** No model file verity pulls is larger; a server sending more is not sending the model. */
const MAX_FILE_BYTES = 4 * 1024 ** 3;

export async function pullModel(o: PullOptions): Promise<ModelRecord> {
  const { manifest } = o;
  const local = o.from !== undefined && !/^https?:\/\//i.test(o.from);
  const base = local ? undefined : (o.from ?? manifest.base).replace(/\/+$/, '');
  if (local && !existsSync(o.from!))
    throw new VerityError('NOT_FOUND', `--from ${o.from} is neither an http(s) URL nor an existing folder`, {
      details: [{ field: 'from', issue: 'not found' }],
    });
  const parent = dirname(o.dir);
  mkdirSync(parent, { recursive: true });
  const staging = join(parent, `.pull-${process.pid}-${Date.now()}`);
  mkdirSync(staging, { recursive: true });
  const files: ModelRecord['files'] = {};
  let allPinned = true;
  try {
    for (const f of manifest.files) {
      o.signal?.throwIfAborted();
      const target = join(staging, f.local);
      const got = local ? await copyLocal(o.from!, f, target) : await download(`${base}/${f.remote}`, f, target, o);
      if (f.size !== undefined && got.size !== f.size)
        throw new VerityError('UNPROCESSABLE_CONTENT', `${f.remote}: ${got.size} bytes where the manifest pins ${f.size}; the download is truncated or not this model`);
      if (f.sha256 !== undefined && got.sha256 !== f.sha256.toLowerCase())
        throw new VerityError('UNPROCESSABLE_CONTENT', `${f.remote}: SHA-256 ${got.sha256} does not match the pinned ${f.sha256}; the file was not kept`);
      if (f.sha256 === undefined) allPinned = false;
      files[f.local] = got;
    }
    const record: ModelRecord = {
      kind: manifest.kind,
      id: manifest.id,
      source: local ? o.from! : base!,
      pulled_at: (o.now?.() ?? new Date()).toISOString(),
      integrity: local ? 'local' : allPinned ? 'pinned' : 'recorded',
      files,
    };
    writeFileSync(join(staging, RECORD_FILE), `${JSON.stringify(record, null, 2)}\n`);
    o.signal?.throwIfAborted();
    await o.check?.(staging);
    // Swap in: the old folder (if any) goes only after the new one is complete.
    const old = existsSync(o.dir) ? `${staging}.old` : undefined;
    if (old) renameSync(o.dir, old);
    renameSync(staging, o.dir);
    if (old) rmSync(old, { recursive: true, force: true });
    return record;
  } finally {
    rmSync(staging, { recursive: true, force: true });
  }
}

/** Removes staging folders left by pulls that were killed (not interrupted) half-way. */
export function removeStalePulls(modelsDir: string): void {
  if (!existsSync(modelsDir)) return;
  for (const name of readdirSync(modelsDir)) if (name.startsWith('.pull-')) rmSync(join(modelsDir, name), { recursive: true, force: true });
}

interface FileResult {
  size: number;
  sha256: string;
}

function hasher(onBytes: (n: number) => void, limit: number, what: string): { stream: Transform; result(): FileResult } {
  const hash = createHash('sha256');
  let size = 0;
  const stream = new Transform({
    transform(chunk: Buffer, _enc, cb) {
      size += chunk.length;
      if (size > limit) return cb(new VerityError('UNPROCESSABLE_CONTENT', `${what} is larger than ${limit} bytes; not a model file verity expects`));
      hash.update(chunk);
      onBytes(size);
      cb(null, chunk);
    },
  });
  return { stream, result: () => ({ size, sha256: hash.digest('hex') }) };
}

async function copyLocal(from: string, f: ModelManifest['files'][number], target: string): Promise<FileResult> {
  // A folder may mirror the hub's layout (onnx/model_quantized.onnx) or verity's (model.onnx).
  const source = [join(from, f.remote), join(from, f.local)].find((p) => existsSync(p) && statSync(p).isFile());
  if (!source)
    throw new VerityError('NOT_FOUND', `${from} holds neither ${f.remote} nor ${f.local}`, { details: [{ field: 'from', issue: `missing ${f.remote}` }] });
  mkdirSync(dirname(target), { recursive: true });
  await copyFile(source, target);
  const h = hasher(() => undefined, MAX_FILE_BYTES, source);
  await pipeline(createReadStream(target), h.stream, async function* (chunks) {
    for await (const _ of chunks) void _;
  });
  return h.result();
}

async function download(url: string, f: ModelManifest['files'][number], target: string, o: PullOptions): Promise<FileResult> {
  const idle = o.idleTimeoutMs ?? 30_000;
  let current = url;
  for (let hop = 0; hop <= MAX_REDIRECTS; hop++) {
    const host = new URL(current).host;
    let res: Dispatcher.ResponseData;
    try {
      res = await request(current, {
        method: 'GET',
        headers: { 'user-agent': o.userAgent, accept: '*/*' },
        headersTimeout: idle,
        bodyTimeout: idle,
        ...(o.signal ? { signal: o.signal } : {}),
        ...(o.dispatcher ? { dispatcher: o.dispatcher } : {}),
      });
    } catch (err) {
      if (o.signal?.aborted) throw err;
      const code = (err as { code?: string }).code;
      throw new VerityError('UNAVAILABLE', `${host} could not be reached for ${f.remote}${code ? ` (${code})` : ''}`);
    }
    if (res.statusCode >= 300 && res.statusCode < 400 && res.headers.location) {
      await res.body.dump();
      current = new URL(String(res.headers.location), current).href;
      continue;
    }
    if (res.statusCode !== 200) {
      await res.body.dump();
      const code = res.statusCode === 404 ? 'NOT_FOUND' : res.statusCode === 401 || res.statusCode === 403 ? 'FORBIDDEN' : 'UNAVAILABLE';
      throw new VerityError(code, `${host} answered ${res.statusCode} for ${f.remote} (${url})`);
    }
    const declared = Number(res.headers['content-length']);
    const total = f.size ?? (Number.isFinite(declared) && declared > 0 ? declared : null);
    const limit = f.size ?? MAX_FILE_BYTES;
    mkdirSync(dirname(target), { recursive: true });
    const h = hasher((n) => o.onProgress?.({ file: f.remote, done: n, total }), limit, f.remote);
    try {
      await pipeline(res.body, h.stream, createWriteStream(target));
    } catch (err) {
      if (o.signal?.aborted || err instanceof VerityError) throw err;
      const code = (err as { code?: string }).code;
      throw new VerityError('UNAVAILABLE', `The download of ${f.remote} from ${host} broke off${code ? ` (${code})` : ''}; run the pull again`);
    }
    const r = h.result();
    if (Number.isFinite(declared) && declared > 0 && r.size !== declared)
      throw new VerityError('UNAVAILABLE', `The download of ${f.remote} from ${host} ended after ${r.size} of ${declared} bytes; run the pull again`);
    return r;
  }
  throw new VerityError('UNAVAILABLE', `More than ${MAX_REDIRECTS} redirects for ${f.remote} from ${url}`);
}
