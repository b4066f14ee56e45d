/**
 * C2PA (Content Credentials) reader: @contentauth/c2pa-wasm, the Content Authenticity Initiative's
 * own c2pa-rs compiled to WebAssembly, turned into our `Watermark` summary (src/api/results.ts).
 *
 * Shared by media and document analysis (one module, not a copy): it reads JPEG, PNG, WebP, TIFF,
 * GIF, HEIC/HEIF/AVIF, MP4/MOV and PDF.
 *
 * Offline by design: remote manifest fetching is switched off in the reader's context, so a file
 * whose manifest lives on a server is reported `unreadable` with its `remote_manifest_url` instead
 * of being fetched. Without configured trust anchors a cryptographically valid manifest is `valid`
 * ("signer unknown"); with anchors that chain to the signer it is `trusted`.
 */
import { readFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { VerityError } from '../../api/errors.js';
import type { Watermark } from '../../api/results.js';

type C2paModule = typeof import('@contentauth/c2pa-wasm');

let loaded: Promise<C2paModule> | undefined;

/**
 * Loads, compiles and instantiates the wasm once per process (the compiled module and instance are
 * kept; every later read reuses them). It is ~9 MB, so never on the start-up path. Compiled with
 * the asynchronous `WebAssembly.compile`, which V8 runs off the main thread, so the first
 * analysis decodes pixels and parses metadata while the reader compiles (`initSync` blocked the
 * event loop for ~40–100 ms).
 */
export function loadC2pa(): Promise<C2paModule> {
  loaded ??= (async () => {
    const wasmPath = createRequire(import.meta.url).resolve('@contentauth/c2pa-wasm/c2pa.wasm');
    const [mod, bytes] = await Promise.all([import('@contentauth/c2pa-wasm'), readFile(wasmPath)]);
    // The project's TypeScript lib has no WebAssembly typings; Node provides the global.
    const { WebAssembly: wasmApi } = globalThis as unknown as { WebAssembly: { compile(b: Uint8Array): Promise<object> } };
    const compiled = await wasmApi.compile(bytes);
    await mod.default({ module_or_path: compiled });
    return mod;
  })();
  loaded.catch(() => {
    loaded = undefined;
  });
  return loaded;
}

/** MIME types the reader accepts, by the names c2pa-rs knows them under. */
const READER_FORMATS: Record<string, string> = {
  'image/jpeg': 'image/jpeg',
  'image/png': 'image/png',
  'image/webp': 'image/webp',
  'image/tiff': 'image/tiff',
  'image/gif': 'image/gif',
  'image/heic': 'image/heic',
  'image/heif': 'image/heif',
  'image/avif': 'image/avif',
  'video/mp4': 'video/mp4',
  'video/quicktime': 'video/quicktime',
  'image/svg+xml': 'image/svg+xml',
  'application/pdf': 'application/pdf',
  'audio/mpeg': 'audio/mpeg',
  'audio/wav': 'audio/wav',
  'audio/x-wav': 'audio/wav',
};

export const c2paReadableTypes = (): string[] => Object.keys(READER_FORMATS);

/**
 * Integrity failures of an ingredient's own manifest. c2pa-rs re-validates an ingredient manifest
 * only when it no longer matches the hash the citing claim recorded (C2PA 2.x, ingredient
 * validation), and lists under `ingredientDeltas` what differs from the status the ingredient
 * assertion recorded. Such a failure the ingredient did not already record means its manifest was
 * changed after the ACTIVE claim bound it: that claim's hashed URI to it fails (rule M3b).
 */
const INGREDIENT_CHANGED = /^(assertion\.hashedURI\.mismatch|assertion\.[A-Za-z]+Hash\.mismatch|claimSignature\.mismatch|assertion\.missing|claim\.missing)$/;

/** Successes worth showing; the dozens of per-assertion `hashedURI.match` lines are noise to a reader. */
const NOTABLE_SUCCESS = new Set([
  'claimSignature.validated',
  'signingCredential.trusted',
  'assertion.dataHash.match',
  'assertion.bmffHash.match',
  'assertion.boxesHash.match',
  'timeStamp.validated',
  'timeStamp.trusted',
]);

export interface RawStatus {
  code?: unknown;
  explanation?: unknown;
  url?: unknown;
}
export interface RawResults {
  success?: RawStatus[];
  informational?: RawStatus[];
  failure?: RawStatus[];
}
export interface RawIngredient {
  title?: unknown;
  format?: unknown;
  relationship?: unknown;
  active_manifest?: unknown;
  validation_status?: RawStatus[];
  validation_results?: { activeManifest?: RawResults };
}
export interface RawManifest {
  claim_generator?: unknown;
  claim_generator_info?: Array<{ name?: unknown; version?: unknown }>;
  assertions?: Array<{ label?: unknown; data?: unknown }>;
  ingredients?: RawIngredient[];
  signature_info?: { issuer?: unknown; common_name?: unknown; time?: unknown };
}
export interface RawStore {
  active_manifest?: unknown;
  manifests?: Record<string, RawManifest>;
  validation_state?: unknown;
  validation_status?: RawStatus[];
  validation_results?: {
    activeManifest?: RawResults;
    ingredientDeltas?: Array<{ ingredientAssertionURI?: unknown; validationDeltas?: RawResults }>;
  };
}

const str = (v: unknown): string | null => (typeof v === 'string' && v.length > 0 ? v : null);

/** A JS `softwareAgent` is a plain string (actions v1) or `{ name, version }` (actions v2). */
function agentName(v: unknown): string | null {
  if (typeof v === 'string') return v || null;
  if (v && typeof v === 'object') {
    const o = v as { name?: unknown; version?: unknown };
    const name = str(o.name);
    const version = str(o.version);
    return name ? (version ? `${name} ${version}` : name) : null;
  }
  return null;
}

function claimGenerator(m: RawManifest): string | null {
  const direct = str(m.claim_generator);
  if (direct) return direct;
  const parts = (m.claim_generator_info ?? [])
    .map((i) => {
      const n = str(i.name);
      const v = str(i.version);
      return n ? (v ? `${n}/${v}` : n) : null;
    })
    .filter((s): s is string => s !== null);
  return parts.length ? parts.join(' ') : null;
}

function actionsOf(m: RawManifest): Watermark['actions'] {
  const out: Watermark['actions'] = [];
  for (const a of m.assertions ?? []) {
    const label = str(a.label);
    if (!label || !/^c2pa\.actions(\.v\d+)?$/.test(label)) continue;
    const list = (a.data as { actions?: unknown } | undefined)?.actions;
    if (!Array.isArray(list)) continue;
    for (const raw of list as Array<Record<string, unknown>>) {
      const action = str(raw.action);
      if (!action) continue;
      const params = (raw.parameters ?? {}) as Record<string, unknown>;
      out.push({
        action,
        digital_source_type: str(raw.digitalSourceType) ?? str(params.digitalSourceType),
        software_agent: agentName(raw.softwareAgent),
        when: str(raw.when),
      });
    }
  }
  return out;
}

function ingredientState(i: RawIngredient): string | null {
  const failures = [
    ...(i.validation_results?.activeManifest?.failure ?? []),
    ...(i.validation_status ?? []),
  ]
    .map((s) => str(s.code))
    .filter((c): c is string => c !== null && c !== 'signingCredential.untrusted');
  if (failures.length) return 'invalid';
  if (i.active_manifest) return 'valid';
  return null;
}

function ingredientsOf(m: RawManifest): Watermark['ingredients'] {
  return (m.ingredients ?? []).map((i) => ({
    title: str(i.title),
    format: str(i.format),
    relationship: str(i.relationship),
    validation_state: ingredientState(i),
  }));
}

/**
 * The validation state and status list, mapped from c2pa-rs's `validation_results` so that the
 * verdict equals c2patool's where the two agree on the facts (docs/media.md "C2PA mapping rules"):
 *
 * M1. `activeManifest.failure` entries are failures of the manifest.
 * M2. `assertion.dataHash.mismatch` whose explanation is about the exclusion range ("data hash
 *     exclusion does not match the manifest location") while the SAME assertion (same `url`) also
 *     has `assertion.dataHash.match` is not tampering: the hashed bytes are unchanged; the signer's
 *     exclusion is wider than the manifest store, so the bytes it also covers (usually EXIF) are
 *     not bound by the signature. It is kept, as informational, with that explanation.
 * M3. A failure under `ingredientDeltas[].validationDeltas` belongs to the manifest its own `url`
 *     names (`ingredientAssertionURI` names the parent that cites the ingredient): a failure whose
 *     url names the ACTIVE manifest (e.g. an `assertion.hashedURI.mismatch` of one of its
 *     assertions) is a failure of the active manifest; the rest are the ingredient's own,
 *     informational (an ingredient's bad signature does not invalidate the manifest citing it).
 * M3b. Except an integrity failure (hashed URI, content hash, claim signature) of a manifest the
 *     ACTIVE manifest cites as an ingredient, filed under the active manifest's ingredient delta,
 *     that the ingredient assertion did not record when it was added: the ingredient manifest was
 *     changed after the active claim bound it by hash, so the active claim's own hashed URI to it
 *     no longer matches. c2patool (0.x) reports these on the active manifest; so do we
 *     (`adobe-20220124-E-uri-CIE-sig-CA.jpg`: the ingredient's `c2pa.actions` box was altered; an
 *     independent hash check shows the active claim's `c2pa_manifest` reference fails while all
 *     of its own assertion hashes match).
 * M4. `signingCredential.untrusted` is informational when nothing else fails: it means "no trust
 *     anchor for this signer" (valid, signer unknown), not tampering.
 * M5. State: any failure after M1–M4 → invalid. Otherwise c2pa-rs's Trusted/Valid stands; an
 *     Invalid whose only failures were re-filed by M2 becomes valid (trusted when c2pa-rs also
 *     reported `signingCredential.trusted`); an Invalid with no failure we can see stays invalid.
 * Notable successes are listed; the dozens of per-assertion `hashedURI.match` lines are not.
 */
export function summarizeValidation(store: RawStore, activeLabel: string): { state: 'trusted' | 'valid' | 'invalid'; status: Watermark['status'] } {
  const rawState = str(store.validation_state) ?? 'Invalid';
  const active = store.validation_results?.activeManifest;
  type Item = { s: RawStatus; kind: Watermark['status'][number]['kind']; note?: string };
  const items: Item[] = [];
  const matchedUrls = new Set((active?.success ?? []).filter((x) => x.code === 'assertion.dataHash.match').map((x) => str(x.url)).filter(Boolean));
  let refiled = 0;
  for (const f of active?.failure ?? []) {
    const exclusionOnly = f.code === 'assertion.dataHash.mismatch' && /exclusion/i.test(String(f.explanation ?? '')) && matchedUrls.has(str(f.url));
    if (exclusionOnly) {
      refiled++;
      items.push({ s: f, kind: 'informational', note: 'not tampering: the same data hash matches; the exclusion range is wider than the manifest store, so the bytes it also covers (e.g. EXIF) are not bound by the signature — ' });
    } else items.push({ s: f, kind: 'failure' });
  }
  const namesActive = (url: string | null): boolean => !!url && (url.includes(`/c2pa/${activeLabel}/`) || url.endsWith(`/c2pa/${activeLabel}`));
  const deltaItems: Item[] = [];
  // M3b: what each ingredient the ACTIVE manifest cites recorded about itself when it was added.
  const recorded = new Map<string, Set<string>>();
  for (const ing of store.manifests?.[activeLabel]?.ingredients ?? []) {
    const l = str(ing.active_manifest);
    if (l) recorded.set(l, new Set([...(ing.validation_status ?? []), ...(ing.validation_results?.activeManifest?.failure ?? [])].map((x) => String(x.code))));
  }
  for (const d of store.validation_results?.ingredientDeltas ?? [])
    for (const f of d.validationDeltas?.failure ?? []) {
      const url = str(f.url);
      const owner = /\/c2pa\/([^/]+)/.exec(url ?? '')?.[1] ?? null;
      if (namesActive(url)) items.push({ s: f, kind: 'failure', note: 'active manifest (filed by c2pa-rs under an ingredient delta): ' });
      else if (
        namesActive(str(d.ingredientAssertionURI)) && owner && recorded.has(owner)
        && INGREDIENT_CHANGED.test(String(f.code)) && !recorded.get(owner)!.has(String(f.code))
      )
        items.push({
          s: f,
          kind: 'failure',
          note: `active manifest: the ingredient manifest ${owner} no longer matches the hash the active claim's ingredient assertion binds it by (it was changed after the active manifest was signed); c2pa-rs files what changed under the ingredient — `,
        });
      else deltaItems.push({ s: f, kind: 'informational', note: 'ingredient: ' });
    }
  // Older readers only fill validation_status.
  if (!active) for (const f of store.validation_status ?? []) items.push({ s: f, kind: rawState === 'Invalid' ? 'failure' : 'informational' });

  const hard = items.filter((i) => i.kind === 'failure' && i.s.code !== 'signingCredential.untrusted');
  const trustedSeen = (active?.success ?? []).some((x) => x.code === 'signingCredential.trusted');
  const state: 'trusted' | 'valid' | 'invalid' =
    hard.length ? 'invalid'
      : rawState === 'Trusted' ? 'trusted'
      : rawState === 'Valid' ? 'valid'
      : refiled > 0 ? (trustedSeen ? 'trusted' : 'valid')
      : 'invalid';
  for (const i of items) if (i.s.code === 'signingCredential.untrusted' && state !== 'invalid') i.kind = 'informational';

  const out: Watermark['status'] = [];
  const seen = new Set<string>();
  const push = (i: Item): void => {
    const code = str(i.s.code);
    if (!code) return;
    const key = `${i.kind}:${i.note ?? ''}${code}:${str(i.s.url) ?? ''}`;
    if (seen.has(key)) return;
    seen.add(key);
    const explanation = str(i.s.explanation);
    out.push({ code, explanation: i.note ? `${i.note}${explanation ?? code}` : explanation, kind: i.kind });
  };
  for (const i of items) if (i.kind === 'failure') push(i);
  for (const i of items) if (i.kind !== 'failure') push(i);
  for (const s of active?.informational ?? []) push({ s, kind: 'informational' });
  for (const s of active?.success ?? []) if (NOTABLE_SUCCESS.has(String(s.code))) push({ s, kind: 'success' });
  for (const i of deltaItems) push(i);
  return { state, status: out };
}

function unreadable(code: string, explanation: string, remoteUrl: string | null = null): Watermark {
  return {
    type: 'c2pa',
    validation_state: 'unreadable',
    claim_generator: null,
    signer: null,
    signed_at: null,
    actions: [],
    ingredients: [],
    status: [{ code, explanation, kind: 'failure' }],
    remote_manifest_url: remoteUrl,
  };
}

/** Maps c2pa-rs's reader errors: "no manifest" is null; a manifest we cannot verify is `unreadable`. */
function fromReaderError(message: string, hasC2paBytes: boolean): Watermark | null {
  if (/JumbfNotFound|ProvenanceMissing|UnsupportedType|NotFound\b/.test(message)) return null;
  const remote = /RemoteManifestUrl\("([^"]*)"\)/.exec(message);
  if (remote || /RemoteManifest/.test(message))
    return unreadable(
      'manifest.remote',
      'the manifest is stored remotely; not fetched because verification runs offline',
      remote?.[1] ?? null,
    );
  if (/UnknownAlgorithm|UnsupportedAlgorithm/i.test(message))
    return unreadable('algorithm.unsupported', 'the manifest is signed with an algorithm this reader does not support');
  if (/Prerelease/i.test(message))
    return unreadable('manifest.prerelease', 'the manifest uses a pre-release C2PA format that cannot be verified');
  // A container c2pa-rs cannot walk (e.g. a truncated PNG: "PNG out of range") says nothing about
  // a manifest: only when C2PA data is visibly there (a JUMBF box, a PNG caBX chunk) is it one.
  if (/InvalidAsset/.test(message) && !hasC2paBytes) return null;
  if (/InvalidAsset|Jumbf|Cbor|Claim|Manifest|Assertion|Signature|Cose/i.test(message))
    return unreadable('manifest.unreadable', `the C2PA data could not be parsed: ${message.slice(0, 160)}`);
  // An asset the reader cannot parse at all (e.g. truncated container): no manifest can be read.
  return null;
}

