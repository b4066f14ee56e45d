import { existsSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import sharp from 'sharp';
import { describe, expect, it } from 'vitest';
import { VerityError } from '../../../src/api/errors.js';
import { MediaRequest } from '../../../src/api/requests.js';
import { addToMediaIndex, listMediaIndex } from '../../../src/engine/media/media-index.js';
import { verifyMedia } from '../../../src/engine/media/verify.js';
import { createDefaultPorts } from '../../../src/engine/default-ports.js';
import { openStore } from '../../../src/store/local/database.js';
import { cameraJpeg, codeOf, makePorts, memoryStore, scene } from './helpers.js';

const run = (bytes: Buffer, ports = makePorts()) => verifyMedia(MediaRequest.parse({ file: bytes.toString('base64') }), ports, {});

/** PNG CRC-32 (ISO 3309), so the crafted header below is a well-formed chunk. */
function crc32(buf: Buffer): number {
  let c = ~0;
  for (const b of buf) {
    c ^= b;
    for (let k = 0; k < 8; k++) c = (c >>> 1) ^ (0xedb88320 & -(c & 1));
  }
  return ~c >>> 0;
}

describe('bad input → catalogue errors, never a crash', () => {
  it('text, a PDF-less random blob and a file named .jpg that is not one → 415', async () => {
    expect(await codeOf(run(Buffer.from('hello, this is plain text and not an image at all')))).toBe('UNSUPPORTED_MEDIA_TYPE');
    const pdf = Buffer.from('%PDF-1.4\n1 0 obj<<>>endobj\ntrailer<<>>\n%%EOF\n');
    expect(await codeOf(run(pdf))).toBe('UNSUPPORTED_MEDIA_TYPE');
  });
  it('a truncated JPEG gives 422 or a partial result with a warning', async () => {
    const full = await cameraJpeg(scene(256, 256, 2), 256, 256);
    const cut = full.subarray(0, Math.floor(full.length * 0.2));
    try {
      const r = await run(cut);
      expect(r.warnings?.join(' ')).toMatch(/truncated|partly|skipped/);
    } catch (err) {
      expect((err as VerityError).code).toBe('UNPROCESSABLE_CONTENT');
    }
  });
  it('a corrupt JPEG decoded beside others says the same every time: libvips\'s words (one error buffer per process, shared by concurrent decodes) are not quoted', async () => {
    const full = await cameraJpeg(scene(512, 384, 3), 512, 384);
    const broken = Buffer.from(full);
    for (let i = Math.floor(broken.length / 3); i < broken.length - 2; i += 97) broken[i] = 0xd3; // stray restart markers in the scan
    const outcomes = await Promise.all(
      Array.from({ length: 10 }, () =>
        run(broken).then(
          (r) => JSON.stringify(r.warnings),
          (e: VerityError) => `${e.code}: ${e.message}`,
        ),
      ),
    );
    expect(new Set(outcomes).size).toBe(1);
    expect(outcomes[0]).not.toMatch(/Vips|Unknown error|failOn/);
    expect(outcomes[0]).toContain('The image cannot be decoded: it looks truncated or corrupt');
  });
  it('a decompression bomb (PNG header declaring 30000×30000) → 413 before decoding', async () => {
    const ihdr = Buffer.alloc(13);
    ihdr.writeUInt32BE(30000, 0);
    ihdr.writeUInt32BE(30000, 4);
    ihdr.set([8, 2, 0, 0, 0], 8);
    const chunk = (type: string, data: Buffer): Buffer => {
      const t = Buffer.concat([Buffer.from(type, 'latin1'), data]);
      const len = Buffer.alloc(4);
      len.writeUInt32BE(data.length);
      const crc = Buffer.alloc(4);
      crc.writeUInt32BE(crc32(t));
      return Buffer.concat([len, t, crc]);
    };
    const png = Buffer.concat([Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]), chunk('IHDR', ihdr), chunk('IDAT', Buffer.alloc(16)), chunk('IEND', Buffer.alloc(0))]);
    expect(await codeOf(run(png))).toBe('PAYLOAD_TOO_LARGE');
  });
  it('corrupt bytes after a valid JPEG header → 422 (or partial), not a crash', async () => {
    const full = await cameraJpeg(scene(128, 128, 4), 128, 128);
    const broken = Buffer.from(full);
    for (let i = 400; i < broken.length - 2; i += 7) broken[i] = 0xff;
    const code = await codeOf(run(broken));
    expect(['resolved', 'UNPROCESSABLE_CONTENT']).toContain(code);
  });
});

