/**
 * Digest and signature algorithms named by object identifier, as CMS (RFC 5652, RFC 8419, RFC 4056,
 * RFC 5754, RFC 8702) and XML-DSig name them. The algorithm is always read from the structure
 * that carries the signature — never guessed from a length. OpenSSL (node:crypto) does the
 * arithmetic: it covers SHA-3, SHAKE, Ed448 and RSASSA-PSS, which WebCrypto in Node 20 does not.
 */
import { createHash, verify as cryptoVerify, constants, type KeyObject } from 'node:crypto';
import * as asn1js from 'asn1js';
import { RSASSAPSSParams } from 'pkijs';

interface DigestAlg {
  name: string;
  /** node:crypto hash name */
  node: string;
  /** output length for the extendable-output functions (RFC 8702 / RFC 8419 fix 256 and 512 bits) */
  outputLength?: number;
}

export const DIGESTS: Record<string, DigestAlg> = {
  '1.3.14.3.2.26': { name: 'sha1', node: 'sha1' },
  '2.16.840.1.101.3.4.2.4': { name: 'sha224', node: 'sha224' },
  '2.16.840.1.101.3.4.2.1': { name: 'sha256', node: 'sha256' },
  '2.16.840.1.101.3.4.2.2': { name: 'sha384', node: 'sha384' },
  '2.16.840.1.101.3.4.2.3': { name: 'sha512', node: 'sha512' },
  '2.16.840.1.101.3.4.2.5': { name: 'sha512-224', node: 'sha512-224' },
  '2.16.840.1.101.3.4.2.6': { name: 'sha512-256', node: 'sha512-256' },
  '2.16.840.1.101.3.4.2.7': { name: 'sha3-224', node: 'sha3-224' },
  '2.16.840.1.101.3.4.2.8': { name: 'sha3-256', node: 'sha3-256' },
  '2.16.840.1.101.3.4.2.9': { name: 'sha3-384', node: 'sha3-384' },
  '2.16.840.1.101.3.4.2.10': { name: 'sha3-512', node: 'sha3-512' },
  '2.16.840.1.101.3.4.2.11': { name: 'shake128', node: 'shake128', outputLength: 32 },
  '2.16.840.1.101.3.4.2.12': { name: 'shake256', node: 'shake256', outputLength: 64 },
};

const BY_NAME = new Map(Object.values(DIGESTS).map((d) => [d.name, d]));

export const digestName = (oid: string): string => DIGESTS[oid]?.name ?? `unsupported digest ${oid}`;
export const isSupportedDigest = (oid: string): boolean => !!DIGESTS[oid];

/** Hash of the concatenated chunks with the digest named by `oid`; undefined when unsupported. */
export function digestOf(oid: string, chunks: readonly Uint8Array[]): Buffer | undefined {
  const d = DIGESTS[oid];
  return d ? hashWith(d, chunks) : undefined;
}

export function digestByName(name: string, chunks: readonly Uint8Array[]): Buffer | undefined {
  const d = BY_NAME.get(name);
  return d ? hashWith(d, chunks) : undefined;
}

function hashWith(d: DigestAlg, chunks: readonly Uint8Array[]): Buffer {
  const h = d.outputLength ? createHash(d.node, { outputLength: d.outputLength }) : createHash(d.node);
  for (const c of chunks) h.update(c);
  return h.digest();
}

type SigFamily = 'rsa' | 'rsa-pss' | 'ecdsa' | 'eddsa' | 'dsa';
interface SigAlg {
  name: string;
  family: SigFamily;
  /** the hash the algorithm fixes; undefined → the CMS digestAlgorithm */
  hash?: string;
}

