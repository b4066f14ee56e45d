/**
 * Agreement with c2patool's own reports (issue 30): the c2pa-org public test files in
 * ../shared/fixtures/c2pa/public-testfiles/ sit beside the `manifest_store.json` c2patool wrote for
 * them. Each failure is attributed to the manifest that carries it, and the verdict follows.
 */
import { readFileSync } from 'node:fs';
import { expect, it } from 'vitest';
import { MediaRequest } from '../../../src/api/requests.js';
import type { MediaResult } from '../../../src/api/results.js';
import { verifyMedia } from '../../../src/engine/media/verify.js';
import type { Computed } from '../../../src/engine/types.js';
import { describeFixtures, fixture } from '../../helpers/fixtures.js';
import { makePorts } from './helpers.js';

const verifyFile = (path: string): Promise<Computed<MediaResult>> =>
  verifyMedia(MediaRequest.parse({ file: readFileSync(path).toString('base64') }), makePorts(), {});
const c2patool = (name: string): { active_manifest: string; validation_status?: Array<{ code: string }> } =>
  JSON.parse(readFileSync(fixture('c2pa', 'public-testfiles', `${name}.manifest_store.json`), 'utf8'));

describeFixtures('C2PA: agreement with c2patool (../shared/fixtures/c2pa/public-testfiles)', () => {
  it('adobe-20220124-E-uri-CIE-sig-CA.jpg: the hashed-URI failure is the ACTIVE manifest\'s, as c2patool says → manipulated', async () => {
    const tool = c2patool('adobe-20220124-E-uri-CIE-sig-CA');
    expect(tool.validation_status?.map((s) => s.code)).toContain('assertion.hashedURI.mismatch');
    const r = await verifyFile(fixture('c2pa', 'public-testfiles', 'adobe-20220124-E-uri-CIE-sig-CA.jpg'));
    expect(r.watermark?.validation_state).toBe('invalid');
    const failure = r.watermark!.status.find((s) => s.kind === 'failure' && s.code === 'assertion.hashedURI.mismatch');
    expect(failure?.explanation).toMatch(/^active manifest: the ingredient manifest .* no longer matches the hash/);
    expect(r.authenticity).toBe('manipulated');
    expect(r.trust_score).toBeLessThanOrEqual(0.05);
    // The ingredient's own recorded failures stay the ingredient's.
    expect(r.watermark!.ingredients[0]?.validation_state).toBe('invalid');
  });

  it('nikon-20221019-building.jpeg: the claim signature verifies (current c2pa-rs), the certificate expired: invalid credential, not tampering', async () => {
    // c2patool's report (an older c2pa-rs) says claimSignature.mismatch; the COSE signature over the
    // claim verifies with the certificate's key (docs/media.md "c2patool differences").
    const tool = JSON.stringify(c2patool('nikon-20221019-building'));
    expect(tool).toContain('claimSignature.mismatch');
    const r = await verifyFile(fixture('c2pa', 'public-testfiles', 'nikon-20221019-building.jpeg'));
    const w = r.watermark!;
    expect(w.validation_state).toBe('invalid');
    expect(w.status.find((s) => s.code === 'claimSignature.validated')?.kind).toBe('success');
    expect(w.status.find((s) => s.code === 'signingCredential.expired')?.kind).toBe('failure');
    expect(w.status.some((s) => s.code === 'claimSignature.mismatch')).toBe(false);
    expect(r.authenticity).toBe('suspicious');
    const finding = r.evidence.find((e) => e.source === 'c2pa')!.finding;
    expect(finding).toMatch(/claim signature itself verifies/);
    expect(finding).toMatch(/c2patool/);
  });
});
