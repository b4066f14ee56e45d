/**
 * The coding of a HEIF/AVIF file's pixels, read from the file's own item list (ISO/IEC 23008-12:
 * `meta` → `pitm`, `iinf` → `infe` item types), for luma-decode.ts missingPixelCodec.
 *
 * Why not libvips's `heif-compression`: libvips guesses it from the file's major brand (`avif` or
 * `avis` → av1, anything else → hevc), so an AV1 image in a `mif1` file (a brand many encoders
 * write) reads as HEVC, and a truncated one was reported as "this build cannot decode HEVC pixels"
 * with no lenient decode tried. The item type is what libheif itself picks the decoder by.
 *
 * Bounded: only the top-level boxes, the `meta` box's children and the item entries are walked,
 * at most MAX_BOXES of each; anything malformed gives null (not known).
 */
import { boxes, type Box } from './bmff-boxes.js';

/** Item types of coded pixels, as libvips names their compression (heif-compression's nicks where it has one). */
const CODED: Record<string, string> = { hvc1: 'hevc', av01: 'av1', avc1: 'avc', jpeg: 'jpeg', vvc1: 'vvc', j2k1: 'j2k', unci: 'uncompressed' };
/** Item types made from other items (a grid of tiles, an overlay, a rotation…): their tiles carry the coding. */
const DERIVED = new Set(['grid', 'iovl', 'iden', 'tmap']);
const MAX_BOXES = 1024;

/** The boxes between `from` and `to`, as far as they are well formed (at most MAX_BOXES). */
function boxesIn(bytes: Buffer, from: number, to: number): Box[] {
  const out: Box[] = [];
  for (const box of boxes(bytes, from, to)) {
    if (out.length >= MAX_BOXES) break;
    out.push(box);
  }
  return out;
}

/**
 * The compression of the primary image's pixels ('hevc', 'av1', 'avc', 'jpeg', …) as the file's
 * items declare it; null when the file has no readable item list or its coded items disagree.
 */
export function heifPixelCoding(bytes: Buffer): string | null {
  const meta = boxesIn(bytes, 0, bytes.length).find((b) => b.type === 'meta');
  // meta is a full box: version and flags (4 bytes) before its children.
  if (!meta || meta.body + 4 > meta.end) return null;
  const children = boxesIn(bytes, meta.body + 4, meta.end);
  let primary: number | undefined;
  const pitm = children.find((b) => b.type === 'pitm');
  if (pitm && pitm.body + 4 <= pitm.end) {
    const version = bytes[pitm.body]!;
    if (version === 0 && pitm.body + 6 <= pitm.end) primary = bytes.readUInt16BE(pitm.body + 4);
    else if (version !== 0 && pitm.body + 8 <= pitm.end) primary = bytes.readUInt32BE(pitm.body + 4);
  }
  const iinf = children.find((b) => b.type === 'iinf');
  if (!iinf || iinf.body + 4 > iinf.end) return null;
  const entriesAt = iinf.body + 4 + (bytes[iinf.body] === 0 ? 2 : 4);
  const types = new Map<number, string>();
  for (const infe of boxesIn(bytes, entriesAt, iinf.end)) {
    if (infe.type !== 'infe' || infe.body + 4 > infe.end) continue;
    const version = bytes[infe.body]!;
    // Versions 0 and 1 carry no item type (an old layout no HEIF writer uses).
    if (version < 2) continue;
    const idBytes = version === 2 ? 2 : 4;
    const typeAt = infe.body + 4 + idBytes + 2; // item_ID, item_protection_index
    if (typeAt + 4 > infe.end) continue;
    const id = idBytes === 2 ? bytes.readUInt16BE(infe.body + 4) : bytes.readUInt32BE(infe.body + 4);
    types.set(id, bytes.toString('latin1', typeAt, typeAt + 4));
  }
  const own = primary !== undefined ? types.get(primary) : undefined;
  if (own && CODED[own]) return CODED[own];
  if (own && !DERIVED.has(own)) return null;
  // A derived primary (or none named): the coded items, when they all agree.
  const coded = new Set([...types.values()].filter((t) => CODED[t]).map((t) => CODED[t]!));
  return coded.size === 1 ? [...coded][0]! : null;
}
