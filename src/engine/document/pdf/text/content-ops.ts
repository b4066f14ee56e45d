/**
 * A content stream read into operators and operands the way pdf.js 5.4.296 reads it for text
 * extraction (its `Lexer` with the operator table as known commands, `Parser`, and
 * `EvaluatorPreprocessor.read`'s operand-count checks), for well-formed streams only: wherever
 * pdf.js would warn, repair or throw (a malformed number, an unknown operator whose operands it
 * would carry over to the next one, a wrong operand count, an inline image, a stray `)`), the
 * stream is not eligible and pdf.js reads it instead.
 */
import { ineligible } from './ineligible.js';

export type Operand = number | boolean | null | string | OpName | Operand[] | OpDict;
export interface OpName {
  name: string;
}
export interface OpDict {
  dict: Map<string, Operand>;
}
export interface Operation {
  op: string;
  args: Operand[];
}

/** Operand counts of pdf.js's operator table; `true` = variable (0…33), else exact. */
const OPERATORS: Record<string, number | true> = {
  w: 1, J: 1, j: 1, M: 1, d: 2, ri: 1, i: 1, gs: 1, q: 0, Q: 0, cm: 6,
  m: 2, l: 2, c: 6, v: 4, y: 4, h: 0, re: 4, S: 0, s: 0, f: 0, F: 0, 'f*': 0, B: 0, 'B*': 0, b: 0, 'b*': 0, n: 0, W: 0, 'W*': 0,
  BT: 0, ET: 0, Tc: 1, Tw: 1, Tz: 1, TL: 1, Tf: 2, Tr: 1, Ts: 1, Td: 2, TD: 2, Tm: 6, 'T*': 0, Tj: 1, TJ: 1, "'": 1, '"': 3,
  d0: 2, d1: 6, CS: 1, cs: 1, SC: true, SCN: true, sc: true, scn: true, G: 1, g: 1, RG: 3, rg: 3, K: 4, k: 4, sh: 1,
  BI: 0, ID: 0, EI: 1, Do: 1, MP: 1, DP: 2, BMC: 1, BDC: 2, EMC: 0, BX: 0, EX: 0,
};
/** Prefixes pdf.js's lexer also knows (its table lists them so that longer commands are read whole). */
const KNOWN = new Set([...Object.keys(OPERATORS), 'BM', 'BD', 'true', 'fa', 'fal', 'fals', 'false', 'nu', 'nul', 'null']);
const INTERNED = new Map([...KNOWN].map((k) => [k, k]));

// Byte classes as pdf.js's `specialChars`: 1 white-space, 2 delimiter.
const SPECIAL = new Uint8Array(256);
for (const c of [0x00, 0x09, 0x0a, 0x0c, 0x0d, 0x20]) SPECIAL[c] = 1;
for (const c of '()<>[]{}/%') SPECIAL[c.charCodeAt(0)] = 2;

/** Hex digit values; 255 for anything else. */
const HEX = new Uint8Array(256).fill(255);
for (let i = 0; i < 10; i++) HEX[0x30 + i] = i;
for (let i = 0; i < 6; i++) HEX[0x41 + i] = HEX[0x61 + i] = 10 + i;

/** The hex-string fast path's output (4,096 bytes: the 8,192 hex digits it takes at most). */
const HEX_SCRATCH = Buffer.allocUnsafe(4096);

const MAX_DEPTH = 16;
const MAX_STRING = 1 << 20;

interface Limits {
  maxOps: number;
}

/** Raw tokens: operands, and commands as `{ cmd }`. */
export interface Cmd {
  cmd: string;
}

/** Tokens of content streams and CMaps. Commands are `{ cmd }` (exported for the CMap reader). */
export class ContentLexer {
  pos = 0;
  constructor(
    private readonly b: Uint8Array,
    /** Content streams: pdf.js reads commands against its operator table; CMaps: whole words. */
    private readonly knownCommands = true,
  ) {}

