/**
 * The difference analysis rule by rule, on real pdf-lib forms signed with openssl and updated by
 * hand-appended incremental revisions (what signing tools and editors write).
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { createEngine } from '../../../src/engine/index.js';
import { diffRevisions } from '../../../src/engine/document/pdf/diff-policy.js';
import { readPdfStructure } from '../../../src/engine/document/pdf/structure.js';
import { b64, testPorts } from './build.js';
import { appearanceOf, appendRevision, buildForm, fillField, lastBody, nextNum, setEntries, signField, signerCertDer, streamBody, type FormPdf } from './pdf-diff-build.js';

const engine = createEngine(testPorts());
const verify = (pdf: Buffer) => engine.verifyDocument({ source: 'upload', content: b64(pdf), mime_type: 'application/pdf' });
const sigFindings = async (pdf: Buffer) => (await verify(pdf)).evidence.filter((e) => e.source === 'pdf_signature').map((e) => e.finding);
/** The last revision explained against the one before it (the signed revision, in these tests). */
const lastDiff = (pdf: Buffer) => {
  const s = readPdfStructure(pdf);
  const base = s.revisions.length - 2;
  return diffRevisions(pdf, s, [base]).get(base)!.at(-1)!;
};

async function expectForgery(pdf: Buffer, re: RegExp): Promise<void> {
  const r = await verify(pdf);
  expect(r.manipulation_flags).toContain('signature_forgery');
  expect(r.evidence.filter((e) => e.source === 'pdf_signature').map((e) => e.finding).join('\n')).toMatch(re);
}
async function expectAccepted(pdf: Buffer): Promise<void> {
  const r = await verify(pdf);
  expect(r.evidence.filter((e) => e.source === 'pdf_signature').map((e) => e.finding).join('\n')).not.toMatch(/change what was signed/);
  expect(r.manipulation_flags).not.toContain('signature_forgery');
}

/** A new /Text annotation on the form's page. */
function addNote(f: FormPdf, pdf: Buffer): Buffer {
  const n = nextNum(pdf);
  const page = lastBody(pdf, f.page);
  const annots = /\/Annots\s*\[([^\]]*)\]/.exec(page)![1]!;
  return appendRevision(pdf, [
    { num: n, body: '<< /Type /Annot /Subtype /Text /Rect [400 700 420 720] /Contents (checked) >>' },
    { num: f.page, body: setEntries(page, { Annots: `[${annots.trim()} ${n} 0 R]` }) },
  ]);
}

let form: FormPdf;
let shared: FormPdf;
beforeAll(async () => {
  form = await buildForm();
  shared = await buildForm({ sharedAppearance: true });
});

