/**
 * ISO base media file format boxes (ISO/IEC 14496-12: size, type, optional 64-bit size), walked
 * without copying: shared by the MP4/MOV reader (video.ts) and the HEIF item list (heif-items.ts).
 * A module of its own so that the light early-decode bundle (luma-decode.ts) takes only this.
 */
export interface Box {
  type: string;
  start: number;
  end: number;
  /** Payload offset (after size/type/largesize). */
  body: number;
}

/** The boxes between `start` and `end`, as far as they are well formed. */
export function* boxes(b: Buffer, start: number, end: number): Generator<Box> {
  let p = start;
  while (p + 8 <= end) {
    let size = b.readUInt32BE(p);
    const type = b.toString('latin1', p + 4, p + 8);
    let body = p + 8;
    if (size === 1) {
      if (p + 16 > end) return;
      const big = b.readBigUInt64BE(p + 8);
      if (big > BigInt(end - p)) return;
      size = Number(big);
      body = p + 16;
    } else if (size === 0) size = end - p;
    if (size < body - p || p + size > end) return;
    yield { type, start: p, end: p + size, body };
    p += size;
  }
}
