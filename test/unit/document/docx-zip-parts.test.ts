import JSZip from 'jszip';
import { describe, expect, it } from 'vitest';
import { inflatePart } from '../../../src/engine/document/docx/zip-parts.js';

async function reopen(files: Record<string, { data: string | Buffer; compression: 'STORE' | 'DEFLATE' }>): Promise<JSZip> {
  const zip = new JSZip();
  for (const [name, f] of Object.entries(files)) zip.file(name, f.data, { compression: f.compression });
  return JSZip.loadAsync(await zip.generateAsync({ type: 'nodebuffer' }), { checkCRC32: false });
}

describe('inflatePart (zlib in place of jszip for package parts)', () => {
  it('gives the bytes jszip gives, deflated or stored, a byte-order mark and multi-byte text included', async () => {
    const text = `\uFEFF<w:document>${'Ünïcödé – “quotes” 𝔘 '.repeat(5000)}</w:document>`;
    const zip = await reopen({ 'a.xml': { data: text, compression: 'DEFLATE' }, 'b.xml': { data: text, compression: 'STORE' } });
    for (const name of ['a.xml', 'b.xml']) {
      const raw = inflatePart(zip.file(name)!, 1 << 20);
      expect(raw).toBeInstanceOf(Buffer);
      expect((raw as Buffer).toString('utf8')).toBe(await zip.file(name)!.async('string'));
    }
  });

  it('stops a part that inflates past the cap (zlib bounds the output)', async () => {
    const zip = await reopen({ 'big.xml': { data: Buffer.alloc(4 << 20), compression: 'DEFLATE' } });
    expect(inflatePart(zip.file('big.xml')!, 1 << 20)).toBe('too-large');
  });

  it('leaves a corrupt stream to jszip (its error, as before)', async () => {
    const zip = await reopen({ 'a.xml': { data: 'x'.repeat(10000), compression: 'DEFLATE' } });
    const entry = (zip.file('a.xml') as unknown as { _data: { compressedContent: Uint8Array } })._data;
    entry.compressedContent = Buffer.from([0xff, 0xff, 0xff, 0xff]);
    expect(inflatePart(zip.file('a.xml')!, 1 << 20)).toBeUndefined();
    await expect(zip.file('a.xml')!.async('string')).rejects.toThrow();
  });
});