  /** The next token, or undefined at the end. */
  next(): Operand | Cmd | undefined {
    const b = this.b;
    let p = this.pos;
    for (;;) {
      if (p >= b.length) {
        this.pos = p;
        return undefined;
      }
      const c = b[p]!;
      if (c === 0x25) {
        while (p < b.length && b[p] !== 0x0a && b[p] !== 0x0d) p++;
        continue;
      }
      if (SPECIAL[c] === 1) {
        p++;
        continue;
      }
      break;
    }
    this.pos = p;
    const c = b[p]!;
    if ((c >= 0x30 && c <= 0x39) || c === 0x2b || c === 0x2d || c === 0x2e) return this.number();
    if (c === 0x28) return this.literal();
    if (c === 0x2f) return this.name();
    if (c === 0x5b || c === 0x5d || c === 0x7b || c === 0x7d) {
      this.pos++;
      return { cmd: String.fromCharCode(c) };
    }
    if (c === 0x3c) {
      if (b[p + 1] === 0x3c) {
        this.pos += 2;
        return { cmd: '<<' };
      }
      return this.hex();
    }
    if (c === 0x3e) {
      if (b[p + 1] === 0x3e) {
        this.pos += 2;
        return { cmd: '>>' };
      }
      ineligible('content: lexing');
    }
    if (c === 0x29) ineligible('content: lexing');
    if (c < 0x20 || c > 0x7f) ineligible('content: lexing');
    // A command, read as pdf.js reads it: stop where a known command would stop being one. The
    // word is sliced once and matched against the table's own strings (interned: the operator
    // switch downstream then compares pointers, not characters).
    let end = p + 1;
    while (end < b.length && !SPECIAL[b[end]!]) end++;
    if (end - p > 128) ineligible('content: lexing');
    // Operators are one to three characters: made from their codes (a subarray and a spread per
    // operator cost more, cold, than the rest of the word's reading).
    const n = end - p;
    const run = n === 1 ? String.fromCharCode(c) : n === 2 ? String.fromCharCode(c, b[p + 1]!) : n === 3 ? String.fromCharCode(c, b[p + 1]!, b[p + 2]!) : Buffer.from(b.buffer, b.byteOffset + p, n).toString('latin1');
    let len = 1;
    let known = this.knownCommands && KNOWN.has(run.slice(0, 1));
    while (len < run.length) {
      if (known && !KNOWN.has(run.slice(0, len + 1))) break;
      len++;
      known = this.knownCommands && KNOWN.has(run.slice(0, len));
    }
    const word = len === run.length ? run : run.slice(0, len);
    this.pos = p + len;
    const str = INTERNED.get(word) ?? word;
    if (str === 'true') return true;
    if (str === 'false') return false;
    if (str === 'null') return null;
    return { cmd: str };
  }

  /**
   * Only plain decimals (`-12`, `3.5`, `.5`, `5.`) followed by a delimiter or white-space; anything
   * pdf.js would repair (`--1`, `1-2`, `1.2.3`, `12Tf`) or read as an exponent (`1e5`) is not
   * eligible. The value is computed as pdf.js's `getNumber` computes it, digit by digit in floating
   * point (integer part × 10 + digit, then ÷ a power of ten that also grows by × 10 per decimal),
   * so long decimals such as `21.599999999999998` round exactly as there.
   */
  private number(): number {
    const b = this.b;
    let p = this.pos;
    let sign = 1;
    if (b[p] === 0x2d) {
      sign = -1;
      p++;
    } else if (b[p] === 0x2b) p++;
    let value = 0;
    let digits = 0;
    let divideBy = 0;
    if (b[p] === 0x2e) {
      divideBy = 1;
      p++;
    }
    while (p < b.length) {
      const c = b[p]!;
      if (c >= 0x30 && c <= 0x39) {
        value = value * 10 + (c - 0x30);
        digits++;
        if (divideBy !== 0) divideBy *= 10;
        p++;
      } else if (c === 0x2e && divideBy === 0) {
        divideBy = 1;
        p++;
      } else break;
    }
    if (digits === 0 || digits > 64) ineligible('content: number');
    if (p < b.length && !SPECIAL[b[p]!]) ineligible('content: number');
    this.pos = p;
    if (divideBy !== 0) value /= divideBy;
    return sign * value;
  }

