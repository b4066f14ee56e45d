/**
 * The lines of a streamed NDJSON batch with each file's base64 decoded to disk as it arrives
 * (issue 31). A line holding a 12 MP photo is ~5 MB of base64: kept whole, it became a Buffer, a
 * string, JSON.parse's copy of the string and the decoded bytes (~20 MB a line, left to the GC),
 * which made the upload path alone peak at 265 MB for a 1.2 GB batch. Here the value of a
 * top-level `"file"` or `"content"` key is followed byte by byte: once longer than `spillAt`
 * (what such a value may be without being a file, see fileLines), its base64 is checked and
 * decoded piece by piece into a spill file, and the line keeps a 4-character stand-in instead
 * ("AAAA", valid base64; "!" when the value was not base64, so the schema names the field as it
 * would have). Everything else of the line (its structure, the short fields) is kept and parsed
 * as before. The line's bound counts every byte, spilled or not.
 *
 * Base64 in a JSON string: the standard alphabet, padding at the end, and the escapes `\/`, `\r`,
 * `\n` (MIME line breaks), as the schema's check (api/requests.ts) reads it after JSON.parse.
 */
import { once } from 'node:events';
import { finished } from 'node:stream/promises';
import type { WriteStream } from 'node:fs';

/** Where a spilled value's bytes go (a file of the batch's staging folder, spool.ts). */
export interface SpillSink {
  /** A new file to write decoded bytes to. */
  open(): { path: string; stream: WriteStream };
}

/** A value taken out of its line: the key it had, the decoded bytes' file, and whether it was base64. */
export interface Spilled {
  key: string;
  path: string;
  bytes: number;
  base64: boolean;
  /** Settles when the file is written and closed (rejects on a write error: a full disk). */
  done: Promise<void>;
}

export interface FileLine {
  /** The line without its newline, a spilled value replaced by its stand-in. */
  text: Buffer;
  spilled?: Spilled;
}

const Q = 0x22; // "
const BS = 0x5c; // \
const NL = 0x0a;
/**
 * Decoded bytes are gathered in buffers of this size and written one at a time. The buffers are
 * reused, shared by every upload of the process (SPARE_OUTPUTS kept): a fresh Buffer for every
 * piece (as before: 48 KB a 64 KB network chunk) stayed referenced by the file's write queue
 * across young-generation collections, so V8 moved it to the old generation, where it was freed
 * only by a full collection, which V8 starts after ~64 MB of such external memory: serve's malloc
 * heap grew by as much during an upload (measured: docs/server.md "Batches").
 */
const OUT_BYTES = 1 << 20;
const SPARE_OUTPUTS = 4;
const spareOutputs: Buffer[] = [];

/** Decodes base64 arriving in pieces, and checks it as the schema would (alphabet, padding last). */
class Base64Spill {
  /** The last 0–3 characters, not yet a whole group of four. */
  private carry = '';
  private pads = 0;
  private out: Buffer | undefined;
  private used = 0;
  ok = true;
  bytes = 0;
  constructor(private readonly stream: WriteStream) {}

  /** Base64 characters (no escapes, no quotes). */
  feed(s: string): void {
    if (!this.ok || s.length === 0) return;
    const eq = s.indexOf('=');
    const body = eq >= 0 ? s.slice(0, eq) : s;
    if (this.pads > 0 && body.length > 0) return this.bad();
    // Node's decoder takes the URL-safe alphabet too; any other character it skips, which
    // decode() sees as fewer bytes than the characters stand for (a regex here cost 6 ms a MB).
    if (body.includes('-') || body.includes('_')) return this.bad();
    if (eq >= 0) {
      const tail = s.slice(eq);
      if (/[^=]/.test(tail)) return this.bad();
      this.pads += tail.length;
      if (this.pads > 2) return this.bad();
    }
    let from = 0;
    if (this.carry) {
      // The group the last piece left open is completed first (a string of four characters).
      from = Math.min(4 - this.carry.length, body.length);
      this.carry += body.slice(0, from);
      if (this.carry.length < 4) return;
      this.decode(this.carry);
      this.carry = '';
    }
    const cut = body.length - ((body.length - from) % 4);
    // Slices of the piece, not copies (V8 keeps a slice as a view of its string).
    if (cut > from) this.decode(from === 0 && cut === body.length ? body : body.slice(from, cut));
    this.carry = body.slice(cut);
  }

  bad(): void {
    this.ok = false;
    this.carry = '';
  }

