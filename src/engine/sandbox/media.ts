import type { MediaRequest } from '../../api/requests.js';
import type { Authenticity, MediaResult, Watermark } from '../../api/results.js';
import type { Computed } from '../types.js';
import { maybeUnavailable, sandboxTime, sandboxUrl, Seed, triggersIn } from './seed.js';

/** Format by magic bytes; the sandbox never decodes pixels. */
export function sniffFormat(b: Buffer): string {
  if (b.length >= 3 && b[0] === 0xff && b[1] === 0xd8 && b[2] === 0xff) return 'jpeg';
  if (b.subarray(0, 8).equals(Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]))) return 'png';
  if (b.subarray(0, 4).toString('latin1') === 'RIFF' && b.subarray(8, 12).toString('latin1') === 'WEBP') return 'webp';
  if (b.subarray(0, 3).toString('latin1') === 'GIF') return 'gif';
  if (b.subarray(4, 8).toString('latin1') === 'ftyp') {
    const brand = b.subarray(8, 12).toString('latin1');
    return /^(heic|heix|mif1)/.test(brand) ? 'heif' : brand === 'avif' ? 'avif' : brand.startsWith('qt') ? 'mov' : 'mp4';
  }
  return 'unknown';
}

function c2pa(state: Watermark['validation_state'], seed: Seed): Watermark {
  return {
    type: 'c2pa',
    validation_state: state,
    claim_generator: 'verity-sandbox/1.0',
    signer: 'Sandbox Test Signer',
    signed_at: sandboxTime(seed),
    actions: [{ action: 'c2pa.created', digital_source_type: 'http://cv.iptc.org/newscodes/digitalsourcetype/digitalCapture', software_agent: null, when: null }],
    ingredients: [],
    status:
      state === 'invalid'
        ? [{ code: 'assertion.dataHash.mismatch', explanation: 'sandbox: pixels changed after signing', kind: 'failure' }]
        : [{ code: 'claimSignature.validated', explanation: 'sandbox: signature valid', kind: 'success' }],
    remote_manifest_url: null,
  };
}

export function sandboxMedia(req: MediaRequest): Computed<MediaResult> {
  const bytes = req.file !== undefined ? Buffer.from(req.file, 'base64') : Buffer.alloc(0);
  const triggers = triggersIn(req.url ?? bytes.toString('latin1'));
  maybeUnavailable(triggers);
  const deepfake = triggers.has('deepfake');
  const order: Authenticity[] = ['likely_authentic', 'authentic', 'suspicious', 'manipulated'];
  const authenticity: Authenticity = deepfake ? 'manipulated' : (order.find((a) => triggers.has(a)) ?? 'likely_authentic');
  const seed = Seed.of({ kind: 'media', url: req.url ?? null, file: req.file ? Seed.of(req.file).hex(32) : null });
  const format = req.url ? (/\.(png|webp|gif|mp4|mov)(\?|$)/i.exec(req.url)?.[1]?.toLowerCase() ?? 'jpeg') : sniffFormat(bytes);
  const band: Record<Authenticity, [number, number, number, number]> = {
    authentic: [0.9, 0.98, 0.01, 0.05],
    likely_authentic: [0.7, 0.85, 0.05, 0.15],
    suspicious: [0.35, 0.55, 0.3, 0.55],
    manipulated: [0.05, 0.25, 0.55, 0.75],
  };
  const [tlo, thi, dlo, dhi] = band[authenticity];
  const evidence = [
    { source: 'sandbox', finding: `Simulated analysis (trigger: ${[...triggers].join(', ') || 'none'})`, authority_score: 0.5 },
  ];
  if (authenticity === 'suspicious') evidence.push({ source: 'editing_software', finding: 'Simulated: EXIF Software names an image editor', authority_score: 0.6 });
  if (authenticity === 'manipulated' && !deepfake)
    evidence.push({ source: 'c2pa', finding: 'Simulated: C2PA hard binding does not match the pixels', authority_score: 0.95 });
  if (deepfake) evidence.push({ source: 'ai_generator_metadata', finding: 'Simulated: metadata declares a generative model', authority_score: 0.9 });
  const seen = req.check_provenance ? sandboxTime(seed, 900) : null;
  return {
    trust_score: seed.between(tlo, thi),
    authenticity,
    deepfake_score: deepfake ? seed.between(0.9, 0.98) : seed.between(dlo, dhi),
    provenance: seen ? [{ url: sandboxUrl('seen', seed), first_seen: seen, source: 'news' }] : [],
    provenance_source: seen ? 'news' : null,
    watermark: !req.check_watermarks
      ? null
      : authenticity === 'authentic'
        ? c2pa('trusted', seed)
        : authenticity === 'manipulated' && !deepfake
          ? c2pa('invalid', seed)
          : null,
    metadata: {
      width: seed.pick([1280, 1920, 3024, 4032]),
      height: seed.pick([720, 1080, 3024]),
      format,
      exif: {
        make: authenticity === 'likely_authentic' || authenticity === 'authentic' ? 'SandboxCam' : null,
        model: authenticity === 'likely_authentic' || authenticity === 'authentic' ? 'S1' : null,
        datetime_original: authenticity === 'likely_authentic' ? '2025:06:01 10:30:00' : null,
        gps: null,
      },
    },
    evidence,
    dimensions: {
      source_authority: seed.between(0.4, 0.9),
      cross_reference: seen ? seed.between(0.5, 0.8) : 0,
      recency: seed.between(0.4, 0.9),
      llm_analysis: 0.5,
    },
    dimension_producers: { llm_analysis: 'simulated analysis' },
    warnings: ['sandbox: simulated data (test mode); metadata is simulated, the file was not decoded'],
  };
}
