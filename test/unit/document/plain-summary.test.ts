/** Document evidence: flagged findings carry a plain-language summary (issue 14 item 2). */
import { readFileSync } from 'node:fs';
import { expect, it } from 'vitest';
import { createEngine } from '../../../src/engine/index.js';
import { plainFindingSummary } from '../../../src/engine/document/report.js';
import { describeFixtures, fixture } from '../../helpers/fixtures.js';
import { b64, testPorts } from './build.js';

it('a flagged finding is summarised by its flag; an informational one keeps its own text; a carried summary wins', () => {
  expect(plainFindingSummary({ source: 'pdf_signature', finding: 'signature 12 0 obj: object 7 changed after signing', authority: 0.95, flag: 'signature_forgery', severity: 0.9 })).toMatch(/changed after signing/);
  expect(plainFindingSummary({ source: 'pdf_structure', finding: 'PDF 1.7, 3 revisions', authority: 0.5, severity: 0 })).toBeUndefined();
  expect(plainFindingSummary({ source: 'image_forensics.jpeg_grid', finding: 'phase (5,2)', authority: 0.5, severity: 0, summary: 'plain words' })).toBe('plain words');
});

describeFixtures('plain summaries on a real file (../shared/fixtures/pdf-signatures)', () => {
  it('a pyHanko file modified after signing says so in plain words beside the technical finding', async () => {
    const expected: Record<string, { expect: string }> = JSON.parse(readFileSync(fixture('pdf-signatures', 'expected.json'), 'utf8'));
    const file = Object.entries(expected).find(([, e]) => e.expect === 'signature_forgery')![0];
    const r = await createEngine(testPorts()).verifyDocument({ source: 'upload', content: b64(readFileSync(fixture('pdf-signatures', file))), mime_type: 'application/pdf' });
    const flagged = r.evidence.find((e) => e.summary?.startsWith('A digital signature is broken'));
    expect(flagged, file).toBeDefined();
    expect(flagged!.finding).not.toBe(flagged!.summary);
  });
});
