/**
 * Real signing material for the signature tests: a throw-away CA, signer certificates with fixed
 * validity dates (`openssl ca -startdate/-enddate`, so results do not depend on the wall clock), CMS
 * signatures from `openssl cms` (RSA, RSASSA-PSS, ECDSA) or built with pkijs and signed by
 * node:crypto where OpenSSL 3.0's cms cannot (Ed25519), RFC 3161 tokens from `openssl ts`.
 */
import { createHash, createPrivateKey, sign as cryptoSign } from 'node:crypto';
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import * as asn1js from 'asn1js';
import { AlgorithmIdentifier, Attribute, Certificate, CertificateRevocationList, ContentInfo, EncapsulatedContentInfo, IssuerAndSerialNumber, SignedAndUnsignedAttributes, SignedData, SignerInfo } from 'pkijs';
import { appendUpdate, BYTE_RANGE_PLACEHOLDER, fillSignature, nextObjectNumber } from './build.js';

const dir = mkdtempSync(join(tmpdir(), 'verity-sig-'));
const p = (name: string): string => join(dir, name);
const run = (args: string[]): void => void execFileSync('openssl', args, { stdio: 'ignore', cwd: dir });

writeFileSync(
  p('ca.cnf'),
  `[ca]
default_ca=CA_default
[CA_default]
dir=.
database=index.txt
new_certs_dir=.
serial=serial
default_md=sha256
policy=policy_any
unique_subject=no
[policy_any]
commonName=supplied
[leaf]
basicConstraints=CA:FALSE
keyUsage=digitalSignature,nonRepudiation
[tsa]
basicConstraints=CA:FALSE
extendedKeyUsage=critical,timeStamping
`,
);
writeFileSync(p('ts.cnf'), `[tsa]\ndefault_tsa=tsa1\n[tsa1]\nserial=./tsaserial\nsigner_digest=sha256\ndefault_policy=1.2.3.4.1\ndigests=sha256,sha384,sha512\naccuracy=secs:1\ness_cert_id_alg=sha256\n`);
writeFileSync(p('index.txt'), '');
writeFileSync(p('serial'), '1000\n');
writeFileSync(p('tsaserial'), '01\n');

/** The test root CA (self-signed, the anchor of the "trusted" tests). */
export const ROOT_PEM_PATH = p('root.pem');
run(['req', '-x509', '-newkey', 'rsa:2048', '-nodes', '-subj', '/CN=verity test root', '-days', '3650', '-keyout', p('root.key'), '-out', ROOT_PEM_PATH]);

export type KeyKind = 'rsa' | 'rsa-pss' | 'p256' | 'p384' | 'p521' | 'ed25519';
const KEYGEN: Record<KeyKind, string[]> = {
  rsa: ['-newkey', 'rsa:2048'],
  'rsa-pss': ['-newkey', 'rsa:2048'],
  p256: ['-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:P-256'],
  p384: ['-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:P-384'],
  p521: ['-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:P-521'],
  ed25519: ['-newkey', 'ed25519'],
};

export interface TestSigner {
  kind: KeyKind;
  key: string;
  cert: string;
}

let n = 0;
/**
 * A signer certificate valid `from`–`to` (YYYYMMDDHHMMSSZ), issued by the test root or self-signed.
 * Default validity 2024-01-01 to 2030-01-01 covers the fixed signing time 2025-01-01.
 */
export function makeSigner(kind: KeyKind, o: { selfSigned?: boolean; from?: string; to?: string; cn?: string; ext?: string } = {}): TestSigner {
  const id = `s${++n}`;
  run(['req', '-new', ...KEYGEN[kind], '-nodes', '-subj', `/CN=${o.cn ?? `verity ${kind} signer ${id}`}`, '-keyout', p(`${id}.key`), '-out', p(`${id}.csr`)]);
  const dates = ['-startdate', o.from ?? '20240101000000Z', '-enddate', o.to ?? '20300101000000Z'];
  const issuer = o.selfSigned ? ['-selfsign', '-keyfile', p(`${id}.key`)] : ['-cert', ROOT_PEM_PATH, '-keyfile', p('root.key')];
  run(['ca', '-batch', '-config', p('ca.cnf'), '-extensions', o.ext ?? 'leaf', ...issuer, '-in', p(`${id}.csr`), '-out', p(`${id}.pem`), ...dates, '-notext']);
  return { kind, key: p(`${id}.key`), cert: p(`${id}.pem`) };
}

