/**
 * PDF signature checks that need no trust store (ISO 32000-1 §12.8.1): the `/ByteRange` must
 * start at 0, leave out exactly the `/Contents` hex string, and end on a revision boundary; the
 * CMS SignedData's `messageDigest` attribute (RFC 5652 §11.2) must equal the hash of the signed
 * bytes. Whether the signer is trusted needs a certificate store and is not decided here.
 */
import { createHash } from 'node:crypto';
import { isDict, nameOf, stringOf, decodeTextString, type PdfDict } from './objects.js';
import type { PdfStructure } from './structure.js';

export interface SignatureCheck {
  objNum: number;
  subFilter: string | null;
  signingTime: string | null;
  byteRange: [number, number, number, number];
  /** The signed ranges reach the last byte of the file. */
  coversWholeFile: boolean;
  /** The one gap is exactly the `/Contents <…>` string. */
  gapIsContents: boolean;
  /** Bytes of the file after the signed range. */
  bytesAfter: number;
  /** Index of the revision whose end the signature covers; null when it ends mid-revision. */
  revisionIndex: number | null;
  /** The CMS messageDigest equals the hash of the signed bytes: true/false, or null when not checkable. */
  digestMatches: boolean | null;
  digestAlgorithm: string | null;
  problems: string[];
}

// ---- a minimal DER walker: enough to find the messageDigest attribute in a CMS SignedData

interface Tlv {
  tag: number;
  start: number;
  len: number;
  end: number;
}

function readTlv(b: Buffer, pos: number): Tlv | undefined {
  if (pos + 2 > b.length) return undefined;
  const tag = b[pos]!;
  let len = b[pos + 1]!;
  let start = pos + 2;
  if (len & 0x80) {
    const n = len & 0x7f;
    if (n === 0 || n > 4 || start + n > b.length) return undefined;
    len = 0;
    for (let i = 0; i < n; i++) len = len * 256 + b[start + i]!;
    start += n;
  }
  if (start + len > b.length) return undefined;
  return { tag, start, len, end: start + len };
}

const OID_MESSAGE_DIGEST = Buffer.from('2a864886f70d010904', 'hex'); // 1.2.840.113549.1.9.4
const DIGESTS: Record<string, string> = {
  '2b0e03021a': 'sha1',
  '608648016503040201': 'sha256',
  '608648016503040202': 'sha384',
  '608648016503040203': 'sha512',
};

/** Walks constructed TLVs depth-first, calling `visit` on each SEQUENCE's children. */
function findMessageDigest(b: Buffer): { digest: Buffer; algorithm: string | null } | undefined {
  let algorithm: string | null = null;
  let found: Buffer | undefined;
  const walk = (from: number, to: number, depth: number): void => {
    let p = from;
    while (p < to && !found && depth < 20) {
      const t = readTlv(b, p);
      if (!t || t.end > to) return;
      if (t.tag === 0x06) {
        const oid = b.subarray(t.start, t.end);
        const hex = oid.toString('hex');
        if (DIGESTS[hex] && !algorithm) algorithm = DIGESTS[hex]!;
        if (oid.equals(OID_MESSAGE_DIGEST)) {
          // SEQUENCE { OID messageDigest, SET { OCTET STRING digest } }
          const set = readTlv(b, t.end);
          const oct = set && set.tag === 0x31 ? readTlv(b, set.start) : undefined;
          if (oct && oct.tag === 0x04) found = b.subarray(oct.start, oct.end);
          return;
        }
      }
      if (t.tag & 0x20) walk(t.start, t.end, depth + 1);
      p = t.end;
    }
  };
  walk(0, b.length, 0);
  return found ? { digest: found, algorithm } : undefined;
}