/** Markers every embedded manifest store (a JUMBF `jumb` box, `c2pa` labels) or remote reference (XMP `dcterms:provenance`) shows in the clear. */
const C2PA_MARKERS = ['jumb', 'c2pa', 'C2PA', 'caBX', 'provenance'];

/**
 * Whether c2pa-rs could find a manifest (embedded or remote) in an image, decided by a byte scan so
 * the wasm reader (~40 ms to compile, plus its walk of the file) starts only where it can find one.
 * Only for containers whose manifest and XMP are stored uncompressed and unsplit: JPEG (any APP11
 * segment counts, a damaged JUMBF box may lack its `jumb`), PNG (compressed iTXt/zTXt text may hide
 * an XMP packet: those count), WebP and TIFF. Every other type (PDF: pdf/c2pa-scan.ts decides
 * before calling; GIF splits data into sub-blocks; BMFF, audio, SVG) is always read.
 *
 * The compressed pixels are left out of the scan (metadataRanges): they are most of the file (a
 * 4K PNG's 15 MB: seven scans of it cost ~20 ms) and no manifest or XMP packet can be inside them.
 */
export function mayCarryC2pa(bytes: Buffer, format: string): boolean {
  const scanned = ['image/jpeg', 'image/png', 'image/webp', 'image/tiff'];
  if (!scanned.includes(format)) return true;
  return metadataRanges(bytes, format).some(([from, to]) => {
    const part = bytes.subarray(from, to);
    if (C2PA_MARKERS.some((m) => part.includes(m, 0, 'latin1'))) return true;
    if (format === 'image/jpeg') return part.includes(APP11);
    if (format === 'image/png') return part.includes('iTXt', 0, 'latin1') || part.includes('zTXt', 0, 'latin1');
    return false;
  });
}

