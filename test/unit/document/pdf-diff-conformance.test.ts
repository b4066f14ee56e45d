/**
 * pyHanko's signed test PDFs (../shared/fixtures/pdf-signatures) with pyHanko's own verdicts:
 * every file must come out as expected.json says — `signature_forgery` exactly where pyHanko
 * rates the change after signing OTHER or the coverage non-standard, and malformed files must
 * give a result or a clear error, never a crash.
 */
import { readFileSync } from 'node:fs';
import { expect, it } from 'vitest';
import { VerityError } from '../../../src/api/errors.js';
import { createEngine } from '../../../src/engine/index.js';
import { describeFixtures, fixture, haveFixtures } from '../../helpers/fixtures.js';
import { b64, testPorts } from './build.js';

const engine = createEngine(testPorts());

interface Expectation {
  expect: string;
  pyhanko?: string;
}

describeFixtures('pyHanko signed-PDF conformance (pdf-signatures/expected.json)', () => {
  const expected: Record<string, Expectation> = haveFixtures ? JSON.parse(readFileSync(fixture('pdf-signatures', 'expected.json'), 'utf8')) : {};
  for (const [file, e] of Object.entries(expected)) {
    it(`${file}: ${e.expect}${e.pyhanko ? ` (pyHanko: ${e.pyhanko})` : ''}`, async () => {
      const content = b64(readFileSync(fixture('pdf-signatures', file)));
      let flags: string[] | undefined;
      try {
        const r = await engine.verifyDocument({ source: 'upload', content, mime_type: 'application/pdf' });
        flags = r.manipulation_flags;
      } catch (err) {
        // Only malformed files may end in an error, and then a catalogued one.
        expect(e.expect).toMatch(/no crash/);
        expect(err).toBeInstanceOf(VerityError);
        return;
      }
      if (e.expect === 'signature_forgery') expect(flags).toContain('signature_forgery');
      else if (e.expect === 'no signature_forgery') expect(flags).not.toContain('signature_forgery');
      else expect(Array.isArray(flags)).toBe(true);
    });
  }
});
