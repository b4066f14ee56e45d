/**
 * The HTML report in a real headless Chromium (Debian's chromium via playwright-core): the
 * sections and overlays exist, the spliced region is marked where it was pasted, the revision
 * timeline says which revision broke which signature, untrusted text stays text, and the page
 * makes no network request and logs no error. Screenshots at 1280×800 go to test-output/report/.
 */
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { BusinessResult, ClaimResult, DocumentResult, MediaResult } from '../../../src/api/results.js';
import { createEngine, createSandboxEngine } from '../../../src/engine/index.js';
import { renderReport, type AnyResult, type ReportKind } from '../../../src/report/index.js';
import { b64, testPorts } from '../document/build.js';
import { buildForm, signedTwiceThenEdited } from '../document/pdf-diff-build.js';
import { makePorts, splicedJpeg } from '../media/helpers.js';
import { closeBrowser, hasChromium, openReport, OUT_DIR, screenshot, scrollTo, type Opened } from './chromium.js';
import { businessWithDisagreement, hostileClaim, withAiText } from './results.js';

const FIXTURES = '../shared/fixtures';
const now = new Date('2026-01-15T12:00:00Z');
const render = (kind: ReportKind, result: AnyResult, input?: Buffer, subject?: string) => renderReport({ kind, result, input, subject, now, version: 'test' });

if (!hasChromium) console.warn('SKIPPED: report browser tests need /usr/bin/chromium (apt-get install chromium); .ci/run installs it');

/** `jpeg` with the APP1 (EXIF) segment of `donor` inserted after its SOI marker. */
function withExifOf(jpeg: Buffer, donor: Buffer): Buffer {
  let at = 2;
  while (at < donor.length && donor[at] === 0xff && donor[at + 1] !== 0xe1) at += 2 + donor.readUInt16BE(at + 2);
  if (donor[at + 1] !== 0xe1) throw new Error('the donor has no APP1 segment');
  const app1 = donor.subarray(at, at + 2 + donor.readUInt16BE(at + 2));
  return Buffer.concat([jpeg.subarray(0, 2), app1, jpeg.subarray(2)]);
}

/** Every report: no request left the page, nothing was logged as an error, headings are in place. */
async function expectClean(o: Opened): Promise<void> {
  expect(o.requests).toEqual([]);
  expect(o.errors).toEqual([]);
  expect(await o.page.locator('h1').count()).toBe(1);
  for (const id of ['h-dims', 'h-ev']) expect(await o.page.locator(`#${id}`).count(), id).toBe(1);
  expect(await o.page.locator('script').count()).toBe(0);
  // Every image has alt text.
  expect(await o.page.locator('img:not([alt])').count()).toBe(0);
}