describe('what may change after signing', () => {
  it('a signature that covers the whole form is not a forgery', async () => {
    const signed = signField(form, form.pdf, 'Sig1');
    expect((await sigFindings(signed)).join('\n')).toMatch(/covers the whole file/);
    await expectAccepted(signed);
  });

  it('form filling after an approval signature is allowed (form filling level)', async () => {
    const filled = fillField(form, signField(form, form.pdf, 'Sig1'), 'name', 'Bob');
    expect(lastDiff(filled)).toMatchObject({ level: 'form_filling', violations: [] });
    await expectAccepted(filled);
    expect((await sigFindings(filled)).join('\n')).toMatch(/hold only form filling and signing/);
  });

  it('filling a field locked by the signature\'s FieldMDP is a forgery; an unlocked field is not', async () => {
    const signed = signField(form, form.pdf, 'Sig1', { lock: ['name'] });
    await expectForgery(fillField(form, signed, 'name', 'Mallory'), /form field "name" was changed, but signature field "Sig1" locks it/);
    await expectAccepted(fillField(form, signed, 'amount', '250'));
  });

  it('filling any field after a DocMDP /P 1 certification is a forgery', async () => {
    const certified = signField(form, form.pdf, 'Sig1', { certify: 1 });
    await expectAccepted(certified);
    await expectForgery(fillField(form, certified, 'amount', '250'), /DocMDP \/P 1 allows no change/);
  });

  it('an annotation added under DocMDP /P 2 is a forgery, under /P 3 it is allowed', async () => {
    await expectForgery(addNote(form, signField(form, form.pdf, 'Sig1', { certify: 2 })), /does not allow annotations/);
    const p3 = addNote(form, signField(form, form.pdf, 'Sig1', { certify: 3 }));
    expect(lastDiff(p3)).toMatchObject({ level: 'annotations', violations: [], docMdp: 3 });
    await expectAccepted(p3);
  });

  it('an appearance stream rewritten in place is allowed when the field alone uses it, a forgery when it is shared', async () => {
    const rewrite = (f: FormPdf, pdf: Buffer): Buffer => {
      const ap = appearanceOf(pdf, f.widgets.name!);
      const text = '/Tx BMC BT /Helv 12 Tf 2 6 Td (Mallory) Tj ET EMC';
      return appendRevision(pdf, [
        { num: f.fields.name!, body: setEntries(lastBody(pdf, f.fields.name!), { V: '(Mallory)' }) },
        { num: ap, body: streamBody(text, '/Type /XObject /Subtype /Form /BBox [0 0 200 24]') },
      ]);
    };
    await expectAccepted(rewrite(form, signField(form, form.pdf, 'Sig1')));
    await expectForgery(rewrite(shared, signField(shared, shared.pdf, 'Sig1')), /rewritten in place, but 2 places use it/);
  });

  it('DSS validation data added later is an LTA update; a DSS with foreign keys is a forgery', async () => {
    const signed = signField(form, form.pdf, 'Sig1');
    const cert = signerCertDer().toString('latin1');
    const n = nextNum(signed);
    const dss = (extra: string) =>
      appendRevision(signed, [
        { num: n, body: `<< /Length ${cert.length} >>\nstream\n${cert}\nendstream` },
        { num: n + 1, body: `<< /Type /DSS /Certs [${n} 0 R] /VRI << /${'A'.repeat(40)} << /Cert [${n} 0 R] >> >>${extra} >>` },
        { num: form.catalog, body: setEntries(lastBody(signed, form.catalog), { DSS: `${n + 1} 0 R` }) },
      ]);
    expect(lastDiff(dss(''))).toMatchObject({ level: 'lta_updates', violations: [] });
    await expectAccepted(dss(''));
    await expectForgery(dss(' /OpenAction 3 0 R'), /unexpected keys in the DSS: \/OpenAction/);
  });

  it('a document time-stamp in a new revision is an LTA update', () => {
    const signed = signField(form, form.pdf, 'Sig1');
    const stamped = signField(form, signed, 'TS', { timeStamp: true });
    // Judged by the difference analysis alone: the time-stamp token's cryptography is checked elsewhere.
    expect(lastDiff(stamped)).toMatchObject({ level: 'lta_updates', violations: [] });
  });

  it('freeing an object the signed revision uses is a forgery', async () => {
    const signed = signField(form, form.pdf, 'Sig1');
    const contents = Number(/\/Contents\s*\[?\s*(\d+) 0 R/.exec(lastBody(signed, form.page))![1]);
    const freed = appendRevision(signed, [], [contents]);
    expect(lastDiff(freed).violations).toEqual([expect.objectContaining({ num: contents, reason: expect.stringMatching(/freed while the signed revision used it/) })]);
    await expectForgery(freed, /freed while the signed revision used it/);
  });

  it('a second signature in another field keeps both signatures valid', async () => {
    const twice = signField(form, signField(form, form.pdf, 'Sig1'), 'Sig2');
    const findings = await sigFindings(twice);
    expect(findings).toHaveLength(2);
    await expectAccepted(twice);
  });

  it('re-signing a field that was already signed (its /V replaced) is a forgery', async () => {
    const signed = signField(form, form.pdf, 'Sig1');
    await expectForgery(signField(form, signed, 'Sig1'), /already signed and was changed|already signed/);
  });

  it('a new text field added after signing is a forgery, named in the evidence', async () => {
    const signed = signField(form, form.pdf, 'Sig1');
    const n = nextNum(signed);
    const acro = Number(/\/AcroForm\s+(\d+) 0 R/.exec(lastBody(signed, form.catalog))![1]);
    const acroBody = lastBody(signed, acro);
    const fields = /\/Fields\s*\[([^\]]*)\]/.exec(acroBody)![1]!;
    const added = appendRevision(signed, [
      { num: n, body: '<< /FT /Tx /T (iban) /V (DE00 0000) /Type /Annot /Subtype /Widget /Rect [0 0 0 0] >>' },
      { num: acro, body: setEntries(acroBody, { Fields: `[${fields.trim()} ${n} 0 R]` }) },
    ]);
    await expectForgery(added, /new form field "iban" \(\/Tx\) was added/);
  });

  it('page content rewritten after signing is a forgery naming the stream', async () => {
    const signed = signField(form, form.pdf, 'Sig1');
    const contents = Number(/\/Contents\s*\[?\s*(\d+) 0 R/.exec(lastBody(signed, form.page))![1]);
    await expectForgery(appendRevision(signed, [{ num: contents, body: streamBody('BT /F1 12 Tf 50 740 Td (Purchase order 78) Tj ET') }]), new RegExp(`page content stream ${contents} rewritten`));
  });

  it('XMP replaced by a packet that declares entities is a forgery; plain XMP is allowed', async () => {
    const signed = signField(form, form.pdf, 'Sig1');
    const n = nextNum(signed);
    const xmp = (body: string) =>
      appendRevision(signed, [
        { num: n, body: streamBody(body, '/Type /Metadata /Subtype /XML') },
        { num: form.catalog, body: setEntries(lastBody(signed, form.catalog), { Metadata: `${n} 0 R` }) },
      ]);
    const ok = '<x:xmpmeta xmlns:x="adobe:ns:meta/"><rdf:RDF xmlns:rdf="http://www.w3.org/1999/02/22-rdf-syntax-ns#"><rdf:Description rdf:about=""/></rdf:RDF></x:xmpmeta>';
    await expectAccepted(xmp(ok));
    await expectForgery(xmp(`<!DOCTYPE x [<!ENTITY a "aaaa">]>${ok}`), /declares a DTD or entities/);
  });

  it('a /ByteRange that is not four numbers is flagged, not read as unsigned', async () => {
    const signed = signField(form, form.pdf, 'Sig1');
    const s = signed.toString('latin1');
    const m = /\/ByteRange \[0 (\d+) (\d+) (\d+)\]/.exec(s)!;
    const two = `/ByteRange [0 ${m[1]}]`.padEnd(m[0].length, ' ');
    await expectForgery(Buffer.from(s.replace(m[0], two), 'latin1'), /non-standard coverage/);
  });

  it('an edited signature dictionary, a removed signature and a catalog /Metadata set to null are forgeries', async () => {
    const signed = signField(form, form.pdf, 'Sig1');
    const sigNum = Number(/\/V\s+(\d+) 0 R/.exec(lastBody(signed, form.fields.Sig1!))![1]);
    await expectForgery(appendRevision(signed, [{ num: sigNum, body: setEntries(lastBody(signed, sigNum), { Reason: '(edited)' }) }]), new RegExp(`signature dictionary ${sigNum} in revision 2 \\(not explained by any permitted update\\)`));
    const twice = signField(form, signed, 'Sig2');
    const unsigned = lastBody(twice, form.fields.Sig1!).replace(/\/V\s+\d+ 0 R/, '');
    await expectForgery(appendRevision(twice, [{ num: form.fields.Sig1!, body: unsigned }]), /signature field "Sig1" was already signed and was changed afterwards/);
    await expectForgery(appendRevision(signed, [{ num: form.catalog, body: setEntries(lastBody(signed, form.catalog), { Metadata: 'null' }) }]), /\/Metadata is not a stream reference/);
  });

  it('a new visible signature field after a certification signature is a forgery; after an approval signature it is not', async () => {
    const addVisibleSig = (pdf: Buffer): Buffer => {
      const n = nextNum(pdf);
      const acro = Number(/\/AcroForm\s+(\d+) 0 R/.exec(lastBody(pdf, form.catalog))![1]);
      const acroBody = lastBody(pdf, acro);
      const fields = /\/Fields\s*\[([^\]]*)\]/.exec(acroBody)![1]!;
      const page = lastBody(pdf, form.page);
      const annots = /\/Annots\s*\[([^\]]*)\]/.exec(page)![1]!;
      return appendRevision(pdf, [
        { num: n, body: `<< /FT /Sig /T (SigNew) /Type /Annot /Subtype /Widget /F 132 /Rect [300 300 500 350] /P ${form.page} 0 R >>` },
        { num: acro, body: setEntries(acroBody, { Fields: `[${fields.trim()} ${n} 0 R]` }) },
        { num: form.page, body: setEntries(page, { Annots: `[${annots.trim()} ${n} 0 R]` }) },
      ]);
    };
    await expectAccepted(addVisibleSig(signField(form, form.pdf, 'Sig1')));
    await expectForgery(addVisibleSig(signField(form, form.pdf, 'Sig1', { certify: 2 })), /visible signature field "SigNew" was added after certification/);
  });

  it('in an encrypted file, a field re-encrypted on fill is not read as renamed (strings are not compared, and the result says so)', () => {
    // Marking the trailer /Encrypt is enough for the structure reader; the re-encryption of the
    // field's name (AES with a fresh IV gives new ciphertext on every rewrite) is imitated.
    const rewriteT = (pdf: Buffer): Buffer => {
      const filled = fillField(form, pdf, 'name', 'Bob');
      return appendRevision(filled, [{ num: form.fields.name!, body: setEntries(lastBody(filled, form.fields.name!), { T: '<8f1c2d3e4f5a6b7c>' }) }]);
    };
    const plain = rewriteT(signField(form, form.pdf, 'Sig1'));
    expect(lastDiff(plain).violations[0]?.reason).toMatch(/form field "name" was deleted/);
    const s = form.pdf.toString('latin1');
    const at = s.lastIndexOf('/Root');
    const encryptedBase = Buffer.from(`${s.slice(0, at)}/Encrypt 9999 0 R ${s.slice(at)}`, 'latin1');
    const enc = rewriteT(signField(form, encryptedBase, 'Sig1'));
    const st = readPdfStructure(enc);
    const signedRevision = st.revisions.length - 3; // then the fill, then the re-encrypted name
    const diffs = diffRevisions(enc, st, [signedRevision]).get(signedRevision)!;
    expect(diffs).toHaveLength(2);
    expect(diffs.flatMap((d) => d.violations)).toEqual([]);
    expect(diffs.at(-1)!.notes.join(' ')).toMatch(/encrypted: strings .* were not compared/);
  });

  it('a FieldMDP lock binds the signature that set it: the earlier, unlocked signature stays valid', async () => {
    const twice = signField(form, signField(form, form.pdf, 'Sig1'), 'Sig2', { lock: ['name'] });
    const filled = fillField(form, twice, 'name', 'Mallory');
    const findings = await sigFindings(filled);
    expect(findings).toHaveLength(2);
    const [first, second] = findings.sort((a, b) => Number(/ByteRange \[0 (\d+)/.exec(a)![1]) - Number(/ByteRange \[0 (\d+)/.exec(b)![1]));
    expect(first).toMatch(/hold only form filling and signing/);
    expect(second).toMatch(/signature field "Sig2" locks it/);
    expect((await verify(filled)).manipulation_flags).toContain('signature_forgery');
  });
});
