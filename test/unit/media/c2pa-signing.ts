/**
 * Test-only C2PA signing: a throw-away CA and signing certificate made with the machine's
 * `openssl` at test time, and a COSE_Sign1 signer for c2pa-wasm's builder.
 *
 * Why the tests build the COSE structure themselves: the wasm binding's signer
 * (c2pa-js `packages/c2pa-wasm/src/wasm_signer.rs`) implements c2pa-rs's `AsyncSigner` with
 * `certs()` returning an empty list and `direct_cose_handling()` returning true. With direct COSE
 * handling c2pa-rs hands the claim bytes to the `sign` callback and embeds whatever comes back as
 * the claim signature (padding it to `reserveSize`), so the callback must return a complete, tagged
 * COSE_Sign1 (RFC 9052 §4.2) whose protected header carries the algorithm and the certificate chain
 * (`x5chain`, label 33, RFC 9360) — exactly what c2pa-rs's verifier reads the signer from.
 */
import { execFileSync } from 'node:child_process';
import { createPrivateKey, sign as cryptoSign, X509Certificate } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

// ---- a minimal deterministic CBOR encoder (RFC 8949), enough for COSE headers and Sig_structure ----

type Cbor = number | string | Uint8Array | null | Cbor[] | Map<Cbor, Cbor> | { tag: number; value: Cbor };

function head(major: number, n: number): Buffer {
  if (n < 24) return Buffer.from([(major << 5) | n]);
  if (n < 0x100) return Buffer.from([(major << 5) | 24, n]);
  if (n < 0x10000) return Buffer.from([(major << 5) | 25, n >> 8, n & 0xff]);
  const b = Buffer.alloc(5);
  b[0] = (major << 5) | 26;
  b.writeUInt32BE(n, 1);
  return b;
}

export function cbor(v: Cbor): Buffer {
  if (v === null) return Buffer.from([0xf6]);
  if (typeof v === 'number') return v >= 0 ? head(0, v) : head(1, -1 - v);
  if (typeof v === 'string') {
    const b = Buffer.from(v, 'utf8');
    return Buffer.concat([head(3, b.length), b]);
  }
  if (v instanceof Uint8Array) return Buffer.concat([head(2, v.length), v]);
  if (Array.isArray(v)) return Buffer.concat([head(4, v.length), ...v.map(cbor)]);
  if (v instanceof Map) return Buffer.concat([head(5, v.size), ...[...v].flatMap(([k, x]) => [cbor(k), cbor(x)])]);
  return Buffer.concat([head(6, v.tag), cbor(v.value)]);
}

// ---- test PKI ----

export interface TestPki {
  /** PEM of the test root, to configure as `c2pa.trust_anchors`. */
  caPem: string;
  /** DER chain, end-entity first, as x5chain wants it. */
  chainDer: Buffer[];
  keyPem: string;
}

/**
 * A root CA and an end-entity signing certificate with the profile C2PA requires of a signer
 * (C2PA 2.x §14.5.1): X.509 v3, ECDSA P-256, keyUsage digitalSignature (critical), an EKU of
 * emailProtection, basicConstraints CA:FALSE, subject and authority key identifiers.
 */
