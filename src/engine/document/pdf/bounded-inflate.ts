/**
 * Flate decoding that stops when a budget says so. zlib itself stops producing output at
 * `maxOutputLength` (it checks as each chunk arrives), so a bomb costs at most the cap in memory
 * and the time to produce it — never its full inflated size.
 */
import { inflateSync, constants as zc } from 'node:zlib';
import type { InflateBudget } from '../budget.js';

export type Inflated = { data: Buffer; capped: false } | { data: undefined; capped: true } | { data: undefined; capped: false };

/** Inflates `raw` within what `budget` has left; `capped` when the cap cut it off, data undefined when it is not valid Flate data. */
export function inflateBounded(raw: Buffer, budget: InflateBudget): Inflated {
  const cap = budget.nextCap();
  const perStreamHit = cap === budget.limits.perStreamBytes;
  if (cap === 0) {
    budget.note(0, true, false);
    return { data: undefined, capped: true };
  }
  try {
    // Z_SYNC_FLUSH: truncated streams (common in damaged files) still yield what they hold.
    const data = inflateSync(raw, { finishFlush: zc.Z_SYNC_FLUSH, maxOutputLength: cap });
    budget.note(data.length, false, false);
    return { data, capped: false };
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ERR_BUFFER_TOO_LARGE' || err instanceof RangeError) {
      budget.note(cap, true, perStreamHit);
      return { data: undefined, capped: true };
    }
    return { data: undefined, capped: false };
  }
}

/**
 * How many bytes an LZWDecode stream (§7.4.4) decodes to, counted without producing them: only
 * the length of each dictionary entry is kept. LZW expands up to ~2,700:1 once its 4,096-entry
 * table is full, so it is measured like Flate. Stops counting at `cap`.
 */
export function lzwDecodedLength(raw: Buffer, cap: number, earlyChange = 1): number {
  const lengths = new Uint32Array(4096);
  let next = 258;
  let width = 9;
  let prev = -1;
  let total = 0;
  let bits = 0;
  let acc = 0;
  for (let i = 0; i < raw.length && total < cap; i++) {
    acc = ((acc << 8) | raw[i]!) >>> 0;
    bits += 8;
    while (bits >= width && total < cap) {
      const code = (acc >>> (bits - width)) & ((1 << width) - 1);
      bits -= width;
      acc &= (1 << bits) - 1;
      if (code === 256) {
        next = 258;
        width = 9;
        prev = -1;
        continue;
      }
      if (code === 257) return total;
      let len: number;
      if (code < 256) len = 1;
      else if (code < next && lengths[code]) len = lengths[code]!;
      else if (code === next && prev >= 0) len = (prev < 256 ? 1 : lengths[prev]!) + 1;
      else return total; // invalid code: pdf.js stops there too
      total += len;
      if (prev >= 0 && next < 4096) lengths[next++] = (prev < 256 ? 1 : lengths[prev]!) + 1;
      prev = code;
      if (next + earlyChange >= 1 << width && width < 12) width++;
    }
  }
  return total;
}

/** How many bytes a RunLengthDecode stream (§7.4.5, up to 128 bytes from 2) decodes to; stops at `cap`. */
export function runLengthDecodedLength(raw: Buffer, cap: number): number {
  let total = 0;
  let i = 0;
  while (i < raw.length && total < cap) {
    const n = raw[i]!;
    if (n === 128) break;
    if (n < 128) {
      total += n + 1;
      i += n + 2;
    } else {
      total += 257 - n;
      i += 2;
    }
  }
  return total;
}

/** ASCIIHexDecode (§7.4.2): it only shrinks its input. */
export function asciiHexDecode(raw: Buffer): Buffer {
  let hex = raw.toString('latin1');
  const end = hex.indexOf('>');
  if (end >= 0) hex = hex.slice(0, end);
  hex = hex.replace(/[^0-9A-Fa-f]/g, '');
  if (hex.length % 2) hex += '0';
  return Buffer.from(hex, 'hex');
}

/** ASCII85Decode (§7.4.3): 5 characters → 4 bytes, `z` → 4 zero bytes; it only shrinks (by 4:5, or 4:1 with `z`). */
export function ascii85Decode(raw: Buffer): Buffer {
  const out: number[] = [];
  let group: number[] = [];
  for (let i = 0; i < raw.length; i++) {
    const c = raw[i]!;
    if (c === 0x7e /* ~ */) break;
    if (c <= 0x20) continue;
    if (c === 0x7a /* z */ && group.length === 0) {
      out.push(0, 0, 0, 0);
      continue;
    }
    if (c < 0x21 || c > 0x75) continue;
    group.push(c - 33);
    if (group.length === 5) {
      let v = 0;
      for (const d of group) v = v * 85 + d;
      out.push((v >>> 24) & 0xff, (v >>> 16) & 0xff, (v >>> 8) & 0xff, v & 0xff);
      group = [];
    }
  }
  if (group.length > 1) {
    const n = group.length;
    while (group.length < 5) group.push(84);
    let v = 0;
    for (const d of group) v = v * 85 + d;
    for (let k = 0; k < n - 1; k++) out.push((v >>> (24 - 8 * k)) & 0xff);
  }
  return Buffer.from(out);
}

export type MeasuredStream = { raw: Buffer; filters: string[] };

/**
 * Measures one stream's filter chain against the budget: ASCII filters are decoded (they only
 * shrink), Flate is inflated within the cap (its output feeds the next filter), and the last
 * expanding filter (Flate, LZW, RunLength) is measured. Returns false when the chain holds a
 * filter that cannot be measured here (LZW or RunLength before another filter; image codecs).
 */
function measureChain(raw: Buffer, filters: string[], budget: InflateBudget): boolean {
  let data = raw;
  for (let i = 0; i < filters.length; i++) {
    const f = filters[i]!;
    const last = i === filters.length - 1;
    if (f === 'ASCIIHexDecode' || f === 'AHx') data = asciiHexDecode(data);
    else if (f === 'ASCII85Decode' || f === 'A85') data = ascii85Decode(data);
    else if (f === 'FlateDecode' || f === 'Fl') {
      const r = inflateBounded(data, budget);
      if (!r.data) return true; // capped (budget says so) or not Flate data (pdf.js fails too)
      data = r.data;
    } else if ((f === 'LZWDecode' || f === 'LZW' || f === 'RunLengthDecode' || f === 'RL') && last) {
      const cap = budget.nextCap();
      const n = f.startsWith('L') ? lzwDecodedLength(data, cap + 1) : runLengthDecodedLength(data, cap + 1);
      budget.note(Math.min(n, cap), n > cap, cap === budget.limits.perStreamBytes);
    } else return false;
  }
  return true;
}

/**
 * Decodes (and throws away) every stream pdf.js would decode to read text and metadata — all but
 * images, which text extraction never decodes — until the budget runs out: Flate by zlib with its
 * output cap, LZW and RunLength by counting, ASCII filters decoded before them. pdf.js has no
 * output limit of its own, so a document that would go past a cap is not handed to it at all.
 * Returns the cap that was hit (or undefined) and how many streams could not be measured.
 */
export function exceedsInflateCaps(streams: Iterable<MeasuredStream>, budget: InflateBudget): { exceeded: string | undefined; unmeasured: number } {
  let unmeasured = 0;
  if (budget.exceeded) return { exceeded: budget.exceeded, unmeasured };
  for (const st of streams) {
    if (st.filters.length && !measureChain(st.raw, st.filters, budget)) unmeasured++;
    if (budget.exceeded) return { exceeded: budget.exceeded, unmeasured };
  }
  return { exceeded: undefined, unmeasured };
}