/**
 * The byte ranges of a file that can hold a manifest, a remote-manifest reference or the text
 * chunks that may hide one: the whole file except its compressed pixels, where those can be told
 * apart by structure alone.
 * - PNG: every chunk but IDAT (whose type and length are read, never its data), and whatever
 *   follows IEND or a chunk that does not parse (scanned as it is).
 * - JPEG: everything before the first SOS and from the first EOI after it. The entropy-coded data
 *   between can hold no marker but RSTn (every FF in it is stuffed, ITU T.81 F.1.2.3), so an FF E1
 *   (APP1: XMP) or FF EB (APP11: JUMBF) there means segments between scans (progressive, or a
 *   file that breaks the rule): it is then scanned too.
 * Anything else (other types, a structure that does not parse): the whole file.
 */
function metadataRanges(bytes: Buffer, format: string): Array<[number, number]> {
  const all: Array<[number, number]> = [[0, bytes.length]];
  if (format === 'image/png') {
    if (bytes.length < 8 || bytes.readUInt32BE(0) !== 0x89504e47) return all;
    const ranges: Array<[number, number]> = [];
    let from = 0;
    let at = 8;
    while (at + 8 <= bytes.length) {
      const len = bytes.readUInt32BE(at);
      const end = at + 12 + len;
      if (len > 0x7fffffff || end > bytes.length) break;
      const type = bytes.readUInt32BE(at + 4);
      if (type === IDAT) {
        if (at > from) ranges.push([from, at]);
        from = end;
      }
      at = end;
      if (type === IEND) break;
    }
    ranges.push([from, bytes.length]);
    return ranges;
  }
  if (format === 'image/jpeg') {
    const sos = firstScan(bytes);
    if (sos < 0) return all;
    const eoiAt = bytes.indexOf(EOI, sos);
    const entropyEnd = eoiAt < 0 ? bytes.length : eoiAt;
    const entropy = bytes.subarray(sos, entropyEnd);
    if (entropy.includes(APP1) || entropy.includes(APP11)) return all;
    return [[0, sos], [entropyEnd, bytes.length]];
  }
  return all;
}

