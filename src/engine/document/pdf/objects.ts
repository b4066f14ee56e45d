/**
 * A small reader of PDF object syntax (ISO 32000-1 §7.3): enough to read trailers, xref streams,
 * signature, page and form dictionaries straight from the file's bytes. It works on a latin1
 * string of the file so byte offsets and string indices are the same numbers.
 *
 * It never throws on malformed input: parse errors come back as `undefined` so a damaged file
 * still yields whatever could be read.
 */

export type PdfValue =
  | null
  | boolean
  | number
  | PdfName
  | PdfString
  | PdfRef
  | PdfValue[]
  | PdfDict;

export interface PdfName {
  kind: 'name';
  name: string;
}
export interface PdfString {
  kind: 'string';
  /** Raw bytes as a latin1 string (escape sequences resolved; hex decoded). */
  bytes: string;
  hex: boolean;
  /**
   * An octal escape above \377 was read (kept here as its low byte): pdf.js keeps the whole value
   * as one character, so a reader that must equal pdf.js declines such a string.
   */
  wideEscape?: true;
}
export interface PdfRef {
  kind: 'ref';
  num: number;
  gen: number;
}
export interface PdfDict {
  kind: 'dict';
  entries: Map<string, PdfValue>;
}

/** Byte classes (ISO 32000-1 §7.2.2): 1 white-space, 2 delimiter, 0 regular. A table, not Sets: the lexer asks for every byte. */
const CLASS = new Uint8Array(256);
for (const c of [0x00, 0x09, 0x0a, 0x0c, 0x0d, 0x20]) CLASS[c] = 1;
for (const c of '()<>[]{}/%') CLASS[c.charCodeAt(0)] = 2;

export const isWhite = (c: number): boolean => c < 256 && CLASS[c] === 1;
/** Neither white-space nor a delimiter; NaN (past the end of the string) is not regular. */
const isRegular = (c: number): boolean => (c < 256 ? CLASS[c] === 0 : c === c);

export class PdfLexer {
  pos: number;
  constructor(
    readonly src: string,
    pos = 0,
    /** Parsing stops here (a damaged file must not make one object swallow the rest). */
    readonly end = src.length,
  ) {
    this.pos = pos;
  }

  skipWhite(): void {
    const s = this.src;
    while (this.pos < this.end) {
      const c = s.charCodeAt(this.pos);
      if (isWhite(c)) this.pos++;
      else if (c === 0x25 /* % */) {
        while (this.pos < this.end && s.charCodeAt(this.pos) !== 0x0a && s.charCodeAt(this.pos) !== 0x0d) this.pos++;
      } else break;
    }
  }

  /** A keyword or number token at the cursor, without consuming it. */
  peekWord(): string {
    this.skipWhite();
    let e = this.pos;
    while (e < this.end && isRegular(this.src.charCodeAt(e))) e++;
    return this.src.slice(this.pos, e);
  }

  readWord(): string {
    const w = this.peekWord();
    this.pos += w.length;
    return w;
  }

  /** One value; `undefined` on a syntax error or at the end. Depth-limited against hostile nesting. */
  readValue(depth = 0): PdfValue | undefined {
    if (depth > 64) return undefined;
    this.skipWhite();
    if (this.pos >= this.end) return undefined;
    const s = this.src;
    const c = s[this.pos];
    if (c === '/') return this.readName();
    if (c === '(') return this.readLiteral();
    if (c === '<') {
      if (s[this.pos + 1] === '<') return this.readDict(depth);
      return this.readHex();
    }
    if (c === '[') {
      this.pos++;
      const arr: PdfValue[] = [];
      for (;;) {
        this.skipWhite();
        if (this.pos >= this.end) return undefined;
        if (s[this.pos] === ']') {
          this.pos++;
          return arr;
        }
        const v = this.readValue(depth + 1);
        if (v === undefined) return undefined;
        arr.push(v);
      }
    }
    const w = this.peekWord();
    if (w === '') {
      this.pos++; // stray delimiter such as ')' or '}'
      return undefined;
    }
    this.pos += w.length;
    if (w === 'true') return true;
    if (w === 'false') return false;
    if (w === 'null') return null;
    if (/^[+-]?(\d+\.?\d*|\.\d+)$/.test(w)) {
      const n = Number(w);
      // `num gen R` is a reference: look ahead without committing.
      if (/^\d+$/.test(w)) {
        const save = this.pos;
        const g = this.readWord();
        if (/^\d+$/.test(g) && this.readWord() === 'R') return { kind: 'ref', num: n, gen: Number(g) };
        this.pos = save;
      }
      return n;
    }
    return undefined;
  }