describe('known-media index and provenance', () => {
  it('finds resized, recompressed and slightly cropped copies; earliest appearance is provenance_source', async () => {
    const store = await memoryStore();
    const original = await cameraJpeg(scene(640, 480, 9), 640, 480);
    await addToMediaIndex(store, [{ name: 'original.jpg', bytes: original }], { source: 'wire-agency', url: 'https://example.org/photo/1', seen: '2024-03-01' });
    await addToMediaIndex(store, [{ name: 'repost.jpg', bytes: original }], { source: 'social', url: 'https://example.net/post/9', seen: '2024-05-20T08:00:00Z' });
    expect(listMediaIndex(store).map((e) => e.first_seen)).toEqual(['2024-03-01T00:00:00.000Z', '2024-05-20T08:00:00.000Z']);

    const resized = await sharp(original).resize(320).jpeg({ quality: 60 }).toBuffer();
    const cropped = await sharp(original).extract({ left: 12, top: 10, width: 610, height: 458 }).jpeg({ quality: 80 }).toBuffer();
    for (const copy of [original, resized, cropped]) {
      const r = await run(copy, makePorts({}, store));
      expect(r.provenance_source).toBe('wire-agency');
      expect(r.provenance[0]).toEqual({ url: 'https://example.org/photo/1', first_seen: '2024-03-01T00:00:00.000Z', source: 'wire-agency' });
      expect(r.dimensions.cross_reference).toBeGreaterThan(0.5);
    }
    const unrelated = await cameraJpeg(scene(640, 480, 77), 640, 480);
    const r = await run(unrelated, makePorts({}, store));
    expect(r.provenance).toEqual([]);
    expect(r.provenance_source).toBeNull();
    store.close();
  });
  it('a store file that does not exist is searched without being created; once written, it is read', async () => {
    const file = join(mkdtempSync(join(tmpdir(), 'verity-media-index-')), 'data', 'verity.db');
    const photo = await cameraJpeg(scene(320, 240, 5), 320, 240);
    const req = MediaRequest.parse({ file: photo.toString('base64') });
    const fresh = createDefaultPorts({ config: {}, storeFile: file, ssrfGuard: false });
    // Known to be absent: the analysis skips the perceptual hash, which only the look-up reads.
    expect(fresh.storeAbsent?.()).toBe(true);
    const none = await verifyMedia(req, fresh, {});
    expect(none.dimension_producers?.cross_reference).toBe('known-media index (no match)');
    expect(none.evidence.map((e) => e.finding)).toContain('No identical or near-duplicate file in the local known-media index (the web is not searched offline)');
    expect(existsSync(file)).toBe(false);
    fresh.closeStore();

    const store = await openStore(file);
    await addToMediaIndex(store, [{ name: 'photo.jpg', bytes: photo }], { source: 'archive', url: 'https://example.org/a', seen: '2024-02-02' });
    store.close();
    const ports = createDefaultPorts({ config: {}, storeFile: file, ssrfGuard: false });
    expect(ports.storeAbsent?.()).toBe(false);
    const found = await verifyMedia(req, ports, {});
    expect(found.dimension_producers?.cross_reference).toBe('known-media index match');
    expect(found.provenance_source).toBe('archive');
    // A resized copy is found by its perceptual hash, computed now that there is an index.
    const resized = await sharp(photo).resize(200).jpeg({ quality: 70 }).toBuffer();
    const near = await verifyMedia(MediaRequest.parse({ file: resized.toString('base64') }), ports, {});
    expect(near.provenance_source).toBe('archive');
    ports.closeStore();
  });
  it('a store that exists without the index (e.g. holding only keys or a corpus) gets no media_index table from a look-up', async () => {
    const file = join(mkdtempSync(join(tmpdir(), 'verity-media-index-')), 'verity.db');
    const store = await openStore(file);
    const tables = () => store.db.prepare(`SELECT name FROM sqlite_master WHERE type = 'table' AND name LIKE 'media_index%'`).pluck().all();
    expect(tables()).toEqual([]);
    expect(listMediaIndex(store)).toEqual([]);
    const photo = await cameraJpeg(scene(320, 240, 5), 320, 240);
    const ports = createDefaultPorts({ config: {}, storeFile: file, ssrfGuard: false });
    const none = await verifyMedia(MediaRequest.parse({ file: photo.toString('base64') }), ports, {});
    expect(none.dimension_producers?.cross_reference).toBe('known-media index (no match)');
    ports.closeStore();
    expect(tables()).toEqual([]);
    store.close();
  });
  it('rejects a bad --seen date and a non-http URL', async () => {
    const store = await memoryStore();
    const img = await cameraJpeg(scene(64, 64, 1), 64, 64);
    expect(await codeOf(addToMediaIndex(store, [{ name: 'a', bytes: img }], { source: 's', url: 'https://x.org', seen: 'yesterday' }))).toBe('VALIDATION_FAILED');
    expect(await codeOf(addToMediaIndex(store, [{ name: 'a', bytes: img }], { source: 's', url: 'ftp://x.org', seen: '2024-01-01' }))).toBe('VALIDATION_FAILED');
    store.close();
  });
});
