/**
 * AUTOMATIC1111 "stealth PNG info" (the sd-webui-stealth-pnginfo extension and its ComfyUI fork):
 * generation parameters hidden in the least significant bits of the pixels, so they survive
 * services that strip PNG text chunks. Layout, as the extension writes it (read from its source,
 * reimplemented here):
 *
 * - one bit stream, pixels visited column by column (x outer, y inner: column-major);
 * - alpha mode: one bit per pixel, the alpha value's lowest bit; RGB mode: three bits per pixel,
 *   the lowest bits of R, G and B in that order;
 * - 15 bytes of signature, most significant bit first: `stealth_pnginfo` / `stealth_pngcomp`
 *   (alpha) or `stealth_rgbinfo` / `stealth_rgbcomp` (RGB); `…comp` means the payload is gzip;
 * - a 32-bit big-endian count of payload BITS, then the payload (UTF-8 text, usually the same
 *   `parameters` text A1111 writes to its tEXt chunk, sometimes a JSON object of chunks).
 *
 * Bounded: only PNGs (a lossy format destroys the bits) of at most 64 megapixels; only the first
 * columns are decoded to test the signature; payload ≤ 1 MiB, gunzipped text ≤ 1 MiB.
 */
import { loadSharp, MAX_PIXELS } from './decode.js';

export interface StealthInfo {
  mode: 'alpha' | 'rgb';
  compressed: boolean;
  text: string;
}

const SIGNATURES: Record<string, { mode: 'alpha' | 'rgb'; compressed: boolean }> = {
  stealth_pnginfo: { mode: 'alpha', compressed: false },
  stealth_pngcomp: { mode: 'alpha', compressed: true },
  stealth_rgbinfo: { mode: 'rgb', compressed: false },
  stealth_rgbcomp: { mode: 'rgb', compressed: true },
};
const SIG_BITS = 15 * 8;
const LEN_BITS = 32;
export const MAX_STEALTH_BYTES = 1 << 20;

/** Reads bits in the extension's order from RGBA pixels of the first `cols` columns (column-major). */
class BitStream {
  private pos = 0;
  constructor(
    private readonly px: Uint8Array,
    private readonly cols: number,
    private readonly height: number,
    private readonly mode: 'alpha' | 'rgb',
  ) {}
  get available(): number {
    return this.cols * this.height * (this.mode === 'alpha' ? 1 : 3) - this.pos;
  }
  bit(): number {
    const per = this.mode === 'alpha' ? 1 : 3;
    const pixel = Math.floor(this.pos / per);
    const channel = this.mode === 'alpha' ? 3 : this.pos % 3;
    this.pos++;
    const x = Math.floor(pixel / this.height);
    const y = pixel % this.height;
    return this.px[(y * this.cols + x) * 4 + channel]! & 1;
  }
  bytes(n: number): Buffer {
    const out = Buffer.alloc(n);
    for (let i = 0; i < n; i++) {
      let v = 0;
      for (let k = 0; k < 8; k++) v = (v << 1) | this.bit();
      out[i] = v;
    }
    return out;
  }
  uint32(): number {
    let v = 0;
    for (let k = 0; k < 32; k++) v = v * 2 + this.bit();
    return v;
  }
}

async function region(bytes: Buffer, width: number, height: number): Promise<Uint8Array> {
  const sharp = await loadSharp();
  // The stored values (ignoreIcc): an embedded colour profile would otherwise be applied first,
  // and converting from one that is not sRGB rewrites the low bits the payload lives in.
  const data = await sharp(bytes, { limitInputPixels: MAX_PIXELS, failOn: 'none', ignoreIcc: true })
    .timeout({ seconds: 10 })
    .extract({ left: 0, top: 0, width, height })
    .ensureAlpha(1)
    .raw()
    .toBuffer();
  return new Uint8Array(data.buffer, data.byteOffset, data.byteLength);
}

/**
 * The stealth parameters of a PNG, or null when there are none. `hasAlpha` comes from the header;
 * without alpha only the RGB variants are possible. Never throws for bad data: a broken payload
 * is simply not there.
 */
export async function readStealthPngInfo(bytes: Buffer, header: { width: number; height: number; format: string; hasAlpha: boolean }): Promise<StealthInfo | null> {
  const { width, height } = header;
  if (header.format !== 'png' || width * height > 64_000_000 || width * height < 50) return null;
  try {
    // The signature and length (152 bits) come first, down column 0: 152 pixels in alpha mode,
    // 51 in RGB mode (three bits a pixel), the only mode without alpha. When the image is that
    // tall, only the top of that column is decoded, and PNG decoding, being sequential, stops
    // there: an ordinary PNG costs a few rows (each a whole row of the file), not a second full
    // decode.
    const HEAD = SIG_BITS + LEN_BITS;
    const modes: Array<'alpha' | 'rgb'> = header.hasAlpha ? ['alpha', 'rgb'] : ['rgb'];
    const headPixels = header.hasAlpha ? HEAD : Math.ceil(HEAD / 3);
    const headCols = height >= headPixels ? 1 : Math.min(width, Math.ceil(headPixels / height) + 1);
    const headRows = height >= headPixels ? headPixels : height;
    const head = await region(bytes, headCols, headRows);
    for (const mode of modes) {
      const h = new BitStream(head, headCols, headRows, mode);
      if (h.available < HEAD) continue;
      const sig = SIGNATURES[h.bytes(15).toString('latin1')];
      if (!sig || sig.mode !== mode) continue;
      const bits = h.uint32();
      if (bits === 0 || bits % 8 !== 0 || bits / 8 > MAX_STEALTH_BYTES) return null;
      const per = mode === 'alpha' ? 1 : 3;
      const needCols = Math.ceil((HEAD + bits) / per / height);
      if (needCols > width) return null;
      const s = new BitStream(await region(bytes, needCols, height), needCols, height, mode);
      s.bytes(15);
      s.uint32();
      let payload = s.bytes(bits / 8);
      // zlib loads only for a compressed payload: at module load it sat on every image's path to
      // the pixel decode (~5–15 ms), for the rare file that carries one.
      if (sig.compressed) payload = (await import('node:zlib')).gunzipSync(payload, { maxOutputLength: MAX_STEALTH_BYTES });
      const text = payload.toString('utf8').replace(/\0+$/, '');
      return text.trim() ? { mode, compressed: sig.compressed, text } : null;
    }
  } catch {
    return null;
  }
  return null;
}