const SIGNATURES: Record<string, SigAlg> = {
  '1.2.840.113549.1.1.1': { name: 'RSA PKCS#1 v1.5', family: 'rsa' },
  '1.2.840.113549.1.1.5': { name: 'sha1WithRSAEncryption', family: 'rsa', hash: 'sha1' },
  '1.2.840.113549.1.1.14': { name: 'sha224WithRSAEncryption', family: 'rsa', hash: 'sha224' },
  '1.2.840.113549.1.1.11': { name: 'sha256WithRSAEncryption', family: 'rsa', hash: 'sha256' },
  '1.2.840.113549.1.1.12': { name: 'sha384WithRSAEncryption', family: 'rsa', hash: 'sha384' },
  '1.2.840.113549.1.1.13': { name: 'sha512WithRSAEncryption', family: 'rsa', hash: 'sha512' },
  '1.2.840.113549.1.1.15': { name: 'sha512-224WithRSAEncryption', family: 'rsa', hash: 'sha512-224' },
  '1.2.840.113549.1.1.16': { name: 'sha512-256WithRSAEncryption', family: 'rsa', hash: 'sha512-256' },
  '2.16.840.1.101.3.4.3.13': { name: 'RSA PKCS#1 v1.5 with SHA3-224', family: 'rsa', hash: 'sha3-224' },
  '2.16.840.1.101.3.4.3.14': { name: 'RSA PKCS#1 v1.5 with SHA3-256', family: 'rsa', hash: 'sha3-256' },
  '2.16.840.1.101.3.4.3.15': { name: 'RSA PKCS#1 v1.5 with SHA3-384', family: 'rsa', hash: 'sha3-384' },
  '2.16.840.1.101.3.4.3.16': { name: 'RSA PKCS#1 v1.5 with SHA3-512', family: 'rsa', hash: 'sha3-512' },
  '1.2.840.113549.1.1.10': { name: 'RSASSA-PSS', family: 'rsa-pss' },
  '1.2.840.10045.2.1': { name: 'ECDSA', family: 'ecdsa' },
  '1.2.840.10045.4.1': { name: 'ECDSA with SHA-1', family: 'ecdsa', hash: 'sha1' },
  '1.2.840.10045.4.3.1': { name: 'ECDSA with SHA-224', family: 'ecdsa', hash: 'sha224' },
  '1.2.840.10045.4.3.2': { name: 'ECDSA with SHA-256', family: 'ecdsa', hash: 'sha256' },
  '1.2.840.10045.4.3.3': { name: 'ECDSA with SHA-384', family: 'ecdsa', hash: 'sha384' },
  '1.2.840.10045.4.3.4': { name: 'ECDSA with SHA-512', family: 'ecdsa', hash: 'sha512' },
  '2.16.840.1.101.3.4.3.9': { name: 'ECDSA with SHA3-224', family: 'ecdsa', hash: 'sha3-224' },
  '2.16.840.1.101.3.4.3.10': { name: 'ECDSA with SHA3-256', family: 'ecdsa', hash: 'sha3-256' },
  '2.16.840.1.101.3.4.3.11': { name: 'ECDSA with SHA3-384', family: 'ecdsa', hash: 'sha3-384' },
  '2.16.840.1.101.3.4.3.12': { name: 'ECDSA with SHA3-512', family: 'ecdsa', hash: 'sha3-512' },
  '1.3.101.112': { name: 'Ed25519', family: 'eddsa' },
  '1.3.101.113': { name: 'Ed448', family: 'eddsa' },
  '1.2.840.10040.4.1': { name: 'DSA', family: 'dsa' },
  '1.2.840.10040.4.3': { name: 'DSA with SHA-1', family: 'dsa', hash: 'sha1' },
  '2.16.840.1.101.3.4.3.1': { name: 'DSA with SHA-224', family: 'dsa', hash: 'sha224' },
  '2.16.840.1.101.3.4.3.2': { name: 'DSA with SHA-256', family: 'dsa', hash: 'sha256' },
};

const KEY_TYPES: Record<SigFamily, string[]> = {
  rsa: ['rsa'],
  'rsa-pss': ['rsa', 'rsa-pss'],
  ecdsa: ['ec'],
  eddsa: ['ed25519', 'ed448'],
  dsa: ['dsa'],
};

const SHA1 = '1.3.14.3.2.26';
const MGF1 = '1.2.840.113549.1.1.8';