describe.skipIf(!hasChromium)('HTML report in headless Chromium', () => {
  beforeAll(() => undefined);
  afterAll(closeBrowser);

  it('media: a spliced JPEG — the pasted region is marked where it was pasted; overlays switch without JavaScript', async () => {
    const { bytes, pasted } = await splicedJpeg();
    const media = createEngine(makePorts());
    const result = await media.verifyMedia({ file: bytes.toString('base64') });
    const o = await openReport(await render('media', result, bytes, 'spliced.jpg'), 'media-spliced');
    try {
      await expectClean(o);
      for (const id of ['h-image', 'h-c2pa', 'h-meta']) expect(await o.page.locator(`#${id}`).count(), id).toBe(1);
      // The region box, measured on the rendered page and mapped back to image pixels.
      const photo = (await o.page.locator('img.photo').boundingBox())!;
      const box = (await o.page.locator('.ov-region').first().boundingBox())!;
      const sx = result.metadata.width / photo.width;
      const sy = result.metadata.height / photo.height;
      const region = { x: (box.x - photo.x) * sx, y: (box.y - photo.y) * sy, width: box.width * sx, height: box.height * sy };
      const ix = Math.max(0, Math.min(region.x + region.width, pasted.x + pasted.width) - Math.max(region.x, pasted.x));
      const iy = Math.max(0, Math.min(region.y + region.height, pasted.y + pasted.height) - Math.max(region.y, pasted.y));
      expect((ix * iy) / (region.width * region.height)).toBeGreaterThan(0.7);
      expect(await o.page.locator('.ov-region .tag').first().textContent()).toMatch(/Region 1: jpeg_grid/);
      // Tile overlays off by default (an untouched photo is not painted over), named regions on;
      // the checkboxes switch them (CSS only).
      expect(await o.page.locator('img.ov-grid').isVisible()).toBe(false);
      expect(await o.page.locator('img.ov-noise').isVisible()).toBe(false);
      await o.page.locator('label[for=ov-grid]').click();
      expect(await o.page.locator('img.ov-grid').isVisible()).toBe(true);
      await o.page.locator('label[for=ov-noise]').click();
      expect(await o.page.locator('img.ov-noise').isVisible()).toBe(true);
      await o.page.locator('label[for=ov-noise]').click();
      await screenshot(o, 'media-spliced');
      await scrollTo(o, '#h-image');
      await screenshot(o, 'media-spliced-image');
      // Printable: the switches disappear, the overlays that are on stay, and Chromium prints a PDF.
      await o.page.emulateMedia({ media: 'print' });
      expect(await o.page.locator('#ov-grid').isVisible()).toBe(false);
      expect(await o.page.locator('img.ov-grid').isVisible()).toBe(true);
      expect(await o.page.locator('.ov-region').first().isVisible()).toBe(true);
      const pdf = await o.page.pdf({ path: join(OUT_DIR, 'media-spliced.pdf'), printBackground: true });
      expect(pdf.subarray(0, 5).toString('latin1')).toBe('%PDF-');
    } finally {
      await o.close();
    }
  }, 60_000);

  it.skipIf(!existsSync(`${FIXTURES}/c2pa/CA.jpg`))('media fixture with Content Credentials: the manifest chain is a timeline', async () => {
    const bytes = readFileSync(`${FIXTURES}/c2pa/CA.jpg`);
    const result = await createEngine(makePorts()).verifyMedia({ file: bytes.toString('base64') });
    const o = await openReport(await render('media', result, bytes, 'CA.jpg'), 'media-c2pa');
    try {
      await expectClean(o);
      const timeline = o.page.locator('#h-c2pa ~ ol.timeline');
      expect(await timeline.count()).toBe(1);
      expect(await timeline.textContent()).toMatch(/Manifest signed/);
      expect(await timeline.textContent()).toMatch(/Ingredient/);
      // The thumbnails the manifest stores (the claim's and the ingredient's), read from the file.
      expect(await timeline.locator('img.c2pa-thumb').count()).toBe(2);
      await scrollTo(o, '#h-c2pa');
      await screenshot(o, 'media-c2pa');
    } finally {
      await o.close();
    }
  }, 60_000);

  it.skipIf(!existsSync(`${FIXTURES}/images/camera/DSCN0010.jpg`))('media: a camera photo whose pixels changed after capture shows its EXIF thumbnail beside the image', async () => {
    // The camera's own EXIF block (with its IFD1 thumbnail) put on a colour-inverted copy of the photo.
    const original = readFileSync(`${FIXTURES}/images/camera/DSCN0010.jpg`);
    const edited = await sharp(original).negate({ alpha: false }).jpeg({ quality: 90 }).toBuffer();
    const bytes = withExifOf(edited, original);
    const result = await createEngine(makePorts()).verifyMedia({ file: bytes.toString('base64') });
    expect(result.evidence.find((e) => e.source === 'forensics.exif_thumbnail')?.finding).toMatch(/different picture/);
    const o = await openReport(await render('media', result, bytes, 'DSCN0010-edited.jpg'), 'media-exif-thumbnail');
    try {
      await expectClean(o);
      const thumb = o.page.locator('figure.thumb img');
      expect(await thumb.count()).toBe(1);
      expect(await thumb.isVisible()).toBe(true);
      expect(await o.page.locator('figure.thumb figcaption').textContent()).toMatch(/differs/);
      await scrollTo(o, '#h-image');
      await screenshot(o, 'media-exif-thumbnail');
    } finally {
      await o.close();
    }
  }, 60_000);

  it('document: signed twice then edited — the timeline shows the last revision broke both signatures; AI-text passages are highlighted', async () => {
    const pdf = signedTwiceThenEdited(await buildForm());
    const engine = createEngine(testPorts());
    const result = withAiText(await engine.verifyDocument({ source: 'upload', content: b64(pdf), mime_type: 'application/pdf' }));
    const o = await openReport(await render('document', result, pdf, 'purchase-order.pdf'), 'document-signed-twice-edited');
    try {
      await expectClean(o);
      for (const id of ['h-sig', 'h-meta', 'h-ai']) expect(await o.page.locator(`#${id}`).count(), id).toBe(1);
      // Matrix: rows Sig1, Sig2; columns Rev. 0..3; the last column is "broken" for both.
      const rows = o.page.locator('table.matrix tbody tr');
      expect(await rows.count()).toBe(2);
      const cells = async (i: number) => (await rows.nth(i).locator('td').allTextContents()).map((t) => t.replace(/[^a-z]/gi, ''));
      expect(await cells(0)).toEqual(['', 'signed', 'allowed', 'broken']);
      expect(await cells(1)).toEqual(['', '', 'signed', 'broken']);
      const last = o.page.locator('ol.timeline > li').last();
      expect(await last.textContent()).toMatch(/This revision breaks\s+“Sig1” \(\w+ signer\), “Sig2” \(\w+ signer\)/);
      expect(await last.textContent()).toMatch(/page content stream/);
      expect(await o.page.locator('mark.ai').count()).toBe(2);
      expect(await o.page.locator('mark.ai').first().textContent()).toContain('delve into the multifaceted');
      await scrollTo(o, '#h-sig');
      await screenshot(o, 'document-signed-twice-edited');
    } finally {
      await o.close();
    }
  }, 60_000);

  it.skipIf(!existsSync(`${FIXTURES}/pdf-signatures/minimal-signed-twice-both-created.pdf`))('document fixture (pyHanko, signed twice): both signatures on the timeline', async () => {
    const pdf = readFileSync(`${FIXTURES}/pdf-signatures/minimal-signed-twice-both-created.pdf`);
    const result = await createEngine(testPorts()).verifyDocument({ source: 'upload', content: b64(pdf), mime_type: 'application/pdf' });
    const o = await openReport(await render('document', result, pdf, 'minimal-signed-twice-both-created.pdf'), 'document-fixture');
    try {
      await expectClean(o);
      expect(await o.page.locator('table.matrix tbody tr').count()).toBe(2);
      expect(await o.page.locator('table.matrix').textContent()).not.toMatch(/broken/);
    } finally {
      await o.close();
    }
  }, 60_000);

  it('claim: evidence grouped by stance and source; a hostile evidence title stays text', async () => {
    const base = (await createSandboxEngine(testPorts()).verifyClaim({ claim: 'The Eiffel Tower is in Paris' })) as ClaimResult;
    const result = hostileClaim(base);
    const o = await openReport(await render('claim', result, undefined, 'The Eiffel Tower is in Paris'), 'claim');
    try {
      await expectClean(o);
      expect(await o.page.locator('#h-support').count()).toBe(1);
      expect(await o.page.locator('#h-against').count()).toBe(1);
      // The title is shown literally, and nothing it contained became markup.
      expect(await o.page.locator('#h-against ~ h4').first().textContent()).toBe('<script>alert("x")</script><img src=x onerror=alert(1)>');
      expect(await o.page.locator('img[src=x]').count()).toBe(0);
      expect(await o.page.locator('a[href^="javascript:"]').count()).toBe(0);
      await scrollTo(o, '#h-stance');
      await screenshot(o, 'claim');
    } finally {
      await o.close();
    }
  }, 60_000);

  it('business: sources side by side with agreements and disagreements marked', async () => {
    const o = await openReport(await render('business', businessWithDisagreement() as BusinessResult), 'business');
    try {
      await expectClean(o);
      const table = o.page.locator('#h-sources ~ div table');
      expect(await table.locator('thead th').count()).toBe(4);
      expect(await table.locator('tbody tr').nth(4).textContent()).toMatch(/disagrees/);
      expect(await table.locator('tbody tr').nth(0).textContent()).toMatch(/agrees/);
      await scrollTo(o, '#h-sources');
      await screenshot(o, 'business');
    } finally {
      await o.close();
    }
  }, 60_000);
});

export type { DocumentResult, MediaResult };