/** PDF date string `D:YYYYMMDDHHmmSSOHH'mm'` → ISO 8601; null when unreadable. */
export function parsePdfDate(raw: string | undefined | null): string | null {
  if (!raw) return null;
  const m = /^(?:D:)?(\d{4})(\d{2})?(\d{2})?(\d{2})?(\d{2})?(\d{2})?\s*([Zz+\-])?\s*(\d{2})?'?\s*(\d{2})?'?/.exec(raw.trim());
  if (!m) return null;
  const [, y, mo = '01', d = '01', h = '00', mi = '00', s = '00', sign, oh, om] = m;
  let iso = `${y}-${mo}-${d}T${h}:${mi}:${s}`;
  if (sign === '+' || sign === '-') iso += `${sign}${oh ?? '00'}:${om ?? '00'}`;
  else iso += 'Z';
  const t = Date.parse(iso);
  return Number.isNaN(t) ? null : new Date(t).toISOString();
}

export function checkSignatures(bytes: Buffer, s: PdfStructure): SignatureCheck[] {
  const out: SignatureCheck[] = [];
  const seen = new Set<string>();
  for (const list of s.versions.values()) {
    for (const o of list) {
      const d = o.value;
      if (!isDict(d)) continue;
      const br = d.entries.get('ByteRange');
      if (!Array.isArray(br) || br.length !== 4 || !br.every((x) => typeof x === 'number')) continue;
      const range = br as [number, number, number, number];
      const key = range.join(',');
      if (seen.has(key)) continue;
      seen.add(key);
      out.push(checkOne(bytes, s, o.num, d, range));
    }
  }
  return out.sort((a, b) => a.byteRange[2] + a.byteRange[3] - (b.byteRange[2] + b.byteRange[3]));
}

function checkOne(bytes: Buffer, s: PdfStructure, objNum: number, d: PdfDict, br: [number, number, number, number]): SignatureCheck {
  const [a, b, c, len2] = br;
  const problems: string[] = [];
  const size = bytes.length;
  const end = c + len2;
  if (a !== 0) problems.push(`the signed range starts at byte ${a}, not at the start of the file`);
  if (end > size) problems.push(`the signed range ends at byte ${end}, past the end of the ${size}-byte file`);
  const gap = bytes.subarray(a + b, Math.min(c, size)).toString('latin1');
  const gapIsContents = c > a + b && /^<[0-9A-Fa-f\s]*>$/.test(gap);
  if (!gapIsContents) problems.push('the unsigned gap is not exactly the signature /Contents string: bytes outside the signature are unsigned');
  const revisionIndex = s.revisions.find((r) => r.end === end || (r.end > end && r.end - end <= 2 && /^[\r\n]*$/.test(bytes.subarray(end, r.end).toString('latin1'))))?.index ?? null;
  if (revisionIndex === null && end <= size) problems.push(`the signed range ends at byte ${end}, which is not the end of any revision`);

  let digestMatches: boolean | null = null;
  let digestAlgorithm: string | null = null;
  const contents = stringOf(d, 'Contents');
  const subFilter = nameOf(d, 'SubFilter') ?? null;
  if (contents && end <= size && a === 0) {
    const cms = Buffer.from(contents.bytes, 'latin1');
    const md = subFilter === 'adbe.pkcs7.sha1' ? undefined : findMessageDigest(cms);
    if (md) {
      const alg = md.algorithm ?? ({ 20: 'sha1', 32: 'sha256', 48: 'sha384', 64: 'sha512' } as Record<number, string>)[md.digest.length] ?? null;
      if (alg) {
        const h = createHash(alg);
        h.update(bytes.subarray(a, a + b));
        h.update(bytes.subarray(c, end));
        digestMatches = h.digest().equals(md.digest);
        digestAlgorithm = alg;
        if (!digestMatches) problems.push(`the ${alg} digest of the signed bytes does not match the signature's messageDigest: the signed bytes were altered`);
      }
    }
  }
  return {
    objNum,
    subFilter,
    signingTime: parsePdfDate(decodeTextString(stringOf(d, 'M')) ?? null),
    byteRange: br,
    coversWholeFile: end === size || (end < size && /^[\s\0]*$/.test(bytes.subarray(end).toString('latin1'))),
    gapIsContents,
    bytesAfter: Math.max(0, size - end),
    revisionIndex,
    digestMatches,
    digestAlgorithm,
    problems,
  };
}
