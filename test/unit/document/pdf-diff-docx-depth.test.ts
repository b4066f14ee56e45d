/**
 * Bounded work for DOCX (issue 12): XML nested 10,000 deep must not overflow the stack of the
 * text extraction (docx/text.ts) — it is measured before parsing and answered with a warning.
 */
import { describe, expect, it } from 'vitest';
import { createEngine } from '../../../src/engine/index.js';
import { xmlDepth } from '../../../src/engine/document/docx/xml-depth.js';
import { b64, buildDocx, paragraph, testPorts } from './build.js';

const engine = createEngine(testPorts());
const nested = (depth: number): string => `${'<w:sdt><w:sdtContent>'.repeat(depth)}${paragraph('deep')}${'</w:sdtContent></w:sdt>'.repeat(depth)}`;

describe('DOCX nesting depth', () => {
  it('measures element depth without recursion, ignoring self-closing tags, comments and declarations', () => {
    expect(xmlDepth('<?xml version="1.0"?><a><b/><c><!-- <x> --><d>t</d></c></a>', 100)).toEqual({ depth: 3, exceeded: false });
    expect(xmlDepth('<a><b><c></c></b></a>', 2).exceeded).toBe(true);
    expect(xmlDepth('<a x="1>2"><b/></a>', 10).depth).toBe(1);
  });

  it('answers for a document.xml nested 10,000 deep, with a warning naming the cap', async () => {
    const docx = await buildDocx({ body: nested(5000) });
    const r = await engine.verifyDocument({ source: 'upload', content: b64(docx) });
    expect(r.warnings?.some((w) => /nests elements more than 1000 deep/.test(w))).toBe(true);
    expect(r.metadata.author).toBe('Alice Analyst');
  });

  it('still extracts text from an ordinarily nested document', async () => {
    const docx = await buildDocx({ body: nested(20) });
    const r = await engine.verifyDocument({ source: 'upload', content: b64(docx) });
    expect(r.warnings?.some((w) => /deep/.test(w)) ?? false).toBe(false);
  });
});
