/**
 * The revision timeline (the document result's additive `revisions`): which revision each
 * signature covers and which later revision broke which signature, on real pdf-lib forms signed
 * with openssl and edited by a hand-appended incremental update.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { DocumentResult } from '../../../src/api/results.js';
import { createEngine } from '../../../src/engine/index.js';
import { b64, testPorts } from './build.js';
import { buildForm, fillField, signedTwiceThenEdited, signField, type FormPdf } from './pdf-diff-build.js';

const engine = createEngine(testPorts());
const verify = (pdf: Buffer) => engine.verifyDocument({ source: 'upload', content: b64(pdf), mime_type: 'application/pdf' });

let form: FormPdf;
beforeAll(async () => {
  form = await buildForm();
});

describe('revision timeline', () => {
  it('a PDF signed twice and then edited: each signature names its revision; the edit breaks both', async () => {
    const r = await verify(await signedTwiceThenEdited(form));
    expect(DocumentResult.safeParse(r).success).toBe(true);
    const sigs = r.signatures!;
    expect(sigs.map((s) => s.field)).toEqual(['Sig1', 'Sig2']);
    expect(sigs.map((s) => s.revision)).toEqual([1, 2]);
    const revs = r.revisions!;
    expect(revs.map((x) => x.index)).toEqual([0, 1, 2, 3]);
    expect(revs[1]!.signatures).toEqual([0]);
    expect(revs[2]!.signatures).toEqual([1]);
    expect(sigs[0]!.signed_bytes).toBe(revs[1]!.end);
    // Signing Sig2 is a permitted update for Sig1; the content edit is permitted for neither.
    expect(revs[2]!.breaks).toEqual([]);
    expect(revs[3]!.breaks).toEqual([0, 1]);
    expect(revs[3]!.changed.join('\n')).toMatch(/page content stream \d+ rewritten/);
    expect(revs[3]!.reasons.join('\n')).toMatch(/page content stream/);
    expect(r.manipulation_flags).toContain('signature_forgery');
  });

  it('form filling after signing is listed as a permitted update that breaks nothing', async () => {
    const r = await verify(fillField(form, signField(form, form.pdf, 'Sig1'), 'name', 'Bob'));
    const revs = r.revisions!;
    expect(revs.at(-1)).toMatchObject({ level: 'form_filling', breaks: [] });
    expect(revs.at(-1)!.changes).toMatch(/form value/);
  });

  it('an unsigned PDF without updates has no timeline', async () => {
    expect((await verify(form.pdf)).revisions).toBeUndefined();
  });
});