export type SignatureCheck = { outcome: 'valid' | 'invalid'; algorithm: string } | { outcome: 'unsupported'; algorithm: string; reason: string };

export interface SignatureInput {
  /** signatureAlgorithm OID and its DER parameters (RSASSA-PSS) */
  algorithmOid: string;
  algorithmParams?: asn1js.AsnType;
  /** the digestAlgorithm of the SignerInfo, for algorithms that do not fix their hash */
  digestOid?: string;
  key: KeyObject;
  data: Uint8Array;
  signature: Uint8Array;
}

/** Verifies one signature value with the algorithm its structure names. */
export function verifySignature(i: SignatureInput): SignatureCheck {
  const alg = SIGNATURES[i.algorithmOid];
  if (!alg) return { outcome: 'unsupported', algorithm: i.algorithmOid, reason: `signature algorithm ${i.algorithmOid} is not supported` };
  const keyType = i.key.asymmetricKeyType ?? 'unknown';
  if (!KEY_TYPES[alg.family].includes(keyType))
    return { outcome: 'invalid', algorithm: alg.name, };
  let hash = alg.hash;
  const opts: { padding?: number; saltLength?: number } = {};
  if (alg.family === 'rsa-pss') {
    let p: RSASSAPSSParams;
    try {
      p = i.algorithmParams ? new RSASSAPSSParams({ schema: i.algorithmParams }) : new RSASSAPSSParams();
    } catch {
      return { outcome: 'unsupported', algorithm: alg.name, reason: 'the RSASSA-PSS parameters cannot be read' };
    }
    const h = p.hashAlgorithm?.algorithmId ?? SHA1;
    const mgf = p.maskGenAlgorithm;
    const mgfOid = mgf?.algorithmId ?? MGF1;
    let mgfHash = SHA1;
    if (mgf?.algorithmParams instanceof asn1js.Sequence) {
      const inner = mgf.algorithmParams.valueBlock.value[0];
      if (inner instanceof asn1js.ObjectIdentifier) mgfHash = inner.valueBlock.toString();
    }
    if (mgfOid !== MGF1 || mgfHash !== h)
      return { outcome: 'unsupported', algorithm: alg.name, reason: `RSASSA-PSS with mask generation ${mgfOid}/${digestName(mgfHash)} different from the message hash ${digestName(h)} is not supported` };
    if (!DIGESTS[h]) return { outcome: 'unsupported', algorithm: alg.name, reason: `RSASSA-PSS hash ${h} is not supported` };
    hash = DIGESTS[h]!.node;
    opts.padding = constants.RSA_PKCS1_PSS_PADDING;
    opts.saltLength = p.saltLength ?? 20;
  } else if (alg.family === 'rsa') opts.padding = constants.RSA_PKCS1_PADDING;
  if (alg.family === 'eddsa') hash = undefined;
  else if (!hash) {
    const d = i.digestOid ? DIGESTS[i.digestOid] : undefined;
    if (!d || d.outputLength) return { outcome: 'unsupported', algorithm: alg.name, reason: `${alg.name} with digest ${i.digestOid ? digestName(i.digestOid) : '(none)'} is not supported` };
    hash = d.node;
  }
  const name = alg.family === 'eddsa' ? (keyType === 'ed448' ? 'Ed448' : 'Ed25519') : alg.family === 'rsa' || alg.family === 'ecdsa' ? `${alg.name}${alg.hash ? '' : ` with ${hash}`}` : `${alg.name} with ${hash}${opts.saltLength !== undefined ? `, salt ${opts.saltLength}` : ''}`;
  try {
    const ok = cryptoVerify(hash ?? null, i.data, { key: i.key, ...opts }, i.signature);
    return { outcome: ok ? 'valid' : 'invalid', algorithm: name };
  } catch (err) {
    return { outcome: 'unsupported', algorithm: name, reason: `OpenSSL could not run the check (${(err as Error).message.slice(0, 100)})` };
  }
}