/** Offset of a JPEG's first SOS marker, by its segment lengths; −1 when the walk fails first. */
function firstScan(bytes: Buffer): number {
  if (bytes.length < 4 || bytes[0] !== 0xff || bytes[1] !== 0xd8) return -1;
  let i = 2;
  while (i + 4 <= bytes.length) {
    if (bytes[i] !== 0xff) return -1;
    const marker = bytes[i + 1]!;
    if (marker === 0xff) {
      i++; // fill byte
      continue;
    }
    if (marker === 0xda) return i;
    if (marker === 0xd9 || (marker >= 0xd0 && marker <= 0xd7) || marker === 0x01) return -1;
    i += 2 + bytes.readUInt16BE(i + 2);
  }
  return -1;
}
const IDAT = 0x49444154;
const IEND = 0x49454e44;
const EOI = Buffer.from([0xff, 0xd9]);
const APP1 = Buffer.from([0xff, 0xe1]);
const APP11 = Buffer.from([0xff, 0xeb]);

export interface ReadC2paOptions {
  /** PEM bundle of trust anchors (c2pa `trust.trust_anchors`); none → valid signers are "unknown". */
  trustAnchorsPem?: string;
  signal?: AbortSignal;
}

/**
 * Reads and validates the C2PA manifest store of `bytes` (typed by `mimeType`, from magic bytes).
 * Returns null when the file carries no manifest or its type cannot carry one. Never throws for a
 * malformed, remote, pre-release or unknown-algorithm manifest: those come back `unreadable`.
 * Throws only VerityError('UNAVAILABLE') if the wasm reader itself cannot be loaded.
 */
