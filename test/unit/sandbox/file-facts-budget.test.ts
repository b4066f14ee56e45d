/**
 * The sandbox reads a DOCX's docProps for real (file-facts.ts); issue 28: those parts pass the
 * XML budget and a 1 MB inflation cap, so a test key's nested or bomb-like file costs nothing.
 */
import { describe, expect, it } from 'vitest';
import { documentFacts } from '../../../src/engine/sandbox/file-facts.js';
import { buildDocx, coreXml } from '../document/build.js';

describe('sandbox document facts of a DOCX', () => {
  it('reads docProps of an ordinary package', async () => {
    expect(await documentFacts(await buildDocx())).toMatchObject({ author: 'Alice Analyst', producer: 'Microsoft Office Word', page_count: 2 });
  });

  it('leaves out a core.xml nested 20,000 deep, one with a DOCTYPE, and one inflating past 1 MB', async () => {
    const nested = `<cp:coreProperties xmlns:cp="x" xmlns:dc="y"><dc:creator>Mallory</dc:creator>${'<a>'.repeat(20_000)}${'</a>'.repeat(20_000)}</cp:coreProperties>`;
    const doctype = `<!DOCTYPE c [<!ENTITY m "Mallory">]><cp:coreProperties xmlns:cp="x" xmlns:dc="y"><dc:creator>&m;</dc:creator></cp:coreProperties>`;
    const big = coreXml('2024-03-01T09:00:00Z', '2024-03-02T10:00:00Z', ' '.repeat(2 * 1024 * 1024));
    for (const core of [nested, doctype, big]) {
      const facts = await documentFacts(await buildDocx({ core }));
      expect(facts.author).toBeNull();
      // app.xml is still read.
      expect(facts.producer).toBe('Microsoft Office Word');
    }
  });
});
