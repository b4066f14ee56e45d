/**
 * The byte scan in front of the C2PA reader (media/c2pa.ts mayCarryC2pa): every image that
 * carries a manifest must pass it, plain images must not start the wasm, and types whose data may
 * be hidden from a byte scan are always read.
 */
import { readdirSync, readFileSync } from 'node:fs';
import sharp from 'sharp';
import { describe, expect, it } from 'vitest';
import { mayCarryC2pa, readC2pa } from '../../../src/engine/media/c2pa.js';
import { describeFixtures, fixture } from '../../helpers/fixtures.js';

const plainJpeg = () => sharp({ create: { width: 32, height: 32, channels: 3, background: '#468' } }).jpeg().toBuffer();

describe('mayCarryC2pa', () => {
  it('a plain JPEG and PNG: no; with an APP11 segment or a caBX chunk: maybe', async () => {
    const jpeg = await plainJpeg();
    expect(mayCarryC2pa(jpeg, 'image/jpeg')).toBe(false);
    const app11 = Buffer.concat([jpeg.subarray(0, 2), Buffer.from([0xff, 0xeb, 0x00, 0x04, 0x4a, 0x50]), jpeg.subarray(2)]);
    expect(mayCarryC2pa(app11, 'image/jpeg')).toBe(true);
    const png = await sharp({ create: { width: 8, height: 8, channels: 3, background: '#468' } }).png().toBuffer();
    expect(mayCarryC2pa(png, 'image/png')).toBe(false);
    expect(mayCarryC2pa(Buffer.concat([png, Buffer.from('caBX')]), 'image/png')).toBe(true);
    expect(mayCarryC2pa(Buffer.concat([png, Buffer.from('iTXt')]), 'image/png')).toBe(true);
  });
  it('an XMP remote-manifest reference (dcterms:provenance) in the clear: maybe', async () => {
    const xmp = Buffer.from('<x:xmpmeta><rdf:Description dcterms:provenance="https://example.invalid/m"/></x:xmpmeta>');
    expect(mayCarryC2pa(Buffer.concat([await plainJpeg(), xmp]), 'image/jpeg')).toBe(true);
  });
  it('GIF, BMFF video, HEIC and PDF are always read', () => {
    for (const f of ['image/gif', 'video/mp4', 'image/heic', 'application/pdf']) expect(mayCarryC2pa(Buffer.from('nothing here'), f)).toBe(true);
  });
  it('a plain JPEG reads as "no manifest" without the reader', async () => {
    expect(await readC2pa(await plainJpeg(), 'image/jpeg')).toBeNull();
  });
});

describeFixtures('mayCarryC2pa on the shared C2PA files', () => {
  it('every file with a manifest (or a reference to one) passes the scan', async () => {
    const files = readdirSync(fixture('c2pa')).filter((f) => /\.(jpg|png)$/.test(f) && f !== 'no_manifest.jpg');
    expect(files.length).toBeGreaterThan(8);
    for (const f of files) expect(mayCarryC2pa(readFileSync(fixture('c2pa', f)), f.endsWith('.png') ? 'image/png' : 'image/jpeg'), f).toBe(true);
  });
});
