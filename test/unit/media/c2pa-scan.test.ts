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
  it('the compressed pixels are not scanned: marker bytes inside PNG IDAT or JPEG entropy data do not start the reader, chunks and segments around them do', async () => {
    const chunk = (type: string, data: Buffer): Buffer => {
      const len = Buffer.alloc(4);
      len.writeUInt32BE(data.length);
      return Buffer.concat([len, Buffer.from(type, 'latin1'), data, Buffer.alloc(4)]); // CRC not read by the scan
    };
    const png = await sharp({ create: { width: 8, height: 8, channels: 3, background: '#468' } }).png().toBuffer();
    const iend = png.length - 12;
    const withChunk = (c: Buffer): Buffer => Buffer.concat([png.subarray(0, iend), c, png.subarray(iend)]);
    const markers = Buffer.from('jumb c2pa C2PA caBX provenance iTXt zTXt', 'latin1');
    expect(mayCarryC2pa(withChunk(chunk('IDAT', markers)), 'image/png')).toBe(false);
    // The same bytes in any other chunk, a caBX chunk after the pixels, or after IEND: maybe.
    expect(mayCarryC2pa(withChunk(chunk('teXt', markers)), 'image/png')).toBe(true);
    expect(mayCarryC2pa(withChunk(chunk('caBX', Buffer.alloc(16))), 'image/png')).toBe(true);
    expect(mayCarryC2pa(Buffer.concat([withChunk(chunk('IDAT', markers)), Buffer.from('c2pa')]), 'image/png')).toBe(true);
    // A chunk length past the end: the rest of the file is scanned as it is.
    const broken = withChunk(chunk('IDAT', markers));
    broken.writeUInt32BE(0x7ffffff0, iend);
    expect(mayCarryC2pa(broken, 'image/png')).toBe(true);

    const jpeg = await plainJpeg();
    const sos = jpeg.indexOf(Buffer.from([0xff, 0xda]));
    const eoi = jpeg.lastIndexOf(Buffer.from([0xff, 0xd9]));
    const inEntropy = (b: Buffer): Buffer => Buffer.concat([jpeg.subarray(0, eoi), b, jpeg.subarray(eoi)]);
    expect(sos).toBeGreaterThan(0);
    expect(mayCarryC2pa(inEntropy(markers), 'image/jpeg')).toBe(false);
    // An APP1 (XMP) or APP11 (JUMBF) segment between scans is scanned with everything around it.
    const app1 = Buffer.concat([Buffer.from([0xff, 0xe1, 0x00, 2 + markers.length]), markers]);
    expect(mayCarryC2pa(inEntropy(app1), 'image/jpeg')).toBe(true);
    expect(mayCarryC2pa(inEntropy(Buffer.from([0xff, 0xeb, 0x00, 0x04, 0x4a, 0x50])), 'image/jpeg')).toBe(true);
    // Before the first scan: as ever.
    const com = Buffer.concat([Buffer.from([0xff, 0xfe, 0x00, 2 + markers.length]), markers]);
    expect(mayCarryC2pa(Buffer.concat([jpeg.subarray(0, 2), com, jpeg.subarray(2)]), 'image/jpeg')).toBe(true);
    // A segment walk that fails (a stray byte where a marker belongs): the whole file is scanned.
    expect(mayCarryC2pa(Buffer.concat([jpeg.subarray(0, 2), Buffer.from([0x00]), jpeg.subarray(2), markers]), 'image/jpeg')).toBe(true);
    expect(mayCarryC2pa(Buffer.concat([jpeg.subarray(0, 2), Buffer.from([0x00]), jpeg.subarray(2, eoi), markers, jpeg.subarray(eoi)]), 'image/jpeg')).toBe(true);
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
