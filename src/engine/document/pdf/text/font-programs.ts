/**
 * The little the simple reader needs to know about an embedded font program: that pdf.js will
 * not rescale the font's /Widths by a FontMatrix of its own (Type1 and CFF programs can carry
 * one; pdf.js then scales every width by 0.001 / FontMatrix[0]), and that a TrueType program is
 * one pdf.js reads as TrueType. Unicode never comes from the program here: the fonts it accepts
 * map every shown code through /ToUnicode.
 */
import { ineligible } from './ineligible.js';

/** Type1 (FontFile): the cleartext part must state the standard matrix, once. */
export function checkType1Program(data: Buffer): void {
  const eexec = data.indexOf('eexec', 0, 'latin1');
  if (eexec < 0) ineligible('font: bad Type1 program');
  const clear = data.toString('latin1', 0, eexec);
  const found = [...clear.matchAll(/\/FontMatrix\s*[[{]([^\]}]*)[\]}]/g)];
  if (found.length !== 1) ineligible('font: Type1 FontMatrix');
  const parts = found[0]![1]!.trim().split(/\s+/);
  const want = [0.001, 0, 0, 0.001, 0, 0];
  if (parts.length !== 6 || !parts.every((p, i) => /^-?\d*\.?\d+$/.test(p) && Number(p) === want[i])) ineligible('font: Type1 FontMatrix');
}

/** CFF (FontFile3 /Type1C): a name-keyed font whose Top DICT has no FontMatrix (the default is the standard one). */
export function checkCffProgram(data: Buffer): void {
  const bad = (): never => ineligible('font: bad CFF program');
  if (data.length < 4 || data[0] !== 1) bad();
  let pos = data[2]!;
  /** An INDEX at `pos`: its items' [start, end) ranges, and where it ends. */
  const index = (): [number, number][] => {
    if (pos + 2 > data.length) bad();
    const count = data.readUInt16BE(pos);
    pos += 2;
    if (count === 0) return [];
    const offSize = data[pos++]!;
    if (offSize < 1 || offSize > 4 || pos + (count + 1) * offSize > data.length) bad();
    const offs: number[] = [];
    for (let i = 0; i <= count; i++) offs.push(data.readUIntBE(pos + i * offSize, offSize));
    const base = pos + (count + 1) * offSize - 1;
    pos = base + offs[count]!;
    if (pos > data.length) bad();
    return offs.slice(0, -1).map((o, i) => [base + o, base + offs[i + 1]!]);
  };
  index(); // Name INDEX
  const top = index();
  if (top.length !== 1) bad();
  const [start, end] = top[0]!;
  for (let p = start; p < end; ) {
    const b = data[p]!;
    if (b <= 21) {
      const op = b === 12 ? 1200 + data[p + 1]! : b;
      p += b === 12 ? 2 : 1;
      if (op === 1207) ineligible('font: CFF FontMatrix');
      if (op === 1230) ineligible('font: CID-keyed CFF');
    } else if (b === 28) p += 3;
    else if (b === 29) p += 5;
    else if (b === 30) {
      p++;
      while (p < end && (data[p]! & 0x0f) !== 0x0f && (data[p]! >> 4) !== 0x0f) p++;
      p++;
    } else if (b >= 32 && b <= 246) p += 1;
    else if (b >= 247 && b <= 254) p += 2;
    else bad();
  }
}

/** TrueType (FontFile2): an sfnt header with the tables pdf.js needs to read it as TrueType. */
export function checkTrueTypeProgram(data: Buffer): void {
  if (data.length < 12) ineligible('font: bad TrueType program');
  const tag = data.readUInt32BE(0);
  if (tag !== 0x00010000 && tag !== 0x74727565 /* true */) ineligible('font: not a TrueType program');
  const numTables = data.readUInt16BE(4);
  if (numTables === 0 || 12 + numTables * 16 > data.length) ineligible('font: bad TrueType program');
  const tables = new Set<string>();
  for (let i = 0; i < numTables; i++) tables.add(data.toString('latin1', 12 + i * 16, 16 + i * 16));
  for (const t of ['head', 'hhea', 'maxp', 'loca', 'glyf']) if (!tables.has(t)) ineligible('font: bad TrueType program');
}
