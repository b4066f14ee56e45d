/**
 * A font's /ToUnicode CMap read as pdf.js 5.4.296 reads it (`parseCMap` for bfchar/bfrange, then
 * `readToUnicode`'s UTF-16BE decoding), for well-formed CMaps only: cidchar/cidrange, usecmap,
 * an Identity CMap name, or anything pdf.js would recover from mid-way is not eligible.
 */
import { ContentLexer, isCmd } from './content-ops.js';
import { ineligible } from './ineligible.js';

/** Mapped codes (sparse) and pdf.js's `length` (highest code + 1). */
export interface UnicodeMap {
  map: (string | undefined)[];
  length: number;
}

const MAX_RANGE = 0x10000;
/** Entries written in all (a code written again counts again: the work, not the map, is bounded). */
const MAX_ENTRIES = 0x40000;
/** The fonts this reader supports use one- and two-byte codes; a larger code is not eligible (its map would be sparse over billions of slots). */
const MAX_CODE = 0xffff;

function strToInt(s: string): number {
  if (s.length === 0 || s.length > 4) ineligible('unicode: ToUnicode code length');
  let a = 0;
  for (let i = 0; i < s.length; i++) a = (a << 8) | s.charCodeAt(i);
  return a >>> 0;
}

/** pdf.js's UTF-16BE → string of readToUnicode (an odd byte count gets a leading zero byte). */
function decodeToken(token: string): string {
  if (token.length % 2 !== 0) token = `\0${token}`;
  const cps: number[] = [];
  for (let k = 0; k < token.length; k += 2) {
    const w1 = (token.charCodeAt(k) << 8) | token.charCodeAt(k + 1);
    if ((w1 & 0xf800) !== 0xd800) {
      cps.push(w1);
      continue;
    }
    k += 2;
    const w2 = (token.charCodeAt(k) << 8) | token.charCodeAt(k + 1);
    cps.push(((w1 & 0x3ff) << 10) + (w2 & 0x3ff) + 0x10000);
  }
  return String.fromCodePoint(...cps);
}

export function readToUnicode(data: Uint8Array): UnicodeMap {
  const lex = new ContentLexer(data, false);
  const raw: (string | undefined)[] = [];
  let entries = 0;
  const put = (code: number, dst: string): void => {
    if (code > MAX_CODE) ineligible('unicode: ToUnicode code above 0xFFFF');
    if (++entries > MAX_ENTRIES) ineligible('unicode: ToUnicode too large');
    raw[code] = dst;
  };
  const str = (t: unknown): string => (typeof t === 'string' ? t : ineligible('unicode: malformed ToUnicode'));
  let previousName: string | undefined;
  for (;;) {
    const t = lex.next();
    if (t === undefined) break;
    if (t && typeof t === 'object' && !Array.isArray(t) && 'name' in t) {
      if (t.name === 'CMapName') {
        const n = lex.next();
        if (n && typeof n === 'object' && 'name' in n && /^Identity-[HV]$/.test(n.name)) ineligible('unicode: Identity ToUnicode');
      } else if (t.name === 'WMode') lex.next();
      previousName = t.name;
      continue;
    }
    if (!isCmd(t)) continue;
    const cmd = t.cmd;
    if (cmd === 'endcmap') break;
    if (cmd === 'usecmap' || cmd === 'begincidchar' || cmd === 'begincidrange') ineligible(`unicode: ToUnicode ${cmd}`);
    if (cmd === 'begincodespacerange') {
      for (;;) {
        const a = lex.next();
        if (isCmd(a) && a.cmd === 'endcodespacerange') break;
        str(a);
        str(lex.next());
      }
    } else if (cmd === 'beginbfchar') {
      for (;;) {
        const a = lex.next();
        if (isCmd(a) && a.cmd === 'endbfchar') break;
        const src = strToInt(str(a));
        put(src, str(lex.next()));
      }
    } else if (cmd === 'beginbfrange') {
      for (;;) {
        const a = lex.next();
        if (isCmd(a) && a.cmd === 'endbfrange') break;
        let low = strToInt(str(a));
        const high = strToInt(str(lex.next()));
        if (high - low >= MAX_RANGE) ineligible('unicode: ToUnicode range too large');
        const d = lex.next();
        if (typeof d === 'string') {
          // pdf.js's mapBfRange: the destination's last byte counts up, with its own carry.
          let dst = d;
          const last = dst.length - 1;
          if (last < 0) ineligible('unicode: malformed ToUnicode');
          while (low <= high) {
            put(low++, dst);
            const next = dst.charCodeAt(last) + 1;
            if (next > 0xff) {
              dst = dst.substring(0, last - 1) + String.fromCharCode(dst.charCodeAt(last - 1) + 1) + '\x00';
              continue;
            }
            dst = dst.substring(0, last) + String.fromCharCode(next);
          }
        } else if (isCmd(d) && d.cmd === '[') {
          const arr: string[] = [];
          for (;;) {
            const e = lex.next();
            if (isCmd(e) && e.cmd === ']') break;
            arr.push(str(e));
            if (arr.length > MAX_RANGE) ineligible('unicode: ToUnicode range too large');
          }
          for (let i = 0; low <= high && i < arr.length; i++, low++) put(low, arr[i]!);
        } else ineligible('unicode: malformed ToUnicode');
      }
    }
    void previousName;
  }
  const map: (string | undefined)[] = [];
  let length = 0;
  raw.forEach((token, code) => {
    if (token === undefined) return;
    map[code] = decodeToken(token);
  });
  length = raw.length;
  return { map, length };
}