  private literal(): string {
    const b = this.b;
    // Fast path: no escapes and no nested parentheses up to the closing ')'.
    const close = b.indexOf(0x29, this.pos + 1);
    if (close > 0 && close - this.pos - 1 <= MAX_STRING) {
      let plain = true;
      for (let q = this.pos + 1; q < close; q++) {
        const c = b[q]!;
        if (c === 0x5c || c === 0x28) {
          plain = false;
          break;
        }
      }
      if (plain) {
        const s = Buffer.from(b.buffer, b.byteOffset + this.pos + 1, close - this.pos - 1).toString('latin1');
        this.pos = close + 1;
        return s;
      }
    }
    let p = this.pos + 1;
    let depth = 1;
    const out: number[] = [];
    for (;;) {
      if (p >= b.length) ineligible('content: unterminated string');
      const c = b[p]!;
      if (c === 0x28) {
        depth++;
        out.push(c);
        p++;
      } else if (c === 0x29) {
        if (--depth === 0) {
          p++;
          break;
        }
        out.push(c);
        p++;
      } else if (c === 0x5c) {
        const n = b[p + 1];
        if (n === undefined) ineligible('content: unterminated string');
        p += 2;
        switch (n) {
          case 0x6e: out.push(0x0a); break;
          case 0x72: out.push(0x0d); break;
          case 0x74: out.push(0x09); break;
          case 0x62: out.push(0x08); break;
          case 0x66: out.push(0x0c); break;
          case 0x5c: case 0x28: case 0x29: out.push(n); break;
          case 0x0d:
            if (b[p] === 0x0a) p++;
            break;
          case 0x0a:
            break;
          default:
            if (n >= 0x30 && n <= 0x37) {
              let x = n & 0x0f;
              if (b[p] !== undefined && b[p]! >= 0x30 && b[p]! <= 0x37) {
                x = (x << 3) + (b[p]! & 0x0f);
                p++;
                if (b[p] !== undefined && b[p]! >= 0x30 && b[p]! <= 0x37) {
                  x = (x << 3) + (b[p]! & 0x0f);
                  p++;
                }
              }
              // pdf.js keeps the full value (String.fromCharCode of up to 0o777): a code above
              // 255 is not a byte any font here reads the same way.
              if (x > 0xff) ineligible('content: string escape');
              out.push(x);
            } else out.push(n);
        }
      } else {
        out.push(c);
        p++;
      }
      if (out.length > MAX_STRING) ineligible('content: string too long');
    }
    this.pos = p;
    return Buffer.from(out).toString('latin1');
  }

  private name(): OpName {
    const b = this.b;
    let p = this.pos + 1;
    const start = p;
    while (p < b.length && !SPECIAL[b[p]!]) {
      // '#' escapes: pdf.js decodes them with its own repairs; plain names only.
      if (b[p] === 0x23) ineligible('content: name escape');
      p++;
    }
    if (p - start > 127) ineligible('content: name too long');
    this.pos = p;
    return { name: Buffer.from(b.subarray(start, p)).toString('latin1') };
  }