  end(): void {
    // The last few characters: a lone one that the decoder skips would not show in the length.
    if (this.ok && /[^A-Za-z0-9+/]/.test(this.carry)) this.bad();
    if (this.ok && this.carry) this.decode(this.carry);
    this.carry = '';
    if (this.ok) this.flush();
    this.release(this.out);
    this.out = undefined;
    this.stream.end();
  }

  /** Decodes whole groups (or the last, shorter one) into the output buffer, writing it when full. */
  private decode(s: string): void {
    // Whole groups of four characters, at most a buffer of bytes.
    const per = Math.floor(OUT_BYTES / 3) * 4;
    for (let at = 0; at < s.length && this.ok; at += per) {
      const part = at === 0 && s.length <= per ? s : s.slice(at, at + per);
      const n = Math.floor((part.length * 3) / 4);
      if (this.out && this.used + n > this.out.length) this.flush();
      this.out ??= spareOutputs.pop() ?? Buffer.allocUnsafeSlow(OUT_BYTES);
      if (this.out.write(part, this.used, n, 'base64') !== n) return this.bad();
      this.used += n;
      this.bytes += n;
    }
  }

  /** The output buffer goes to the file; it is reused once written. */
  private flush(): void {
    const b = this.out;
    if (!b || this.used === 0) return;
    this.out = undefined;
    this.stream.write(b.subarray(0, this.used), () => this.release(b));
    this.used = 0;
  }

  private release(b: Buffer | undefined): void {
    if (b && spareOutputs.length < SPARE_OUTPUTS) spareOutputs.push(b);
  }
}

interface Spill {
  decoder: Base64Spill;
  path: string;
  stream: WriteStream;
  key: string;
  done: Promise<void>;
  /** The last byte fed was a backslash: the next one is an escape's letter. */
  pendingEscape: boolean;
}

interface State {
  depth: number;
  inString: boolean;
  escape: boolean;
  /** At depth 1 of an object: the next string is a key (after `{` or `,`), not a value. */
  expectKey: boolean;
  /** The last key at depth 1 (as bytes; a long or escaped key never matches a spillable one). */
  key: string | undefined;
  keyBytes: number[] | undefined;
  /** The string being read is the value of a spillable key; its content starts at `start` of the kept bytes. */
  candidate: string | undefined;
  start: number;
  spill?: Spill;
}

const fresh = (): State => ({ depth: 0, inString: false, escape: false, expectKey: false, key: undefined, keyBytes: undefined, candidate: undefined, start: 0 });

/** Bytes of a spilling string (no quote or newline in them); an escape may be cut between pieces. */
function feedSpill(sp: Spill, b: Buffer): void {
  let from = 0;
  while (from < b.length) {
    if (sp.pendingEscape) {
      sp.pendingEscape = false;
      const c = b[from]!;
      if (c === 0x2f) sp.decoder.feed('/');
      else if (c !== 0x72 && c !== 0x6e) sp.decoder.bad(); // only \/ \r \n stand in base64
      from++;
      continue;
    }
    const bs = b.indexOf(BS, from);
    const end = bs < 0 ? b.length : bs;
    sp.decoder.feed(b.toString('latin1', from, end));
    if (bs < 0) break;
    sp.pendingEscape = true;
    from = bs + 1;
  }
}

/** The first of a quote, backslash or newline in `b` from `i`; b.length when none. */
function nextStop(b: Buffer, i: number): number {
  let end = b.length;
  for (const c of [Q, BS, NL]) {
    const at = b.indexOf(c, i);
    if (at >= 0 && at < end) end = at;
  }
  return end;
}

/**
 * The lines of `body`, each at most `max` bytes (all its bytes, spilled ones included; the newline
 * not counted), with string values of the top-level keys in `spillAt` longer than their threshold
 * spilled through `sink`. `onTooLong` makes the error for a line past `max`.
 */
