/**
 * Metadata read as exiftool reads it (docs/media.md "Metadata as exiftool reads it"): strings end
 * at the first NUL, every date in EXIF form (XMP dates too). Compared with `exiftool -j` itself on
 * the shared camera, C2PA and malformed JPEGs and on files built here; exiftool must be installed
 * (Debian: libimage-exiftool-perl). CIFF and maker-note fields are a documented gap, not compared.
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import sharp from 'sharp';
import { afterAll, describe, expect, it } from 'vitest';
import { exifDate, readMetadataDetails } from '../../../src/engine/media/metadata.js';
import { describeFixtures, fixture } from '../../helpers/fixtures.js';
import { CAMERA_EXIF, scene } from './helpers.js';

const TAGS = ['-EXIF:Make', '-EXIF:Model', '-EXIF:DateTimeOriginal', '-EXIF:Software', '-EXIF:ModifyDate', '-XMP:CreatorTool', '-XMP:CreateDate'];
function exiftool(path: string): Record<string, string | undefined> {
  const out = (JSON.parse(execFileSync('exiftool', ['-json', '-G0', ...TAGS, path], { encoding: 'utf8' })) as Array<Record<string, unknown>>)[0]!;
  const s = (k: string): string | undefined => (out[k] === undefined ? undefined : String(out[k]).trim() || undefined);
  return {
    make: s('EXIF:Make'), model: s('EXIF:Model'), dto: s('EXIF:DateTimeOriginal'), software: s('EXIF:Software'),
    modify: s('EXIF:ModifyDate'), creatorTool: s('XMP:CreatorTool'), xmpCreate: s('XMP:CreateDate'),
  };
}

async function compare(path: string): Promise<void> {
  const d = await readMetadataDetails(readFileSync(path));
  const x = exiftool(path);
  expect(d.exif.make ?? undefined).toBe(x.make);
  expect(d.exif.model ?? undefined).toBe(x.model);
  // datetime_original carries OffsetTimeOriginal when present; exiftool's DateTimeOriginal does not.
  expect(d.exif.datetime_original?.replace(/[+-]\d\d:\d\d$/, '') ?? undefined).toBe(x.dto);
  expect(d.software ?? undefined).toBe(x.software);
  if (x.creatorTool) expect(d.creatorTool).toBe(x.creatorTool);
  if (x.modify && !x.xmpCreate) expect(d.modifyDate).toBe(x.modify);
}

describeFixtures('shared JPEGs: metadata equals exiftool -j (../shared/fixtures)', () => {
  const list = (...p: string[]): string[] => { try { return readdirSync(fixture(...p)).filter((f) => f.endsWith('.jpg')).map((f) => fixture(...p, f)); } catch { return []; } };
  const files = [...list('images', 'camera'), ...list('c2pa'), ...list('images', 'malformed').filter((f) => !/35-empty/.test(f))]
  // 35-empty.jpg: Software is the string "1.00", which exiftool -j prints as the JSON number 1.00 (JSON.parse → 1).;
  it.each(files.map((f) => [f.split('/').slice(-2).join('/'), f]))('%s', async (_name, path) => {
    await compare(path);
  });
});

describe('files built here: NUL-terminated strings and XMP dates', () => {
  const dir = mkdtempSync(join(tmpdir(), 'verity-exif-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('a Model with bytes after its NUL reads up to the NUL, as exiftool reads it', async () => {
    const bytes = await sharp(scene(128, 96, 2), { raw: { width: 128, height: 96, channels: 3 } })
      .withExif({ IFD0: { Make: 'Canon', Model: 'ION230XF', Software: 'Firmware 1.0' }, IFD2: { DateTimeOriginal: '2025:06:01 10:00:00' } })
      .jpeg()
      .toBuffer();
    // Same length, so every EXIF offset stays valid: the 'X' becomes the NUL.
    const at = bytes.indexOf('ION230XF');
    bytes[at + 6] = 0;
    const path = join(dir, 'nul.jpg');
    writeFileSync(path, bytes);
    const d = await readMetadataDetails(bytes);
    expect(d.exif.model).toBe('ION230');
    expect(exiftool(path).model).toBe('ION230');
    await compare(path);
  });

  it('XMP dates come out in the EXIF form, as exiftool prints them', async () => {
    const xmp = `<?xpacket begin="" id="W5M0MpCehiHzreSzNTczkc9d"?><x:xmpmeta xmlns:x="adobe:ns:meta/"><rdf:RDF xmlns:rdf="http://www.w3.org/1999/02/22-rdf-syntax-ns#"><rdf:Description rdf:about="" xmlns:xmp="http://ns.adobe.com/xap/1.0/" xmp:CreateDate="2025-06-01T10:00:00.25+02:00" xmp:ModifyDate="2025-06-02T11:30:00Z" xmp:CreatorTool="Camera Firmware 2.1"/></rdf:RDF></x:xmpmeta><?xpacket end="w"?>`;
    const bytes = await sharp(scene(128, 96, 2), { raw: { width: 128, height: 96, channels: 3 } }).withExif({ IFD0: { Make: 'Canon', Model: 'EOS' } }).withXmp(xmp).jpeg().toBuffer();
    const path = join(dir, 'xmp.jpg');
    writeFileSync(path, bytes);
    const d = await readMetadataDetails(bytes);
    const x = exiftool(path);
    expect(d.createDate).toBe('2025:06:01 10:00:00.25+02:00');
    expect(d.createDate).toBe(x.xmpCreate);
    expect(d.modifyDate).toBe('2025:06:02 11:30:00Z');
    expect(d.creatorTool).toBe(x.creatorTool);
  });

  it('exifDate: one form for every source, nothing invented', () => {
    expect(exifDate('2008:10:22 16:28:39')).toBe('2008:10:22 16:28:39');
    expect(exifDate('2008-10-22T16:28:39+0200')).toBe('2008:10:22 16:28:39+02:00');
    expect(exifDate('2008-10-22T16:28')).toBe('2008:10:22 16:28:00');
    expect(exifDate('2008-10-22')).toBe('2008:10:22');
    expect(exifDate('sometime in 2008')).toBe('sometime in 2008');
    expect(CAMERA_EXIF.IFD2.DateTimeOriginal).toBe(exifDate(CAMERA_EXIF.IFD2.DateTimeOriginal));
  });
});
