/**
 * Builders for the difference-analysis and bounded-work tests: Flate bombs made without
 * compressing gigabytes, and incremental updates written by hand.
 */
import { deflateRawSync, constants as zc } from 'node:zlib';

/**
 * A zlib stream that inflates to `chunks` MiB of zeros, built from one compressed MiB repeated:
 * each piece ends on a sync flush, so pieces can be concatenated; a final empty block and the
 * Adler-32 of n zero bytes ((n mod 65521) << 16 | 1) close it. ~1 KB of output per MiB.
 */
export function zeroBomb(chunks: number): Buffer {
  const piece = deflateRawSync(Buffer.alloc(1024 * 1024), { finishFlush: zc.Z_SYNC_FLUSH });
  const n = chunks * 1024 * 1024;
  const adler = Buffer.alloc(4);
  adler.writeUInt32BE((((n % 65521) << 16) | 1) >>> 0);
  const parts: Buffer[] = [Buffer.from([0x78, 0x9c])];
  for (let i = 0; i < chunks; i++) parts.push(piece);
  parts.push(Buffer.from([0x03, 0x00]), adler);
  return Buffer.concat(parts);
}

/** A one-page PDF whose page content is `streams` Flate streams of `mibEach` MiB of zeros each. */
export function flateBombPdf(streams: number, mibEach: number): Buffer {
  const bomb = zeroBomb(mibEach);
  const parts: Buffer[] = [];
  const offsets: number[] = [];
  let size = 0;
  const push = (b: Buffer | string): void => {
    const buf = typeof b === 'string' ? Buffer.from(b, 'latin1') : b;
    parts.push(buf);
    size += buf.length;
  };
  const obj = (num: number, body: string, stream?: Buffer): void => {
    offsets[num] = size;
    push(`${num} 0 obj\n${body}\n`);
    if (stream) {
      push('stream\n');
      push(stream);
      push('\nendstream\n');
    }
    push('endobj\n');
  };
  push('%PDF-1.7\n%\xe2\xe3\xcf\xd3\n');
  const contents = Array.from({ length: streams }, (_, i) => `${4 + i} 0 R`).join(' ');
  obj(1, '<< /Type /Catalog /Pages 2 0 R >>');
  obj(2, '<< /Type /Pages /Kids [3 0 R] /Count 1 >>');
  obj(3, `<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Contents [${contents}] >>`);
  for (let i = 0; i < streams; i++) obj(4 + i, `<< /Length ${bomb.length} /Filter /FlateDecode >>`, bomb);
  const xrefAt = size;
  const count = 4 + streams;
  let xref = `xref\n0 ${count}\n0000000000 65535 f \n`;
  for (let i = 1; i < count; i++) xref += `${String(offsets[i]).padStart(10, '0')} 00000 n \n`;
  push(`${xref}trailer\n<< /Size ${count} /Root 1 0 R >>\nstartxref\n${xrefAt}\n%%EOF\n`);
  return Buffer.concat(parts);
}
