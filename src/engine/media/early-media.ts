/**
 * `verify media FILE` of a local image: its pixel decode started by bin/run-bundle.js before the
 * CLI bundle is compiled and run (~0.1 s of one thread's work), so that libvips decodes in its own
 * thread while the CLI loads, reads the file and parses the metadata. The decode used to begin only
 * after all of that, and the analysis then waited for it: a 12 MP JPEG's ~60 ms and a 4K PNG's
 * ~120 ms of decoding sat on the critical path whole.
 *
 * A guess from the arguments, checked before use: the CLI is handed the bytes read here only while
 * the file is unchanged (fileBytes), and the engine takes the early header and decode only for
 * those very bytes or an equal copy (analyze-image.ts); anything else (another input, a remote or
 * failed run) drops it when the command ends. The decode is the engine's own (luma-decode.ts),
 * with the same limits and time-out.
 *
 * This module is loaded before the CLI, as a small CommonJS bundle of its own (dist/early-media.cjs,
 * scripts/build.mjs: no ES-module graph to resolve and link): it imports only what the decode needs
 * (no zod schemas, no engine errors), and built-in modules through `process.getBuiltinModule`.
 */
import { resolvePaths } from '../../config/paths.js';
import { storeFileMissing } from '../store-file.js';
import { loadBundledSharp } from './cached-modules.js';
import { decodeOutcome, headerOf, withoutOperationCache, type DecodeOutcome, type ImageHeader } from './luma-decode.js';
import { LARGE_PLANE_PIXELS, stopIncrementalMarking, v8FlagSetter } from './plane-gc.js';

type Sharp = (typeof import('sharp'))['default'];

export interface EarlyMedia {
  /**
   * The bytes read early when `path` names the file they were read from and its size, times and
   * inode are still what they were: the CLI then reads it no second time (a second copy of a
   * 16 MB PNG also pushed V8 over its external-memory mark, a ~20 ms full collection).
   */
  fileBytes(path: string): Buffer | undefined;
  /**
   * The header read early and the decode's outcome when they are of exactly these bytes;
   * undefined otherwise. Taken once: the early copy of the bytes is let go. `forHash`: whether the
   * decode kept the whole image's plane for the perceptual hash (luma-decode.ts decodePlanes).
   */
  take(bytes: Buffer): { header: ImageHeader; outcome: Promise<DecodeOutcome>; forHash: boolean } | undefined;
  /** Lets the early bytes and pixels go (the command did not use them). */
  discard(): void;
  /** What became of it, for tests (bin/run-bundle.js prints it under VERITY_DEBUG_EARLY_MEDIA=1). */
  readonly state: 'started' | 'taken' | 'dropped';
  /** Whether the plane's arrival stopped V8's incremental marking (plane-gc.ts), for the same tests. */
  readonly incrementalMarkingStopped: boolean;
}

/** LIMITS.fileBytes (api/requests.ts): the CLI refuses a larger file before any analysis. */
const MAX_BYTES = 20 * 1024 * 1024;

/** JPEG, PNG and WebP by their first bytes: the photos whose decode is worth starting early. */
function imageMagic(head: Buffer): boolean {
  if (head.length >= 3 && head[0] === 0xff && head[1] === 0xd8 && head[2] === 0xff) return true;
  if (head.length >= 8 && head.readUInt32BE(0) === 0x89504e47 && head.readUInt32BE(4) === 0x0d0a1a0a) return true;
  return head.length >= 12 && head.toString('latin1', 0, 4) === 'RIFF' && head.toString('latin1', 8, 12) === 'WEBP';
}

/** What identifies one version of a file: a changed one differs in one of these. */
type FileIdentity = Pick<import('node:fs').Stats, 'dev' | 'ino' | 'size' | 'mtimeMs' | 'ctimeMs'>;
const sameFile = (a: FileIdentity, b: FileIdentity): boolean =>
  a.dev === b.dev && a.ino === b.ino && a.size === b.size && a.mtimeMs === b.mtimeMs && a.ctimeMs === b.ctimeMs;

type Fs = typeof import('node:fs');

/**
 * Opens `path` when it is a regular file of at most MAX_BYTES whose first bytes are an image's, and
 * reads the rest in libuv's threads (`rest`: true once every byte is in `bytes`; the descriptor is
 * closed either way), so that the read and sharp's load on this thread overlap (a 16 MB PNG: ~5 ms).
 * Undefined for anything else.
 */