/** Detached CMS with signed attributes over `data`: openssl cms, or pkijs + node:crypto for Ed25519. */
export function cmsSign(data: Buffer, s: TestSigner, md = 'sha256'): Buffer {
  if (s.kind === 'ed25519') return ed25519Cms(data, s, false);
  const id = `d${++n}`;
  writeFileSync(p(id), data);
  const pss = s.kind === 'rsa-pss' ? ['-keyopt', 'rsa_padding_mode:pss', '-keyopt', 'rsa_pss_saltlen:32'] : [];
  run(['cms', '-sign', '-binary', '-md', md, '-in', p(id), '-signer', s.cert, '-inkey', s.key, ...pss, '-outform', 'DER', '-out', p(`${id}.p7s`)]);
  return readFileSync(p(`${id}.p7s`));
}

/** adbe.pkcs7.sha1: a CMS that encapsulates the SHA-1 of the signed bytes (ISO 32000-1 §12.8.3.3.1). */
export function cmsSignSha1Encapsulated(data: Buffer, s: TestSigner): Buffer {
  const id = `e${++n}`;
  writeFileSync(p(id), createHash('sha1').update(data).digest());
  run(['cms', '-sign', '-nodetach', '-binary', '-md', 'sha256', '-in', p(id), '-signer', s.cert, '-inkey', s.key, '-outform', 'DER', '-out', p(`${id}.p7s`)]);
  return readFileSync(p(`${id}.p7s`));
}

const pemToDer = (pem: string): Buffer => Buffer.from(pem.replace(/-----[^-]+-----/g, '').replace(/\s+/g, ''), 'base64');
const ab = (b: Uint8Array): ArrayBuffer => new Uint8Array(b).buffer;

/**
 * RFC 8419 CMS with Ed25519. `derSorted`: sign the DER (sorted) SET of the signed attributes but
 * store them unsorted, as a signer that does not write DER does.
 */
export function ed25519Cms(data: Buffer, s: TestSigner, derSorted: boolean): Buffer {
  const cert = Certificate.fromBER(new Uint8Array(pemToDer(readFileSync(s.cert, 'utf8'))));
  const sha512 = '2.16.840.1.101.3.4.2.3';
  const attrs = [
    new Attribute({ type: '1.2.840.113549.1.9.3', values: [new asn1js.ObjectIdentifier({ value: '1.2.840.113549.1.7.1' })] }),
    new Attribute({ type: '1.2.840.113549.1.9.5', values: [new asn1js.UTCTime({ valueDate: new Date('2025-01-01T12:00:00Z') })] }),
    new Attribute({ type: '1.2.840.113549.1.9.4', values: [new asn1js.OctetString({ valueHex: ab(createHash('sha512').update(data).digest()) })] }),
  ];
  if (derSorted) attrs.reverse(); // stored out of DER order (DER sorts by encoding: shortest first here)
  const encoded = attrs.map((x) => Buffer.from(x.toSchema().toBER(false)));
  const signedOrder = derSorted ? [...encoded].sort(Buffer.compare) : encoded;
  const setDer = Buffer.from(new asn1js.Set({ value: signedOrder.map((e) => asn1js.fromBER(new Uint8Array(e)).result) }).toBER(false));
  const signature = cryptoSign(null, setDer, createPrivateKey(readFileSync(s.key)));
  const si = new SignerInfo({
    version: 1,
    sid: new IssuerAndSerialNumber({ issuer: cert.issuer, serialNumber: cert.serialNumber }),
    digestAlgorithm: new AlgorithmIdentifier({ algorithmId: sha512 }),
    signedAttrs: new SignedAndUnsignedAttributes({ type: 0, attributes: attrs }),
    signatureAlgorithm: new AlgorithmIdentifier({ algorithmId: '1.3.101.112' }),
    signature: new asn1js.OctetString({ valueHex: ab(signature) }),
  });
  const sd = new SignedData({
    version: 1,
    digestAlgorithms: [new AlgorithmIdentifier({ algorithmId: sha512 })],
    encapContentInfo: new EncapsulatedContentInfo({ eContentType: '1.2.840.113549.1.7.1' }),
    certificates: [cert],
    signerInfos: [si],
  });
  return Buffer.from(new ContentInfo({ contentType: '1.2.840.113549.1.7.2', content: sd.toSchema(true) }).toSchema().toBER(false));
}

