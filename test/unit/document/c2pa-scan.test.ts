/**
 * The byte/structure scan that decides whether the C2PA reader runs on a PDF (pdf/c2pa-scan.ts):
 * every place c2pa-rs looks for a manifest must make it say "maybe", hidden or not; a plain PDF must not.
 */
import { readFileSync } from 'node:fs';
import { PDFDocument, PDFName, StandardFonts } from 'pdf-lib';
import { describe, expect, it } from 'vitest';
import { pdfMayCarryC2pa } from '../../../src/engine/document/pdf/c2pa-scan.js';
import { readPdfStructure } from '../../../src/engine/document/pdf/structure.js';
import { describeFixtures, fixture } from '../../helpers/fixtures.js';

const scan = (b: Buffer): boolean => pdfMayCarryC2pa(b, readPdfStructure(b));

async function pdf(extra?: (d: PDFDocument) => void, objectStreams = false): Promise<Buffer> {
  const d = await PDFDocument.create();
  const font = await d.embedFont(StandardFonts.Helvetica);
  d.addPage().drawText('An ordinary page of text.', { x: 50, y: 700, font, size: 12 });
  extra?.(d);
  return Buffer.from(await d.save({ useObjectStreams: objectStreams }));
}

/** A file specification with the given AF relationship, listed in the catalog's /AF array. */
const withAf = (relationship: string) => (d: PDFDocument): void => {
  const spec = d.context.register(d.context.obj({ Type: 'Filespec', F: 'x', AFRelationship: PDFName.of(relationship) }));
  d.catalog.set(PDFName.of('AF'), d.context.obj([spec]));
};

/** Catalog /Metadata as a Flate-compressed XMP stream. */
const withXmp = (xmp: string) => (d: PDFDocument): void => {
  const s = d.context.flateStream(Buffer.from(xmp), { Type: 'Metadata', Subtype: 'XML' });
  d.catalog.set(PDFName.of('Metadata'), d.context.register(s));
};

describe('pdfMayCarryC2pa', () => {
  it('a plain PDF, with or without object streams: no', async () => {
    expect(scan(await pdf())).toBe(false);
    expect(scan(await pdf(undefined, true))).toBe(false);
  });
  it('an /AFRelationship in an object stream (compressed, invisible to a byte scan): maybe', async () => {
    const b = await pdf(withAf('Supplement'), true);
    expect(b.includes('AFRelationship')).toBe(false);
    expect(scan(b)).toBe(true);
  });
  it('a /C2PA_Manifest file specification in plain view: maybe', async () => {
    expect(scan(await pdf(withAf('C2PA_Manifest')))).toBe(true);
  });
  it('dcterms:provenance inside a compressed XMP stream (a remote manifest): maybe; other XMP: no', async () => {
    const xmp = (extra: string) => `<x:xmpmeta xmlns:x="adobe:ns:meta/"><rdf:RDF xmlns:rdf="http://www.w3.org/1999/02/22-rdf-syntax-ns#"><rdf:Description ${extra}/></rdf:RDF></x:xmpmeta>`;
    const remote = await pdf(withXmp(xmp('xmlns:dcterms="http://purl.org/dc/terms/" dcterms:provenance="https://example.invalid/m.c2pa"')));
    expect(remote.includes('provenance')).toBe(false);
    expect(scan(remote)).toBe(true);
    expect(scan(await pdf(withXmp(xmp('xmlns:xmp="http://ns.adobe.com/xap/1.0/" xmp:CreatorTool="Writer"'))))).toBe(false);
  });
  it('no readable structure, or an encrypted file: maybe', async () => {
    const b = await pdf();
    expect(pdfMayCarryC2pa(b, undefined)).toBe(true);
    expect(pdfMayCarryC2pa(b, { ...readPdfStructure(b), encrypted: true })).toBe(true);
  });
  it('a JUMBF box marker anywhere: maybe', async () => {
    const b = await pdf();
    expect(scan(Buffer.concat([b, Buffer.from('\n% jumb\n')]))).toBe(true);
  });
});

describeFixtures('pdfMayCarryC2pa on the shared PDFs', () => {
  it('the PDF with a C2PA manifest and the encrypted one are candidates; plain ones are not', () => {
    expect(scan(readFileSync(fixture('pdf', 'c2pa-rs-express-signed.pdf')))).toBe(true);
    expect(scan(readFileSync(fixture('pdf', 'c2pa-rs-basic-signed.pdf')))).toBe(true);
    for (const f of ['c2pa-rs-basic.pdf', 'c2pa-rs-express.pdf', 'pdfjs-bad-PageLabels.pdf'])
      expect(scan(readFileSync(fixture('pdf', f))), f).toBe(false);
  });
});