function openImageFile(path: string): { bytes: Buffer; identity: FileIdentity; rest: Promise<boolean> } | undefined {
  const fs = process.getBuiltinModule('node:fs');
  let fd: number | undefined;
  try {
    // Only a regular file is opened: opening a named pipe blocks until a writer comes, and opening
    // a device can have side effects (the CLI itself refuses anything but a regular file).
    if (!fs.statSync(path).isFile()) return undefined;
    fd = fs.openSync(path, 'r');
    const st = fs.fstatSync(fd);
    if (!st.isFile() || st.size > MAX_BYTES || st.size < 16) return undefined;
    const bytes = Buffer.allocUnsafe(st.size);
    // The first bytes first: a video (or anything else) is not read whole.
    const got = fs.readSync(fd, bytes, 0, 16, 0);
    if (got < 16 || !imageMagic(bytes.subarray(0, 16))) return undefined;
    const rest = readRest(fs, fd, bytes, got);
    fd = undefined; // readRest closes it
    return { bytes, identity: st, rest };
  } catch {
    return undefined;
  } finally {
    if (fd !== undefined) fs.closeSync(fd);
  }
}

/** Reads `bytes` from offset `from` to its end, then closes `fd`; false when the file ended early or a read failed. */
function readRest(fs: Fs, fd: number, bytes: Buffer, from: number): Promise<boolean> {
  return new Promise((resolve) => {
    const done = (ok: boolean): void => fs.close(fd, () => resolve(ok));
    const step = (got: number): void => {
      if (got >= bytes.length) return done(true);
      fs.read(fd, bytes, got, bytes.length - got, got, (err, n) => (err || n === 0 ? done(false) : step(got + n)));
    };
    step(from);
  });
}

/**
 * Whether `verity verify media` with these arguments may compute the perceptual hash, as the engine
 * decides it (verify.ts): it serves only the known-media look-up, which there is only with
 * provenance checked (not `--no-check-provenance`, commander's last word counting) and with a
 * store (resolvePaths, the CLI's own; a store file known to be missing holds no index). A wrong
 * guess costs time, never a result: a decode without the whole plane is not used for a hash.
 */
export function mediaHashWanted(args: readonly string[], env: NodeJS.ProcessEnv): boolean {
  if (args.lastIndexOf('--no-check-provenance') > args.lastIndexOf('--check-provenance')) return false;
  return !storeFileMissing(resolvePaths(env).storeFile);
}

/**
 * Reads `path` and starts its decode when it is an image this build decodes; undefined when it is
 * not (or cannot be read), so the CLI then does everything as usual. Loads sharp (through the code
 * cache in `codeCacheDir`), which the engine then finds loaded (cached-modules.ts). `forHash`: the
 * analysis will compute the perceptual hash (mediaHashWanted), so a photo larger than the analysed
 * region is decoded whole (luma-decode.ts).
 */
export async function startEarlyMediaDecode(path: string, codeCacheDir: string | undefined, forHash = true): Promise<EarlyMedia | undefined> {
  const file = openImageFile(path);
  if (!file) return undefined;
  const { identity } = file;
  const read = file.bytes;
  // Let go by take() and discard(): the closures below hold only this.
  let bytes: Buffer | undefined = read;
  let sharp: Sharp;
  let header: ImageHeader;
  try {
    sharp = withoutOperationCache(loadBundledSharp(codeCacheDir) ?? (process.getBuiltinModule('node:module').createRequire(import.meta.url)('sharp') as Sharp));
  } catch {
    await file.rest;
    return undefined; // the engine loads sharp again and reports the problem itself
  }
  if (!(await file.rest)) return undefined;
  try {
    const h = await headerOf(sharp, read);
    if ('problem' in h) return undefined;
    header = h;
  } catch {
    return undefined; // the engine reads the header again and reports the problem itself
  }
  let outcome: Promise<DecodeOutcome> | undefined = decodeOutcome(sharp, read, header, forHash);
  let state: EarlyMedia['state'] = 'started';
  // A large plane's arrival would start V8's incremental marking for a collection this one-shot
  // run never needs (plane-gc.ts). Registered before the engine takes the outcome, so it runs
  // before the analysis continues; node:v8 is loaded now, while libvips decodes, not after.
  const setFlags = v8FlagSetter();
  let markingStopped = false;
  outcome.then(
    (o) => {
      if (state !== 'dropped' && 'ok' in o && o.ok.plane.width * o.ok.plane.height >= LARGE_PLANE_PIXELS) markingStopped = stopIncrementalMarking(setFlags);
    },
    () => undefined,
  );
  return {
    fileBytes(asked) {
      if (!bytes || asked !== path) return undefined;
      try {
        return sameFile(process.getBuiltinModule('node:fs').statSync(asked), identity) ? bytes : undefined;
      } catch {
        return undefined;
      }
    },
    take(given) {
      // The CLI's bytes are these very ones (fileBytes) or a copy it read: compared then.
      if (!outcome || !bytes || (given !== bytes && !given.equals(bytes))) return undefined;
      const taken = { header, outcome, forHash };
      bytes = undefined;
      outcome = undefined;
      state = 'taken';
      return taken;
    },
    discard() {
      bytes = undefined;
      outcome = undefined;
      if (state === 'started') state = 'dropped';
    },
    get state() {
      return state;
    },
    get incrementalMarkingStopped() {
      return markingStopped;
    },
  };
}