  private hex(): string {
    const b = this.b;
    // Fast path: an even run of hex digits straight to '>'.
    const close = b.indexOf(0x3e, this.pos + 1);
    if (close > 0 && (close - this.pos - 1) % 2 === 0 && close - this.pos - 1 <= 2 * HEX_SCRATCH.length) {
      // The bytes go into one scratch buffer read back as Latin-1 (a string of those codes): no
      // array grown and spread per string.
      const out = HEX_SCRATCH;
      let q = this.pos + 1;
      let k = 0;
      for (; q < close; q += 2) {
        const hi = HEX[b[q]!]!, lo = HEX[b[q + 1]!]!;
        if ((hi | lo) > 15) break;
        out[k++] = (hi << 4) | lo;
      }
      if (q >= close) {
        this.pos = close + 1;
        return out.toString('latin1', 0, k);
      }
    }
    let p = this.pos + 1;
    const out: number[] = [];
    let first = -1;
    for (;;) {
      if (p >= b.length) ineligible('content: unterminated string');
      const c = b[p]!;
      p++;
      if (c === 0x3e) break;
      if (SPECIAL[c] === 1) continue;
      const d = c >= 0x30 && c <= 0x39 ? c - 0x30 : c >= 0x41 && c <= 0x46 ? c - 0x37 : c >= 0x61 && c <= 0x66 ? c - 0x57 : -1;
      if (d < 0) ineligible('content: hex string');
      if (first < 0) first = d;
      else {
        out.push((first << 4) | d);
        first = -1;
      }
      if (out.length > MAX_STRING) ineligible('content: string too long');
    }
    if (first >= 0) out.push(first << 4);
    this.pos = p;
    return Buffer.from(out).toString('latin1');
  }
}

export const isCmd = (t: Operand | Cmd | undefined): t is Cmd => !!t && typeof t === 'object' && 'cmd' in t;

/** Reads a whole content stream into operations; throws Ineligible where pdf.js would not read it plainly. */
export function readOperations(data: Uint8Array, limits: Limits): Operation[] {
  const lex = new ContentLexer(data);
  const ops: Operation[] = [];
  let args: Operand[] = [];

  const value = (t: Operand | Cmd | undefined, depth: number): Operand => {
    if (depth > MAX_DEPTH) ineligible('content: nesting too deep');
    if (t === undefined) ineligible('content: unexpected end');
    if (!isCmd(t)) return t;
    if (t.cmd === '[') {
      const arr: Operand[] = [];
      for (;;) {
        const n = lex.next();
        if (isCmd(n) && n.cmd === ']') return arr;
        arr.push(value(n, depth + 1));
        if (arr.length > MAX_STRING) ineligible('content: array too long');
      }
    }
    if (t.cmd === '<<') {
      const dict = new Map<string, Operand>();
      for (;;) {
        const k = lex.next();
        if (isCmd(k) && k.cmd === '>>') return { dict };
        if (!k || typeof k !== 'object' || Array.isArray(k) || !('name' in k)) ineligible('content: dictionary');
        dict.set(k.name, value(lex.next(), depth + 1));
      }
    }
    // Any other command inside an array or dictionary: pdf.js would keep it as a value.
    ineligible('content: operator inside an operand');
  };

  for (;;) {
    const t = lex.next();
    if (t === undefined) break;
    if (isCmd(t) && t.cmd !== '[' && t.cmd !== '<<') {
      const spec = OPERATORS[t.cmd];
      if (spec === undefined) ineligible(t.cmd === 'BI' || t.cmd === 'ID' || t.cmd === 'EI' ? 'content: inline image' : 'content: unknown operator');
      if (t.cmd === 'BI') ineligible('content: inline image');
      if (spec === true ? args.length > 33 : args.length !== spec) ineligible('content: operand count');
      ops.push({ op: t.cmd, args });
      if (ops.length > limits.maxOps) ineligible('content: too many operators');
      args = [];
      continue;
    }
    // pdf.js's preprocessor drops `null` operands before counting them.
    if (t === null) continue;
    args.push(value(t, 0));
    if (args.length > 33) ineligible('content: operand count');
  }
  // Operands with no operator at the end: pdf.js drops them silently.
  return ops;
}
