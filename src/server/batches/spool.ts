/**
 * The batch spool (issue 31): files of a streamed batch (POST /v1/batches as NDJSON) are written
 * to disk as their lines arrive, one file per item, instead of being held in memory or stored as
 * base64 in the batch's rows. An upload writes into a staging folder of its own (`.upload-…`);
 * the create renames it to the batch's id, and an upload that fails or is refused is removed.
 * An item's file is removed once the item is finished, and the batch's folder when the batch ends.
 *
 * Paths are built from the batch id (server-made) and the item's index only: nothing a caller
 * sends names a path here. A server sharing a PostgreSQL store with others must share this folder
 * with them (one host, or a shared volume) to run their streamed batches; an item whose file is
 * not here fails with UNAVAILABLE naming the spool (docs/server.md "Batches").
 */
import { randomBytes } from 'node:crypto';
import { constants, createWriteStream, type WriteStream } from 'node:fs';
import { access, mkdir, mkdtemp, readdir, rename, rm, stat, unlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { basename, dirname, join } from 'node:path';
import { VerityError } from '../../api/errors.js';

/** The key a stored item request carries when its file is in the spool (the schemas are strict: no caller can send it). */
export const SPOOLED = '$spooled';

/** A staging folder older than this, with no upload writing it, is left from a crash: removed by the sweep. */
const STALE_UPLOAD_MS = 24 * 3600_000;

export interface Staging {
  /** Writes item `index`'s file (its decoded bytes). */
  put(index: number, bytes: Uint8Array): Promise<void>;
  /** A new file in the staging folder for a file's bytes as they are decoded (file-lines.ts). */
  spillFile(): { path: string; stream: WriteStream };
  /** The spilled file at `path` (from spillFile) becomes item `index`'s; `bytes` its size. */
  adopt(index: number, path: string, bytes: number): Promise<void>;
  /** A spilled file that is no item's (its line was refused): removed. */
  unspill(path: string): Promise<void>;
  /** Bytes written so far. */
  readonly bytes: number;
  /** The staged files become batch `batchId`'s. */
  commit(batchId: string): Promise<void>;
  /** Removes everything staged (a refused or broken upload). */
  discard(): Promise<void>;
}

export interface BatchSpool {
  staging(): Promise<Staging>;
  /**
   * Where item `index`'s file is, for the analysis to read it there (VerifyOptions.inputFile: the
   * server itself then never holds the bytes); UNAVAILABLE when the file is not in this spool.
   */
  file(batchId: string, index: number): Promise<string>;
  /** The item is finished: its file goes. */
  dropItem(batchId: string, index: number): Promise<void>;
  /** The batch ended: its folder goes. */
  dropBatch(batchId: string): Promise<void>;
  /** Removes folders of batches not in `live` (ended while this server was down) and stale staging folders. */
  sweep(live: ReadonlySet<string>, nowMs: number): Promise<number>;
  /** The server closes: a private temp folder (no `dir` given) goes with it; a given folder stays. */
  close(): Promise<void>;
}

const BATCH_DIR = /^bat_[0-9A-Za-z]{1,96}$/;

/**
 * The spool in `dir` (made on first use, 0700), or in a private folder under the OS temp dir,
 * made on the first upload and removed by close().
 */
export function createBatchSpool(dir?: string): BatchSpool {
  let root: Promise<string> | undefined;
  const base = (): Promise<string> =>
    (root ??= dir ? mkdir(dir, { recursive: true, mode: 0o700 }).then(() => dir) : mkdtemp(join(tmpdir(), 'verity-batch-spool-')));
  const itemFile = async (batchId: string, index: number): Promise<string> => {
    if (!BATCH_DIR.test(batchId) || !Number.isSafeInteger(index) || index < 0) throw new VerityError('INTERNAL_ERROR', 'not a spooled item');
    return join(await base(), batchId, String(index));
  };
  const notHere = async (err: unknown): Promise<unknown> =>
    (err as { code?: string }).code === 'ENOENT'
      ? new VerityError('UNAVAILABLE', `The file of this item is not in this server's batch spool (${await base()}): servers that share a store must share their spool folder`)
      : err;
  return {
    async staging(): Promise<Staging> {
      const folder = join(await base(), `.upload-${randomBytes(12).toString('hex')}`);
      await mkdir(folder, { mode: 0o700 });
      let bytes = 0;
      let open = true;
      let spills = 0;
      // Only this staging folder's spill files are renamed or removed, whatever path is handed back.
      const spilled = (path: string): string => {
        if (dirname(path) !== folder || !/^spill-\d+$/.test(basename(path))) throw new VerityError('INTERNAL_ERROR', 'not a spilled file of this upload');
        return path;
      };
      return {
        async put(index, data) {
          bytes += data.byteLength;
          await writeFile(join(folder, String(index)), data, { mode: 0o600 });
        },
        spillFile() {
          const path = join(folder, `spill-${spills++}`);
          // 1 MB written behind (the default 16 KB made the upload wait on the disk every 48 KB).
          return { path, stream: createWriteStream(path, { mode: 0o600, highWaterMark: 1 << 20 }) };
        },
        async adopt(index, path, size) {
          await rename(spilled(path), join(folder, String(index)));
          bytes += size;
        },
        async unspill(path) {
          await unlink(spilled(path)).catch(() => undefined);
        },
        get bytes() {
          return bytes;
        },
        async commit(batchId) {
          if (!BATCH_DIR.test(batchId)) throw new VerityError('INTERNAL_ERROR', 'not a batch id');
          await rename(folder, join(await base(), batchId));
          open = false;
        },
        async discard() {
          if (!open) return;
          open = false;
          await rm(folder, { recursive: true, force: true });
        },
      };
    },
    async file(batchId, index) {
      const path = await itemFile(batchId, index);
      try {
        await access(path, constants.R_OK);
        return path;
      } catch (err) {
        throw await notHere(err);
      }
    },
    async dropItem(batchId, index) {
      await unlink(await itemFile(batchId, index)).catch(() => undefined);
    },
    async dropBatch(batchId) {
      if (!BATCH_DIR.test(batchId)) return;
      await rm(join(await base(), batchId), { recursive: true, force: true });
    },
    async sweep(live, nowMs) {
      // A private folder made by this process holds nothing from before it.
      if (!dir) return 0;
      const at = await base();
      let removed = 0;
      for (const name of await readdir(at).catch(() => [] as string[])) {
        const path = join(at, name);
        const stale = name.startsWith('.upload-') ? nowMs - (await stat(path).catch(() => ({ mtimeMs: nowMs }))).mtimeMs > STALE_UPLOAD_MS : BATCH_DIR.test(name) && !live.has(name);
        if (!stale) continue;
        await rm(path, { recursive: true, force: true });
        removed++;
      }
      return removed;
    },
    async close() {
      if (dir || !root) return;
      const at = await root.catch(() => undefined);
      if (at) await rm(at, { recursive: true, force: true });
    },
  };
}