export async function readC2pa(bytes: Buffer, mimeType: string, opts: ReadC2paOptions = {}): Promise<Watermark | null> {
  const format = READER_FORMATS[mimeType.toLowerCase()];
  if (!format) return null;
  opts.signal?.throwIfAborted();
  if (!mayCarryC2pa(bytes, format)) return null;
  let mod: C2paModule;
  try {
    mod = await loadC2pa();
  } catch (err) {
    throw new VerityError('UNAVAILABLE', 'the C2PA reader (c2pa-wasm) could not be loaded', { cause: err });
  }
  const context: Record<string, unknown> = {
    verify: { remote_manifest_fetch: false, verify_trust: true, ocsp_fetch: false },
  };
  if (opts.trustAnchorsPem) context.trust = { trust_anchors: opts.trustAnchorsPem };

  let store: RawStore;
  try {
    const reader = await mod.WasmReader.fromBytes(format, new Uint8Array(bytes.buffer, bytes.byteOffset, bytes.byteLength), JSON.stringify(context));
    try {
      store = JSON.parse(reader.json()) as RawStore;
    } finally {
      reader.free();
    }
  } catch (err) {
    const message = typeof err === 'string' ? err : err instanceof Error ? err.message : String(err);
    return fromReaderError(message, bytes.includes('jumb') || bytes.includes('caBX'));
  }
  opts.signal?.throwIfAborted();

  const label = str(store.active_manifest);
  const manifest = label ? store.manifests?.[label] : undefined;
  if (!manifest) return null;
  const summary = summarizeValidation(store, label!);
  const sig = manifest.signature_info ?? {};
  return {
    type: 'c2pa',
    validation_state: summary.state,
    claim_generator: claimGenerator(manifest),
    signer: str(sig.issuer) ?? str(sig.common_name),
    signed_at: str(sig.time),
    actions: actionsOf(manifest),
    ingredients: ingredientsOf(manifest),
    status: summary.status,
    remote_manifest_url: null,
  };
}

/** IPTC digital source types (https://cv.iptc.org/newscodes/digitalsourcetype/) that declare AI. */
export const AI_SOURCE_TYPES = {
  trainedAlgorithmicMedia: 0.97,
  compositeWithTrainedAlgorithmicMedia: 0.85,
  algorithmicMedia: 0.6,
  compositeSynthetic: 0.6,
} as const;

/** The short IPTC name at the end of a digitalSourceType URI, e.g. `trainedAlgorithmicMedia`. */
export const sourceTypeName = (uri: string): string => uri.replace(/\/+$/, '').split('/').pop() ?? uri;
