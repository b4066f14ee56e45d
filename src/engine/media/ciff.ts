/**
 * Camera make and model from a Canon CIFF block in a JPEG's APP0 segment. Canon's early digital
 * cameras (PowerShot A5, A50, Pro70; ~1998–2000) wrote no EXIF: their JPEGs carry a CIFF heap
 * ("HEAPJPGM", the format of Canon's CRW raw files) after the JFIF header, and exiftool reads Make
 * and Model from its MakeModel record (tag 0x080a: "Canon\0Canon PowerShot A5\0"). exifr does not
 * read CIFF, so without this such a photo has no make/model (issue 30: exif-org's
 * `sony-powershota5.jpg`, named for the uploader, is a Canon PowerShot A5).
 *
 * CIFF heap: byte order ("II"/"MM"), header length (u32), "HEAPJPGM"; the root heap runs from the
 * header's end to the end of the segment. A heap ends with the u32 offset of its directory: a u16
 * count, then 10-byte entries (u16 tag, u32 size, u32 offset from the heap start). Tag types 0x28
 * and 0x30 are sub-heaps; bit 0x4000 stores the value in the entry itself.
 */

/** Deepest sub-heap followed, and most entries read in all (a hostile heap is bounded). */
const MAX_DEPTH = 6;
const MAX_ENTRIES = 2000;

export function ciffMakeModel(jpeg: Buffer): { make: string; model: string | null } | null {
  if (jpeg.length < 4 || jpeg[0] !== 0xff || jpeg[1] !== 0xd8) return null;
  let p = 2;
  while (p + 4 <= jpeg.length && jpeg[p] === 0xff) {
    const marker = jpeg[p + 1]!;
    if (marker === 0xda || marker === 0xd9) return null;
    const len = jpeg.readUInt16BE(p + 2);
    if (len < 2 || p + 2 + len > jpeg.length) return null;
    if (marker === 0xe0) {
      const seg = jpeg.subarray(p + 4, p + 2 + len);
      if (seg.length >= 14 && seg.toString('latin1', 6, 14) === 'HEAPJPGM') return readHeap(seg);
    }
    p += 2 + len;
  }
  return null;
}

function readHeap(seg: Buffer): { make: string; model: string | null } | null {
  const order = seg.toString('latin1', 0, 2);
  if (order !== 'II' && order !== 'MM') return null;
  const le = order === 'II';
  const u16 = (o: number): number => (le ? seg.readUInt16LE(o) : seg.readUInt16BE(o));
  const u32 = (o: number): number => (le ? seg.readUInt32LE(o) : seg.readUInt32BE(o));
  const headerLen = u32(2);
  if (headerLen < 14 || headerLen >= seg.length) return null;
  let budget = MAX_ENTRIES;
  const visit = (start: number, end: number, depth: number): { make: string; model: string | null } | null => {
    if (depth > MAX_DEPTH || end - start < 6 || end > seg.length) return null;
    const dir = start + u32(end - 4);
    if (dir < start || dir + 2 > end) return null;
    const count = u16(dir);
    for (let i = 0; i < count && budget-- > 0; i++) {
      const e = dir + 2 + 10 * i;
      if (e + 10 > end) return null;
      const tag = u16(e);
      if (tag & 0x8000) return null;
      const size = u32(e + 2);
      const off = start + u32(e + 6);
      const type = (tag >> 8) & 0x38;
      const inDir = (tag & 0x4000) !== 0;
      if (inDir) continue;
      if (off < start || off + size > end) continue;
      if (type === 0x28 || type === 0x30) {
        const found = visit(off, off + size, depth + 1);
        if (found) return found;
      } else if ((tag & 0x3fff) === 0x080a) {
        const parts = seg.toString('latin1', off, off + size).split('\0');
        const make = parts[0]?.trim();
        if (make) return { make, model: parts[1]?.trim() || null };
      }
    }
    return null;
  };
  return visit(headerLen, seg.length, 0);
}