/** An RFC 3161 time-stamp token over `data` from a TSA the test root certified (`openssl ts`). */
let tsa: TestSigner | undefined;
export function timestampToken(data: Buffer, md = 'sha256'): Buffer {
  tsa ??= makeSigner('rsa', { ext: 'tsa', cn: 'verity test TSA' });
  const id = `t${++n}`;
  writeFileSync(p(id), data);
  run(['ts', '-query', '-data', p(id), `-${md}`, '-cert', '-no_nonce', '-out', p(`${id}.tsq`)]);
  run(['ts', '-reply', '-config', p('ts.cnf'), '-queryfile', p(`${id}.tsq`), '-signer', tsa.cert, '-inkey', tsa.key, '-token_out', '-out', p(`${id}.tst`)]);
  return readFileSync(p(`${id}.tst`));
}

/** Adds a signature time-stamp token (unsigned attribute id-aa-signatureTimeStampToken) to a CMS. */
export function addSignatureTimestamp(cms: Buffer, stampedOverride?: Buffer): Buffer {
  const ci = ContentInfo.fromBER(new Uint8Array(cms));
  const sd = new SignedData({ schema: ci.content });
  const si = sd.signerInfos[0]!;
  const token = timestampToken(stampedOverride ?? Buffer.from(si.signature.valueBlock.valueHexView));
  si.unsignedAttrs = new SignedAndUnsignedAttributes({ type: 1, attributes: [new Attribute({ type: '1.2.840.113549.1.9.16.2.14', values: [asn1js.fromBER(new Uint8Array(token)).result] })] });
  return Buffer.from(new ContentInfo({ contentType: ci.contentType, content: sd.toSchema(true) }).toSchema().toBER(false));
}

const CONTENTS_HEX = 24000;

export interface SignOptions {
  /** Makes the /Contents bytes from the ByteRange data. */
  sign: (signedBytes: Buffer) => Buffer;
  subFilter?: string;
  /** `/M`; default 2025-01-01 12:00 UTC (inside the test certificates' validity). */
  m?: string | null;
  docTimestamp?: boolean;
  fieldName?: string;
}

/** Signs the whole current file in a new incremental update, with a signature field pointing at it. */
export function signPdfWith(pdf: Buffer, o: SignOptions): Buffer {
  const num = nextObjectNumber(pdf);
  const type = o.docTimestamp ? '/Type /DocTimeStamp' : '/Type /Sig';
  const sub = o.subFilter ?? (o.docTimestamp ? 'ETSI.RFC3161' : 'adbe.pkcs7.detached');
  const m = o.m === null ? '' : ` /M (${o.m ?? 'D:20250101120000Z'})`;
  const sig = `<< ${type} /Filter /Adobe.PPKLite /SubFilter /${sub}${m} /ByteRange ${BYTE_RANGE_PLACEHOLDER} /Contents <${'0'.repeat(CONTENTS_HEX)}> >>`;
  const field = `<< /FT /Sig /T (${o.fieldName ?? `Signature${num}`}) /V ${num} 0 R /Rect [0 0 0 0] /Subtype /Widget /F 132 >>`;
  const withSig = appendUpdate(pdf, [
    { num, body: sig },
    { num: num + 1, body: field },
  ]);
  return fillSignature(withSig, CONTENTS_HEX, o.sign);
}

