/**
 * The batch spool (server/batches/spool.ts) on a real folder: staging, commit, reads by batch id
 * and index only, removal per item and per batch, the start-up sweep, and the private temp folder
 * that goes with the server.
 */
import { mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { createBatchSpool } from '../../../src/server/batches/spool.js';

const dirs: string[] = [];
afterEach(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});
const folder = (): string => {
  const d = mkdtempSync(join(tmpdir(), 'verity-spool-test-'));
  dirs.push(d);
  return d;
};

describe('batch spool', () => {
  it('a staged upload becomes the batch\'s files; items are found by index and removed one by one, the batch folder at its end', async () => {
    const root = folder();
    const spool = createBatchSpool(join(root, 'spool'));
    const s = await spool.staging();
    await s.put(0, Buffer.from('zero'));
    await s.put(2, Buffer.from('two'));
    expect(s.bytes).toBe(7);
    await s.commit('bat_abc');
    await s.discard(); // after a commit: nothing to remove
    expect(readdirSync(join(root, 'spool'))).toEqual(['bat_abc']);
    expect(readFileSync(await spool.file('bat_abc', 2), 'utf8')).toBe('two');
    await spool.dropItem('bat_abc', 2);
    await expect(spool.file('bat_abc', 2)).rejects.toMatchObject({ code: 'UNAVAILABLE' });
    // Only ids the server makes name a folder: nothing a caller sends becomes a path.
    await expect(spool.file('../etc', 0)).rejects.toMatchObject({ code: 'INTERNAL_ERROR' });
    await spool.dropBatch('bat_abc');
    expect(readdirSync(join(root, 'spool'))).toEqual([]);
  });

  it('a refused upload is removed; the sweep removes ended batches and day-old uploads, and keeps running ones', async () => {
    const root = join(folder(), 'spool');
    const spool = createBatchSpool(root);
    const refused = await spool.staging();
    await refused.put(0, Buffer.from('x'));
    await refused.discard();
    expect(readdirSync(root)).toEqual([]);
    for (const b of ['bat_live', 'bat_ended']) mkdirSync(join(root, b));
    mkdirSync(join(root, '.upload-old'));
    mkdirSync(join(root, '.upload-new'));
    writeFileSync(join(root, 'bat_live', '0'), 'x');
    const now = Date.now();
    utimesSync(join(root, '.upload-old'), new Date(now - 25 * 3600_000), new Date(now - 25 * 3600_000));
    expect(await spool.sweep(new Set(['bat_live']), now)).toBe(2);
    expect(readdirSync(root).sort()).toEqual(['.upload-new', 'bat_live']);
  });

  it('without a folder: a private temp folder made on the first upload and removed at close', async () => {
    const spool = createBatchSpool();
    expect(await spool.sweep(new Set(), Date.now())).toBe(0);
    const s = await spool.staging();
    await s.put(0, Buffer.from('x'));
    await s.commit('bat_tmp');
    expect(readFileSync(await spool.file('bat_tmp', 0), 'utf8')).toBe('x');
    await spool.close();
    // The folder is gone with what was in it.
    await expect(spool.file('bat_tmp', 0)).rejects.toMatchObject({ code: 'UNAVAILABLE' });
  });
});
