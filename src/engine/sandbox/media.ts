import type { MediaRequest } from '../../api/requests.js';
import type { Authenticity, MediaResult, Watermark } from '../../api/results.js';
import type { Computed } from '../types.js';
import { AUTHENTICITIES } from '../../api/enums.js';
import { mediaFacts } from './file-facts.js';
import { maybeUnavailable, sandboxTime, sandboxUrl, Seed, triggersIn } from './seed.js';

export { sniffFormat } from './file-facts.js';
import { fileDigest } from '../file-digest.js';

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

export async function sandboxMedia(req: MediaRequest): Promise<Computed<MediaResult>> {
  const bytes = req.file !== undefined ? Buffer.from(req.file, 'base64') : Buffer.alloc(0);
  const triggers = triggersIn(req.url ?? bytes.toString('latin1'), [...AUTHENTICITIES, 'deepfake'], { hashtags: false });
  maybeUnavailable(triggers);
  const deepfake = triggers.has('deepfake');
  const order: Authenticity[] = ['likely_authentic', 'authentic', 'suspicious', 'manipulated'];
  const authenticity: Authenticity = deepfake ? 'manipulated' : (order.find((a) => triggers.has(a)) ?? 'likely_authentic');
  const seed = Seed.of({ kind: 'media', url: req.url ?? null, file: req.file ? Seed.of(req.file).hex(32) : null });
  // A file's real facts are read (type, size, camera metadata); a URL is not fetched (no
  // network), so its size and metadata are unknown rather than made up.
  const metadata: MediaResult['metadata'] = req.url
    ? {
        format: /\.(jpe?g|png|webp|gif|mp4|mov)(\?|$)/i.exec(req.url)?.[1]?.toLowerCase().replace('jpg', 'jpeg') ?? 'unknown',
        width: 0,
        height: 0,
        exif: { make: null, model: null, datetime_original: null, gps: null },
      }
    : await mediaFacts(bytes);
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
    metadata,
    evidence,
    ...(req.file !== undefined ? { file: fileDigest(bytes) } : {}),
    dimensions: {
      source_authority: seed.between(0.4, 0.9),
      cross_reference: seen ? seed.between(0.5, 0.8) : 0,
      recency: seed.between(0.4, 0.9),
      llm_analysis: 0.5,
    },
    dimension_producers: { llm_analysis: 'simulated analysis' },
    warnings: [
      req.url
        ? 'sandbox: simulated data (test mode); the verdict and scores are simulated and the URL was not fetched'
        : "sandbox: simulated data (test mode); the verdict and scores are simulated; the file's type, size and metadata are real",
    ],
  };
}