/** The CMS bytes in the last signature's /Contents, and where they sit. */
export function lastContents(pdf: Buffer): { der: Buffer; hexStart: number } {
  const s = pdf.toString('latin1');
  const at = s.lastIndexOf('/Contents <') + '/Contents <'.length;
  const endAt = s.indexOf('>', at);
  return { der: Buffer.from(s.slice(at, endAt), 'hex'), hexStart: at };
}

/** Revokes `s` at the test root and returns the root's CRL (DER) listing it (`openssl ca -revoke`, `-gencrl`). */
export function revokeAndCrl(s: TestSigner): Buffer {
  run(['ca', '-batch', '-config', p('ca.cnf'), '-revoke', s.cert, '-cert', ROOT_PEM_PATH, '-keyfile', p('root.key')]);
  const id = `c${++n}`;
  run(['ca', '-batch', '-config', p('ca.cnf'), '-gencrl', '-crldays', '30', '-cert', ROOT_PEM_PATH, '-keyfile', p('root.key'), '-out', p(`${id}.pem`)]);
  run(['crl', '-in', p(`${id}.pem`), '-outform', 'DER', '-out', p(`${id}.der`)]);
  return readFileSync(p(`${id}.der`));
}

/** Embeds a CRL in the CMS's SignedData.crls (outside the signed attributes: the signature stays valid). */
export function addCrl(cms: Buffer, crl: Buffer): Buffer {
  const ci = ContentInfo.fromBER(new Uint8Array(cms));
  const sd = new SignedData({ schema: ci.content });
  sd.crls = [CertificateRevocationList.fromBER(new Uint8Array(crl))];
  return Buffer.from(new ContentInfo({ contentType: ci.contentType, content: sd.toSchema(true) }).toSchema().toBER(false));
}

/** An OCSP response from the test root (as its own responder) about `s` (`openssl ocsp`, index from `openssl ca`). */
export function ocspResponse(s: TestSigner): Buffer {
  const id = `o${++n}`;
  run(['ocsp', '-issuer', ROOT_PEM_PATH, '-cert', s.cert, '-reqout', p(`${id}.req`), '-no_nonce']);
  run(['ocsp', '-index', p('index.txt'), '-rsigner', ROOT_PEM_PATH, '-rkey', p('root.key'), '-CA', ROOT_PEM_PATH, '-reqin', p(`${id}.req`), '-respout', p(`${id}.der`), '-ndays', '1']);
  return readFileSync(p(`${id}.der`));
}

/** Appends a PAdES /DSS (ETSI EN 319 142-1 §5.4.2) with the given OCSP responses and CRLs. */
export function addDss(pdf: Buffer, o: { ocsps?: Buffer[]; crls?: Buffer[] }): Buffer {
  const s = pdf.toString('latin1');
  const root = Number(/\/Root (\d+) 0 R/.exec(s.slice(s.lastIndexOf('trailer')))![1]);
  const catalogBody = new RegExp(`(?:^|\\n)${root} 0 obj\\s*([\\s\\S]*?)endobj`).exec(s)![1]!.trim();
  let num = nextObjectNumber(pdf);
  const objects: { num: number; body: string }[] = [];
  const streamRefs = (list: Buffer[] = []): string =>
    list
      .map((der) => {
        const k = num++;
        objects.push({ num: k, body: `<< /Length ${der.length} >>\nstream\n${der.toString('latin1')}\nendstream` });
        return `${k} 0 R`;
      })
      .join(' ');
  const ocsps = streamRefs(o.ocsps);
  const crls = streamRefs(o.crls);
  const dss = num++;
  objects.push({ num: dss, body: `<< /OCSPs [${ocsps}] /CRLs [${crls}] >>` });
  objects.push({ num: root, body: catalogBody.replace(/>>\s*$/, ` /DSS ${dss} 0 R >>`) });
  return appendUpdate(pdf, objects);
}