export function makeTestPki(): TestPki {
  const dir = mkdtempSync(join(tmpdir(), 'verity-c2pa-pki-'));
  const ssl = (...args: string[]): void => {
    execFileSync('openssl', args, { cwd: dir, stdio: 'pipe' });
  };
  try {
    writeFileSync(
      join(dir, 'ext.cnf'),
      [
        '[ca]',
        'basicConstraints=critical,CA:TRUE',
        'keyUsage=critical,keyCertSign,cRLSign',
        'subjectKeyIdentifier=hash',
        '[ee]',
        'basicConstraints=critical,CA:FALSE',
        'keyUsage=critical,digitalSignature',
        'extendedKeyUsage=emailProtection',
        'subjectKeyIdentifier=hash',
        'authorityKeyIdentifier=keyid,issuer',
        '',
      ].join('\n'),
    );
    ssl('ecparam', '-name', 'prime256v1', '-genkey', '-noout', '-out', 'ca.key');
    ssl('req', '-new', '-x509', '-key', 'ca.key', '-out', 'ca.pem', '-days', '3650', '-subj', '/CN=verity test root/O=verity tests/C=US', '-sha256', '-extensions', 'ca', '-config', 'ext.cnf');
    ssl('ecparam', '-name', 'prime256v1', '-genkey', '-noout', '-out', 'ee.key');
    ssl('req', '-new', '-key', 'ee.key', '-out', 'ee.csr', '-subj', '/CN=verity test signer/O=verity tests/C=US', '-sha256', '-config', 'ext.cnf');
    ssl('x509', '-req', '-in', 'ee.csr', '-CA', 'ca.pem', '-CAkey', 'ca.key', '-CAcreateserial', '-out', 'ee.pem', '-days', '365', '-sha256', '-extfile', 'ext.cnf', '-extensions', 'ee');
    const caPem = readFileSync(join(dir, 'ca.pem'), 'utf8');
    const eePem = readFileSync(join(dir, 'ee.pem'), 'utf8');
    return {
      caPem,
      chainDer: [new X509Certificate(eePem).raw, new X509Certificate(caPem).raw],
      keyPem: readFileSync(join(dir, 'ee.key'), 'utf8'),
    };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

// ---- COSE_Sign1 signer for the builder ----

const COSE_ALG_ES256 = -7;
const HEADER_ALG = 1;
const HEADER_X5CHAIN = 33;
const TAG_COSE_SIGN1 = 18;

/**
 * Returns the tagged COSE_Sign1 over `claim` (detached payload), signed ES256 with `pki`, padded
 * to exactly `size` bytes. c2pa-rs reserves `reserveSize` bytes for the signature box before
 * hashing the asset and pads its own signatures to fit (an unprotected `pad` header of zeros);
 * on the direct-COSE path it embeds the callback's bytes as they are, so the callback must pad,
 * or the manifest shrinks and the data-hash exclusion no longer matches
 * (`assertion.dataHash.mismatch` on a freshly signed file).
 */
export function coseSign1(claim: Uint8Array, pki: TestPki, size?: number): Buffer {
  const protectedHeader = cbor(new Map<Cbor, Cbor>([[HEADER_ALG, COSE_ALG_ES256], [HEADER_X5CHAIN, pki.chainDer]]));
  // Sig_structure for COSE_Sign1 (RFC 9052 §4.4): context, protected, external_aad, payload.
  const toBeSigned = cbor(['Signature1', protectedHeader, new Uint8Array(0), claim]);
  // COSE carries ECDSA signatures as r‖s (IEEE P1363), not DER.
  const signature = cryptoSign('sha256', toBeSigned, { key: createPrivateKey(pki.keyPem), dsaEncoding: 'ieee-p1363' });
  const build = (pad: number | null): Buffer =>
    cbor({ tag: TAG_COSE_SIGN1, value: [protectedHeader, pad === null ? new Map() : new Map<Cbor, Cbor>([['pad', new Uint8Array(pad)]]), null, signature] });
  const bare = build(null);
  if (size === undefined || bare.length === size) return bare;
  // The pad entry's own overhead (key and length header) depends on its length: search upwards.
  for (let n = Math.max(0, size - bare.length - 12); n <= size - bare.length; n++) {
    const padded = build(n);
    if (padded.length === size) return padded;
  }
  throw new Error(`COSE signature (${bare.length} bytes) does not fit the ${size}-byte reserve`);
}

/**
 * The builder reads its source `Blob` with `FileReaderSync`, a browser-worker API Node does not
 * have (the reader has a bytes entry point; the builder does not in c2pa-wasm 0.13). Tests give it
 * a Blob that keeps its bytes and a FileReaderSync that returns them synchronously.
 */
class BytesBlob {
  constructor(readonly bytes: Uint8Array) {}
  get size(): number {
    return this.bytes.length;
  }
  slice(start?: number, end?: number): BytesBlob {
    return new BytesBlob(this.bytes.subarray(start ?? 0, end ?? this.bytes.length));
  }
}
function installFileReaderSync(): void {
  const g = globalThis as { FileReaderSync?: unknown };
  g.FileReaderSync ??= class {
    readAsArrayBuffer(blob: unknown): ArrayBuffer {
      if (!(blob instanceof BytesBlob)) throw new TypeError('test FileReaderSync reads only BytesBlob');
      return blob.bytes.slice().buffer;
    }
  };
}

type C2paModule = typeof import('@contentauth/c2pa-wasm');
let c2pa: Promise<C2paModule> | undefined;
function loadC2pa(): Promise<C2paModule> {
  c2pa ??= (async () => {
    const mod = await import('@contentauth/c2pa-wasm');
    mod.initSync({ module: readFileSync(createRequire(import.meta.url).resolve('@contentauth/c2pa-wasm/c2pa.wasm')) });
    return mod;
  })();
  return c2pa;
}

export interface SignOptions {
  title?: string;
  /** Actions for the c2pa.actions assertion; default: one c2pa.created with digitalCapture. */
  actions?: Array<Record<string, unknown>>;
}

/** Signs `asset` (of MIME type `format`) with a C2PA manifest using the test PKI; returns the signed file. */
export async function signWithTestCert(asset: Buffer, format: string, pki: TestPki, opts: SignOptions = {}): Promise<Buffer> {
  installFileReaderSync();
  const mod = await loadC2pa();
  const definition = {
    claim_generator_info: [{ name: 'verity-tests', version: '1.0' }],
    title: opts.title ?? 'test.jpg',
    format,
    assertions: [
      {
        label: 'c2pa.actions',
        data: {
          actions: opts.actions ?? [
            { action: 'c2pa.created', digitalSourceType: 'http://cv.iptc.org/newscodes/digitalsourcetype/digitalCapture' },
          ],
        },
      },
    ],
  };
  const builder = mod.WasmBuilder.fromJson(JSON.stringify(definition));
  try {
    const reserveSize = 4096 + pki.chainDer.reduce((n, c) => n + c.length, 0);
    const signer = {
      alg: 'es256',
      reserveSize,
      sign: async (claim: Uint8Array) => new Uint8Array(coseSign1(claim, pki, reserveSize)),
    };
    const out = await builder.sign(signer as never, [], format, new BytesBlob(new Uint8Array(asset)) as unknown as Blob);
    return Buffer.from(out);
  } finally {
    builder.free();
  }
}
