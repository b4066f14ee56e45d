import type { DocumentRequest } from '../../api/requests.js';
import { MANIPULATION_FLAGS } from '../../api/enums.js';
import type { DocumentResult } from '../../api/results.js';
import type { Computed } from '../types.js';
import { documentFacts } from './file-facts.js';
import { fileDigest } from '../file-digest.js';
import { maybeUnavailable, Seed, triggersIn } from './seed.js';


export async function sandboxDocument(req: DocumentRequest): Promise<Computed<DocumentResult>> {
  const bytes = req.source === 'upload' ? Buffer.from(req.content, 'base64') : null;
  const text = bytes ? bytes.toString('latin1') : req.content;
  // `#flag` only in text a person typed; in a file's bytes or a URL only `verity-sandbox:flag`.
  const triggers = triggersIn(text, MANIPULATION_FLAGS, { hashtags: req.source === 'raw' });
  maybeUnavailable(triggers);
  const flags = MANIPULATION_FLAGS.filter((f) => triggers.has(f));
  const seed = Seed.of({ kind: 'document', source: req.source, content: Seed.of(req.content).hex(32) });
  const ai = flags.includes('ai_generated_text');
  const trust = flags.length === 0 ? seed.between(0.75, 0.95) : Math.max(0.05, seed.between(0.55, 0.7) - 0.12 * flags.length);
  return {
    trust_score: Math.round(trust * 1000) / 1000,
    ai_generated_probability: ai ? seed.between(0.85, 0.97) : seed.between(0.03, 0.2),
    manipulation_flags: flags,
    watermark: null,
    // Real facts of an uploaded file; raw text is one page; a URL is not fetched (no network).
    metadata: bytes
      ? await documentFacts(bytes)
      : req.source === 'raw'
        ? { author: null, created_at: null, producer: 'raw text', page_count: 1 }
        : { author: null, created_at: null, producer: 'unknown (URL not fetched)', page_count: 0 },
    ...(bytes ? { file: fileDigest(bytes) } : {}),
    evidence: [
      { source: 'sandbox', finding: `Simulated analysis (triggers: ${[...triggers].join(', ') || 'none'})`, authority_score: 0.5 },
      ...flags.map((f) => ({ source: f, finding: `Simulated finding for trigger ${f}`, authority_score: 0.8 })),
    ],
    dimensions: {
      source_authority: seed.between(0.5, 0.9),
      cross_reference: seed.between(0.4, 0.8),
      recency: seed.between(0.5, 0.9),
      llm_analysis: 0.5,
    },
    dimension_producers: { llm_analysis: 'simulated analysis' },
    warnings: [
      bytes
        ? "sandbox: simulated data (test mode); the flags and scores are simulated; the file's page count, producer and author are real"
        : 'sandbox: simulated data (test mode); the document was not analysed',
    ],
  };
}