  private readName(): PdfName {
    this.pos++;
    let e = this.pos;
    while (e < this.end && isRegular(this.src.charCodeAt(e))) e++;
    const raw = this.src.slice(this.pos, e);
    this.pos = e;
    return { kind: 'name', name: raw.replace(/#([0-9a-fA-F]{2})/g, (_, h: string) => String.fromCharCode(parseInt(h, 16))) };
  }

  private readLiteral(): PdfString | undefined {
    const s = this.src;
    let i = this.pos + 1;
    let depth = 1;
    let out = '';
    let wide = false;
    while (i < this.end) {
      const ch = s[i]!;
      if (ch === '\\') {
        const n = s[i + 1] ?? '';
        const map: Record<string, string> = { n: '\n', r: '\r', t: '\t', b: '\b', f: '\f', '(': '(', ')': ')', '\\': '\\' };
        if (n in map) {
          out += map[n];
          i += 2;
        } else if (/[0-7]/.test(n)) {
          const m = /^[0-7]{1,3}/.exec(s.slice(i + 1, i + 4))![0];
          if (parseInt(m, 8) > 0xff) wide = true;
          out += String.fromCharCode(parseInt(m, 8) & 0xff);
          i += 1 + m.length;
        } else if (n === '\r') i += s[i + 2] === '\n' ? 3 : 2;
        else if (n === '\n') i += 2;
        else i += 1;
        continue;
      }
      if (ch === '(') depth++;
      if (ch === ')' && --depth === 0) {
        this.pos = i + 1;
        return wide ? { kind: 'string', bytes: out, hex: false, wideEscape: true } : { kind: 'string', bytes: out, hex: false };
      }
      out += ch;
      i++;
    }
    this.pos = this.end;
    return undefined;
  }

  private readHex(): PdfString | undefined {
    const close = this.src.indexOf('>', this.pos);
    if (close < 0 || close > this.end) {
      this.pos = this.end;
      return undefined;
    }
    let hex = this.src.slice(this.pos + 1, close).replace(/[^0-9a-fA-F]/g, '');
    if (hex.length % 2) hex += '0';
    this.pos = close + 1;
    return { kind: 'string', bytes: Buffer.from(hex, 'hex').toString('latin1'), hex: true };
  }

  private readDict(depth: number): PdfDict | undefined {
    this.pos += 2;
    const entries = new Map<string, PdfValue>();
    for (;;) {
      this.skipWhite();
      if (this.pos >= this.end) return undefined;
      if (this.src.startsWith('>>', this.pos)) {
        this.pos += 2;
        return { kind: 'dict', entries };
      }
      const key = this.readValue(depth + 1);
      if (!key || typeof key !== 'object' || Array.isArray(key) || key.kind !== 'name') return undefined;
      const v = this.readValue(depth + 1);
      if (v === undefined) return undefined;
      entries.set(key.name, v);
    }
  }
}

// ---- accessors that tolerate whatever type a damaged file puts there

export const isDict = (v: PdfValue | undefined): v is PdfDict =>
  !!v && typeof v === 'object' && !Array.isArray(v) && v.kind === 'dict';
export const isRef = (v: PdfValue | undefined): v is PdfRef =>
  !!v && typeof v === 'object' && !Array.isArray(v) && v.kind === 'ref';

export function nameOf(d: PdfDict | undefined, key: string): string | undefined {
  const v = d?.entries.get(key);
  return v && typeof v === 'object' && !Array.isArray(v) && v.kind === 'name' ? v.name : undefined;
}
export function numberOf(d: PdfDict | undefined, key: string): number | undefined {
  const v = d?.entries.get(key);
  return typeof v === 'number' ? v : undefined;
}
export function refOf(d: PdfDict | undefined, key: string): PdfRef | undefined {
  const v = d?.entries.get(key);
  return isRef(v) ? v : undefined;
}
export function stringOf(d: PdfDict | undefined, key: string): PdfString | undefined {
  const v = d?.entries.get(key);
  return v && typeof v === 'object' && !Array.isArray(v) && v.kind === 'string' ? v : undefined;
}
export function arrayOf(d: PdfDict | undefined, key: string): PdfValue[] | undefined {
  const v = d?.entries.get(key);
  return Array.isArray(v) ? v : undefined;
}

/** PDF text string → JS string: UTF-16BE with BOM, UTF-8 with BOM (PDF 2.0), else PDFDocEncoding ≈ latin1. */
export function decodeTextString(s: PdfString | undefined): string | undefined {
  if (!s) return undefined;
  const b = s.bytes;
  if (b.startsWith('\xfe\xff')) {
    const buf = Buffer.from(b.slice(2), 'latin1');
    if (buf.length % 2) return buf.subarray(0, buf.length - 1).swap16().toString('utf16le');
    return Buffer.from(buf).swap16().toString('utf16le');
  }
  if (b.startsWith('\xef\xbb\xbf')) return Buffer.from(b.slice(3), 'latin1').toString('utf8');
  return b;
}

/** Serialises a value canonically, so two versions of an object can be compared. */
export function canonical(v: PdfValue | undefined): string {
  if (v === undefined) return 'undefined';
  if (v === null || typeof v !== 'object') return JSON.stringify(v);
  if (Array.isArray(v)) return `[${v.map(canonical).join(' ')}]`;
  switch (v.kind) {
    case 'name':
      return `/${v.name}`;
    case 'string':
      return `<${Buffer.from(v.bytes, 'latin1').toString('hex')}>`;
    case 'ref':
      return `${v.num} ${v.gen} R`;
    case 'dict':
      return `<<${[...v.entries.keys()].sort().map((k) => `/${k} ${canonical(v.entries.get(k))}`).join(' ')}>>`;
  }
}
