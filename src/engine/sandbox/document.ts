import type { DocumentRequest } from '../../api/requests.js';
import { MANIPULATION_FLAGS } from '../../api/enums.js';
import type { DocumentResult } from '../../api/results.js';
import type { Computed } from '../types.js';
import { maybeUnavailable, Seed, triggersIn } from './seed.js';

const PRODUCERS = ['Microsoft® Word for Microsoft 365', 'Adobe PDF Library 23.1', 'LibreOffice 7.6', 'macOS Quartz PDFContext'];

export function sandboxDocument(req: DocumentRequest): Computed<DocumentResult> {
  const text = req.source === 'upload' ? Buffer.from(req.content, 'base64').toString('latin1') : req.content;
  const triggers = triggersIn(text);
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
    metadata: {
      author: req.source === 'raw' ? null : seed.pick(['J. Smith', 'Finance Team', null]),
      created_at: req.source === 'raw' ? null : '2025-03-14T09:26:53Z',
      producer: req.source === 'raw' ? 'raw text' : seed.pick(PRODUCERS),
      page_count: req.source === 'raw' ? 1 : seed.int(1, 12),
    },
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
    warnings: ['sandbox: simulated data (test mode); the document was not analysed'],
  };
}
