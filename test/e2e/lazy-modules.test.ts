/**
 * `verify document` of a local PDF and `verify media` of a photo load only what their analysis
 * uses (issue 31): commander's child_process (with dgram and the DNS resolver), the URL fetcher's
 * dns and ipaddr.js, the XMP reader's saxes, the video modules and sharp's colour parser are
 * loaded on first use (scripts/build.mjs, engine/default-ports.ts, pdf/analyze.ts,
 * media/verify.ts; the known-media look-up opens no store that does not exist, engine/default-ports.ts).
 * A probe preloaded into the CLI's thread lists, at exit, the built-in and
 * package modules it loaded (sharp's own modules come from its bundle, dist/sharp-*.cjs, so only
 * the built-in ones they would load are seen).
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PDFDocument, PDFName, StandardFonts } from 'pdf-lib';
import sharp from 'sharp';
import { describe, expect, it } from 'vitest';
import { newHome, verity } from './run-cli.js';

const PROBE = `
const { isMainThread } = require('node:worker_threads');
if (isMainThread) process.once('exit', () => {
  const packages = Object.keys(require.cache).filter((f) => f.includes('/node_modules/'));
  require('node:fs').writeFileSync(process.env.PROBE_OUT, JSON.stringify({ builtins: process.moduleLoadList, packages }));
});
`;

async function pdf(withXmp: boolean): Promise<Uint8Array> {
  const doc = await PDFDocument.create();
  const font = await doc.embedFont(StandardFonts.TimesRoman);
  for (let p = 0; p < 3; p++)
    doc.addPage([612, 792]).drawText(`Page ${p + 1}: the supplier shall deliver the goods described in Schedule A within thirty days of the order.`, { x: 50, y: 700, size: 10, font });
  if (withXmp) {
    const xmp = `<?xpacket begin="" id="W5M0MpCehiHzreSzNTczkc9d"?><x:xmpmeta xmlns:x="adobe:ns:meta/"><rdf:RDF xmlns:rdf="http://www.w3.org/1999/02/22-rdf-syntax-ns#"><rdf:Description rdf:about="" xmlns:xmp="http://ns.adobe.com/xap/1.0/" xmp:CreateDate="2024-01-01T10:00:00Z" xmp:CreatorTool="Probe Writer"/></rdf:RDF></x:xmpmeta><?xpacket end="w"?>`;
    const stream = doc.context.stream(xmp, { Type: 'Metadata', Subtype: 'XML' });
    doc.catalog.set(PDFName.of('Metadata'), doc.context.register(stream));
  }
  return doc.save({ useObjectStreams: false });
}

interface Probed {
  result: { evidence: { source: string; finding: string }[]; authenticity?: string };
  builtins: string[];
  packages: string[];
}

async function probed(kind: 'document' | 'media', name: string, bytes: Uint8Array): Promise<Probed> {
  const dir = mkdtempSync(join(tmpdir(), 'verity-e2e-lazy-'));
  try {
    const file = join(dir, name);
    writeFileSync(file, bytes);
    writeFileSync(join(dir, 'probe.cjs'), PROBE);
    const out = join(dir, 'loaded.json');
    const r = await verity(['verify', kind, file, '--json'], { home: newHome(), cwd: dir, env: { NODE_OPTIONS: `--require ${join(dir, 'probe.cjs')}`, PROBE_OUT: out } });
    expect(r.code, r.stderr).toBe(0);
    return { result: JSON.parse(r.stdout), ...(JSON.parse(readFileSync(out, 'utf8')) as { builtins: string[]; packages: string[] }) };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

const run = async (withXmp: boolean): Promise<Probed> => probed('document', withXmp ? 'with-xmp.pdf' : 'plain.pdf', await pdf(withXmp));

const metadataFinding = (r: Probed): string => r.result.evidence.filter((e) => e.source === 'pdf_metadata').map((e) => e.finding).join('\n');

describe('a local file\'s verification loads what its analysis uses', () => {
  it('no child_process, dns, ipaddr.js or saxes for a PDF without XMP; saxes once a packet is there', async () => {
    const plain = await run(false);
    expect(metadataFinding(plain)).toContain('XMP packet absent');
    for (const m of ['NativeModule child_process', 'NativeModule dgram', 'NativeModule dns']) expect(plain.builtins).not.toContain(m);
    expect(plain.packages.filter((f) => /\/node_modules\/(ipaddr\.js|saxes)\//.test(f))).toEqual([]);

    // The probe sees what it should: the packet is read, through saxes, loaded for it.
    const withXmp = await run(true);
    expect(metadataFinding(withXmp)).toContain('XMP packet present');
    expect(metadataFinding(withXmp)).toContain('XMP CreateDate 2024-01-01T10:00:00.000Z');
    expect(withXmp.packages.some((f) => f.includes('/node_modules/saxes/'))).toBe(true);
  });

  it('no child_process or dgram for a photo: the video decoder, sharp\'s libc probe and colour parser load on use', async () => {
    const jpeg = await sharp({ create: { width: 320, height: 240, channels: 3, background: { r: 90, g: 120, b: 160 }, noise: { type: 'gaussian', mean: 128, sigma: 30 } } }).jpeg({ quality: 90 }).toBuffer();
    const photo = await probed('media', 'photo.jpg', jpeg);
    expect(photo.result.authenticity).toBeTruthy();
    // The probe saw the run: the file's digest loads crypto.
    expect(photo.builtins).toContain('NativeModule crypto');
    for (const m of ['NativeModule child_process', 'NativeModule dgram']) expect(photo.builtins).not.toContain(m);
    // A fresh home has no store: the known-media look-up finds nothing without loading SQLite.
    expect(photo.result.evidence.map((e) => e.source)).toContain('provenance.media_index');
    expect(photo.packages.filter((f) => f.includes('/node_modules/better-sqlite3/'))).toEqual([]);
  });
});