export async function* fileLines(
  body: AsyncIterable<Buffer>,
  o: { max: number; spillAt: Record<string, number>; sink: SpillSink; onTooLong: () => Error },
): AsyncGenerator<FileLine> {
  let kept: Buffer[] = [];
  let keptLen = 0;
  let lineLen = 0;
  let st = fresh();
  let spilled: Spilled | undefined;
  const open: WriteStream[] = [];

  const keep = (b: Buffer): void => {
    if (b.length === 0) return;
    kept.push(b);
    keptLen += b.length;
  };
  const keptBytes = (): Buffer => {
    if (kept.length !== 1) kept = [Buffer.concat(kept, keptLen)];
    return kept[0]!;
  };
  /** The candidate grew past its threshold: its content so far goes to a spill file, the rest follows. */
  const startSpill = (): void => {
    const all = keptBytes();
    const { path, stream } = o.sink.open();
    open.push(stream);
    const done = finished(stream);
    done.catch(() => undefined); // (awaited by the caller; an error before then is not unhandled)
    st.spill = { decoder: new Base64Spill(stream), path, stream, key: st.candidate!, done, pendingEscape: false };
    feedSpill(st.spill, all.subarray(st.start));
    st.escape = false;
    kept = [all.subarray(0, st.start)];
    keptLen = st.start;
  };
  const endSpill = (): void => {
    const sp = st.spill!;
    if (sp.pendingEscape) sp.decoder.bad();
    sp.decoder.end();
    spilled = { key: sp.key, path: sp.path, bytes: sp.decoder.bytes, base64: sp.decoder.ok, done: sp.done };
    keep(Buffer.from(sp.decoder.ok ? 'AAAA' : '!', 'latin1'));
    st.spill = undefined;
    st.candidate = undefined;
  };
  const tooLong = (): void => {
    if (lineLen > o.max) throw o.onTooLong();
  };

  try {
    for await (const chunk of body) {
      let i = 0;
      let from = 0; // the chunk's bytes from here on are not kept yet
      while (i < chunk.length) {
        const sp = st.spill;
        if (sp) {
          if (sp.pendingEscape) {
            lineLen++;
            tooLong();
            if (chunk[i] === NL) {
              endSpill(); // a line break inside a string: the line is not JSON (JSON.parse says so)
              from = i;
              continue;
            }
            feedSpill(sp, chunk.subarray(i, i + 1));
            from = ++i;
            continue;
          }
          const end = nextStop(chunk, i);
          lineLen += end - i;
          tooLong();
          feedSpill(sp, chunk.subarray(i, end));
          from = i = end;
          if (end === chunk.length) break;
          const c = chunk[end]!;
          if (c === BS) {
            sp.pendingEscape = true;
            lineLen++;
            from = ++i;
          } else if (c === Q) {
            endSpill();
            st.inString = false;
            // The closing quote is kept with the stand-in (the loop below keeps it).
            lineLen++;
            i++;
          } else {
            sp.decoder.bad();
            endSpill();
          }
          continue;
        }
        const c = chunk[i]!;
        if (c === NL) {
          keep(chunk.subarray(from, i));
          yield { text: keptBytes().subarray(0, keptLen), ...(spilled ? { spilled } : {}) };
          kept = [];
          keptLen = lineLen = 0;
          spilled = undefined;
          st = fresh();
          from = ++i;
          continue;
        }
        lineLen++;
        tooLong();
        i++;
        if (st.inString) {
          if (st.escape) st.escape = false;
          else if (c === BS) st.escape = true;
          else if (c === Q) {
            st.inString = false;
            st.candidate = undefined;
            if (st.keyBytes) st.key = st.keyBytes.length <= 16 ? String.fromCharCode(...st.keyBytes) : undefined;
            st.keyBytes = undefined;
            continue;
          }
          if (st.keyBytes && st.keyBytes.length <= 16) st.keyBytes.push(c);
          if (st.candidate !== undefined && keptLen + (i - from) - st.start > o.spillAt[st.candidate]!) {
            keep(chunk.subarray(from, i));
            from = i;
            startSpill();
          }
          continue;
        }
        if (c === Q) {
          st.inString = true;
          if (st.depth === 1 && st.expectKey) st.keyBytes = [];
          else if (st.depth === 1 && st.key !== undefined && Object.hasOwn(o.spillAt, st.key)) {
            st.candidate = st.key;
            st.start = keptLen + (i - from);
          }
        } else if (c === 0x7b || c === 0x5b) {
          st.depth++;
          st.expectKey = c === 0x7b && st.depth === 1;
        } else if (c === 0x7d || c === 0x5d) st.depth--;
        else if (c === 0x2c) st.expectKey = st.depth === 1;
        else if (c === 0x3a && st.depth === 1) st.expectKey = false;
      }
      keep(chunk.subarray(from, chunk.length));
      // A spill file writes behind: wait while it has more than its buffer's worth pending.
      const s = st.spill?.stream;
      if (s?.writableNeedDrain) await once(s, 'drain');
    }
    // The body ended inside a string: the line is cut off (JSON.parse says so).
    if (st.spill) endSpill();
    if (keptLen || lineLen) yield { text: keptBytes().subarray(0, keptLen), ...(spilled ? { spilled } : {}) };
  } finally {
    // Streams of spills never finished (an error, the caller stopped reading) are closed.
    for (const s of open) if (!s.writableEnded) s.end();
  }
}
