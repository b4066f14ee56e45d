/** Media evidence carries a plain-language summary beside the technical finding (issue 14 item 2). */
import { readFileSync } from 'node:fs';
import sharp from 'sharp';
import { expect, it } from 'vitest';
import { MediaRequest } from '../../../src/api/requests.js';
import { combineImageScores } from '../../../src/engine/media/score.js';
import type { Signal } from '../../../src/engine/media/forensics/types.js';
import { verifyMedia } from '../../../src/engine/media/verify.js';
import { describeFixtures, fixture } from '../../helpers/fixtures.js';
import { makePorts, scene } from './helpers.js';

const grid = (probability: number): Signal => ({
  analyzer: 'forensics.jpeg_grid',
  kind: 'manipulation',
  probability,
  confidence: 0.7,
  finding: probability ? 'A region of 4 connected 64×64 tiles carries a second JPEG block grid at phase (5,2)' : 'One block grid, phase (0,0), in every tile',
});

it('a fired detector is summarised in plain words; the finding with its numbers stays beside it', () => {
  const { evidence } = combineImageScores([grid(0.6)], null);
  const e = evidence.find((x) => x.source === 'forensics.jpeg_grid')!;
  expect(e.finding).toContain('phase (5,2)');
  expect(e.summary).toMatch(/pasted in from another JPEG/);
  expect(e.summary).not.toMatch(/\d/);
});

it('a detector that found nothing says so, and the C2PA line says whether credentials exist', () => {
  const { evidence } = combineImageScores([grid(0)], null);
  expect(evidence.find((x) => x.source === 'forensics.jpeg_grid')!.summary).toBe('The JPEG compression pattern is the same across the image.');
  expect(evidence.find((x) => x.source === 'c2pa')!.summary).toBe('No Content Credentials (C2PA) in the file.');
});

it('a grid test that could not run, or found only scattered texture, is not worded as "the same pattern everywhere"', () => {
  const summary = (finding: string): string | undefined =>
    combineImageScores([{ ...grid(0), finding }], null).evidence.find((x) => x.source === 'forensics.jpeg_grid')!.summary;
  expect(summary('Block artifacts too weak to test for a foreign grid (high quality or never JPEG-compressed; …)')).toMatch(/too faint to test/);
  expect(summary('Tiles with a foreign grid phase occur across the image at about the rate of the largest cluster: scene texture …')).toMatch(/no region stands out/);
});

it('a capture date in the future alone is not "dates disagreeing"; an impossible order is', () => {
  const ts = (finding: string): string | undefined =>
    combineImageScores([{ analyzer: 'metadata.timestamps', kind: 'manipulation', probability: 0.35, confidence: 0.6, finding, flag: 'inconsistent_timestamps' }], null).evidence.find(
      (x) => x.source === 'metadata.timestamps',
    )!.summary;
  expect(ts('Inconsistent timestamps: DateTimeOriginal 2099:01:01 00:00:00 is in the future')).toMatch(/lies in the future/);
  expect(ts('Inconsistent timestamps: ModifyDate 2020:01:01 00:00:00 is before DateTimeOriginal 2021:01:01 00:00:00')).toMatch(/disagree/);
});

it('an analyzer without a rule keeps its finding alone (no invented summary)', () => {
  const { evidence } = combineImageScores([{ ...grid(0.5), analyzer: 'forensics.something_new' }], null);
  expect(evidence.find((x) => x.source === 'forensics.something_new')!.summary).toBeUndefined();
});

/** Words a summary may use only when the evidence really shows an alteration, a re-save or contradictory dates. */
const ALTERATION = /edited|editing software that|re-?sav|saved again|written again|last written by software|changed after|different picture|disagree|pasted|retouched/i;

