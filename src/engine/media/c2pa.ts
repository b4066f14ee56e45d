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

interface RawStatus {
  code?: unknown;
  explanation?: unknown;
  url?: unknown;
}
interface RawResults {
  success?: RawStatus[];
  informational?: RawStatus[];
  failure?: RawStatus[];
}
interface RawIngredient {
  title?: unknown;
  format?: unknown;
  relationship?: unknown;
  active_manifest?: unknown;
  validation_status?: RawStatus[];
  validation_results?: { activeManifest?: RawResults };
}
interface RawManifest {
  claim_generator?: unknown;
  claim_generator_info?: Array<{ name?: unknown; version?: unknown }>;
  assertions?: Array<{ label?: unknown; data?: unknown }>;
  ingredients?: RawIngredient[];
  signature_info?: { issuer?: unknown; common_name?: unknown; time?: unknown };
}
interface RawStore {
  active_manifest?: unknown;
  manifests?: Record<string, RawManifest>;
  validation_state?: unknown;
  validation_status?: RawStatus[];
  validation_results?: {
    activeManifest?: RawResults;
    ingredientDeltas?: Array<{ uri?: unknown; validationDeltas?: RawResults }>;
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
 * Status list: the active manifest's failures and informational codes, notable successes, and
 * ingredients' failures as informational (an ingredient's bad signature does not invalidate the
 * manifest that cites it; c2pa-rs reports it as a delta). `signingCredential.untrusted` on a
 * manifest c2pa-rs still calls Valid means "no trust anchor for this signer", not tampering.
 */
function statusesOf(store: RawStore, state: string): Watermark['status'] {
  const out: Watermark['status'] = [];
  const seen = new Set<string>();
  const push = (s: RawStatus, kind: Watermark['status'][number]['kind'], prefix = ''): void => {
    const code = str(s.code);
    if (!code) return;
    const key = `${kind}:${prefix}${code}`;
    if (seen.has(key)) return;
    seen.add(key);
    const explanation = str(s.explanation);
    out.push({ code, explanation: prefix ? `${prefix}${explanation ?? code}` : explanation, kind });
  };
  const active = store.validation_results?.activeManifest;
  for (const s of active?.failure ?? []) {
    const untrustedOnly = str(s.code) === 'signingCredential.untrusted' && state !== 'Invalid';
    push(s, untrustedOnly ? 'informational' : 'failure');
  }
  for (const s of active?.informational ?? []) push(s, 'informational');
  for (const s of active?.success ?? []) if (NOTABLE_SUCCESS.has(String(s.code))) push(s, 'success');
  for (const d of store.validation_results?.ingredientDeltas ?? [])
    for (const s of d.validationDeltas?.failure ?? []) push(s, 'informational', 'ingredient: ');
  // Older readers only fill validation_status.
  if (!active) for (const s of store.validation_status ?? []) push(s, state === 'Invalid' ? 'failure' : 'informational');
  return out;
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
function fromReaderError(message: string): Watermark | null {
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
  if (/InvalidAsset|Jumbf|Cbor|Claim|Manifest|Assertion|Signature|Cose/i.test(message))
    return unreadable('manifest.unreadable', `the C2PA data could not be parsed: ${message.slice(0, 160)}`);
  // An asset the reader cannot parse at all (e.g. truncated container): no manifest can be read.
  return null;
}

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
    return fromReaderError(message);
  }
  opts.signal?.throwIfAborted();

  const label = str(store.active_manifest);
  const manifest = label ? store.manifests?.[label] : undefined;
  if (!manifest) return null;
  const rawState = str(store.validation_state) ?? 'Invalid';
  const validation_state: Watermark['validation_state'] =
    rawState === 'Trusted' ? 'trusted' : rawState === 'Valid' ? 'valid' : 'invalid';
  const sig = manifest.signature_info ?? {};
  return {
    type: 'c2pa',
    validation_state,
    claim_generator: claimGenerator(manifest),
    signer: str(sig.issuer) ?? str(sig.common_name),
    signed_at: str(sig.time),
    actions: actionsOf(manifest),
    ingredients: ingredientsOf(manifest),
    status: statusesOf(store, rawState),
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