describeFixtures('plain summaries of real files say only what their findings say (issue 13 item 1)', () => {
  const summaries = async (path: string): Promise<Map<string, string>> => {
    const r = await verifyMedia(MediaRequest.parse({ file: readFileSync(path).toString('base64') }), makePorts(), {});
    return new Map(r.evidence.filter((e) => e.summary).map((e) => [e.source, e.summary!]));
  };

  it.each([
    ['camera', 'DSCN0010.jpg'],
    ['malformed', '42_IndexError.jpg'],
  ])('%s/%s (an unedited camera photo): nothing about editing, re-saving or disagreeing dates', async (dir, name) => {
    const s = await summaries(fixture('images', dir, name));
    for (const [source, text] of s) expect(`${source}: ${text}`).not.toMatch(ALTERATION);
    // The readings that used to be worded as alterations are still there, now worded as what they are.
    if (name === 'DSCN0010.jpg') {
      expect(s.get('forensics.exif_thumbnail')).toBe('The preview stored in the metadata matches the image.');
      expect(s.get('forensics.jpeg_quantization')).toMatch(/many cameras and phones also use/);
      expect(s.get('metadata.timestamps')).toMatch(/do not contradict/);
      // Its blocks are too faint for the grid test: said so, not "the same pattern everywhere".
      expect(s.get('forensics.jpeg_grid')).toMatch(/too faint to test/);
    }
  });

  it('an image edited in Photoshop still gets its alteration sentence', async () => {
    const s = await summaries(fixture('images', 'camera', 'Canon_40D_photoshop_import.jpg'));
    expect(s.get('metadata.editing_software')).toBe('The metadata names editing software that saved the image after it was taken.');
  });

  it('a thumbnail that really shows another picture still says so', async () => {
    // DSCN0010's EXIF block (with its IFD1 preview of a Tuscan street) spliced in front of a
    // generated 640×480 scene: the preview no longer shows the main image.
    const camera = readFileSync(fixture('images', 'camera', 'DSCN0010.jpg'));
    const app1 = jpegSegment(camera, 0xe1);
    const other = await sharp(scene(640, 480, 11), { raw: { width: 640, height: 480, channels: 3 } }).jpeg({ quality: 90 }).toBuffer();
    const spliced = Buffer.concat([other.subarray(0, 2), app1, other.subarray(2)]);
    const r = await verifyMedia(MediaRequest.parse({ file: spliced.toString('base64') }), makePorts(), {});
    const e = r.evidence.find((x) => x.source === 'forensics.exif_thumbnail')!;
    expect(e.finding).toMatch(/different picture/);
    expect(e.summary).toMatch(/shows a different picture/);
  });
});

it('weak readings are not worded as findings: a routine later ModifyDate, standard tables beside a camera, a raw developer', () => {
  const one = (s: Partial<Signal> & Pick<Signal, 'analyzer' | 'kind' | 'probability' | 'finding'>): string =>
    combineImageScores([{ confidence: 0.3, ...s }], null).evidence.find((e) => e.source === s.analyzer)!.summary!;
  expect(one({ analyzer: 'metadata.timestamps', kind: 'manipulation', probability: 0.05, group: 'reencoding', finding: 'ModifyDate later' })).not.toMatch(/disagree/);
  expect(one({ analyzer: 'metadata.timestamps', kind: 'manipulation', probability: 0.35, flag: 'inconsistent_timestamps', finding: 'Inconsistent timestamps' })).toMatch(/disagree/);
  expect(one({ analyzer: 'forensics.jpeg_quantization', kind: 'capture', probability: 0.3, finding: 'Non-standard quantization tables' })).not.toMatch(ALTERATION);
  expect(one({ analyzer: 'metadata.editing_software', kind: 'manipulation', probability: 0.2, group: 'reencoding', finding: 'Processed after capture' })).toMatch(/weak evidence/);
  expect(one({ analyzer: 'metadata.ai_generator', kind: 'capture', probability: 0.3, finding: 'XMP/IPTC DigitalSourceType declares digitalCapture' })).not.toMatch(/AI image generator/);
  expect(one({ analyzer: 'forensics.jpeg_grid', kind: 'manipulation', probability: 0.2, group: 'reencoding', finding: 'The whole image carries a JPEG block grid off the 8-pixel lattice' })).not.toMatch(/pasted/);
});

/** The first JPEG marker segment of this type (0xe1 = APP1), marker and length included. */
function jpegSegment(jpeg: Buffer, type: number): Buffer {
  for (let at = 2; at + 4 <= jpeg.length && jpeg[at] === 0xff; ) {
    const len = jpeg.readUInt16BE(at + 2);
    if (jpeg[at + 1] === type) return jpeg.subarray(at, at + 2 + len);
    at += 2 + len;
  }
  throw new Error(`no segment 0x${type.toString(16)}`);
}
