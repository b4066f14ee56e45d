/**
 * C2PA mapping rules M1–M5 (src/engine/media/c2pa.ts, docs/media.md): c2pa-rs reader JSON in the
 * shape c2pa-rs emits (validation_results.activeManifest / ingredientDeltas, as printed for
 * ../shared/fixtures/c2pa/CIE-sig-CA.jpg), for the cases the shared fixtures do not contain.
 */
import { describe, expect, it } from 'vitest';
import { summarizeValidation, type RawStore } from '../../../src/engine/media/c2pa.js';
import { combineImageScores, c2paVerdict } from '../../../src/engine/media/score.js';
import type { Watermark } from '../../../src/api/results.js';

const ACTIVE = 'urn:c2pa:5e7b0c6d-8e4e-41bd-88d4-e4ef2984a971';
const INGREDIENT = 'urn:c2pa:ec8fd500-c0c2-4b84-8263-f6a1bf03ea94';
const a = (label: string, path: string): string => `self#jumbf=/c2pa/${label}/${path}`;
const dataHash = a(ACTIVE, 'c2pa.assertions/c2pa.hash.data');

function store(over: Partial<NonNullable<RawStore['validation_results']>> & { state?: string }): RawStore {
  return {
    active_manifest: ACTIVE,
    validation_state: over.state ?? 'Valid',
    validation_results: {
      activeManifest: over.activeManifest ?? {
        success: [
          { code: 'claimSignature.validated', url: a(ACTIVE, 'c2pa.signature'), explanation: 'claim signature valid' },
          { code: 'assertion.dataHash.match', url: dataHash, explanation: 'data hash valid' },
        ],
        informational: [],
        failure: [{ code: 'signingCredential.untrusted', url: a(ACTIVE, 'c2pa.signature'), explanation: 'signing certificate untrusted' }],
      },
      ingredientDeltas: over.ingredientDeltas ?? [],
    },
  };
}
const watermark = (s: ReturnType<typeof summarizeValidation>): Watermark => ({
  type: 'c2pa', validation_state: s.state, claim_generator: null, signer: null, signed_at: null, actions: [], ingredients: [], status: s.status, remote_manifest_url: null,
});

describe('C2PA mapping rules', () => {
  it('M2: a data-hash exclusion mismatch beside a match for the same assertion is not tampering (Truepic layout)', () => {
    const s = summarizeValidation(store({
      state: 'Invalid',
      activeManifest: {
        success: [
          { code: 'claimSignature.validated', url: a(ACTIVE, 'c2pa.signature') },
          { code: 'signingCredential.trusted', url: a(ACTIVE, 'c2pa.signature') },
          { code: 'assertion.dataHash.match', url: dataHash, explanation: 'data hash valid' },
        ],
        informational: [],
        failure: [{ code: 'assertion.dataHash.mismatch', url: dataHash, explanation: 'data hash exclusion does not match the manifest location in the asset' }],
      },
    }), ACTIVE);
    expect(s.state).toBe('trusted');
    expect(s.status.filter((x) => x.kind === 'failure')).toEqual([]);
    const note = s.status.find((x) => x.code === 'assertion.dataHash.mismatch')!;
    expect(note.kind).toBe('informational');
    expect(note.explanation).toMatch(/not tampering.*not bound by the signature/);
    const w = watermark(s);
    expect(c2paVerdict(w).tampered).toBe(false);
    expect(combineImageScores([], w).manipulationScore).toBe(0);
  });

  it('M2 does not excuse a real mismatch: hashes differ, or no match for that assertion', () => {
    const realMismatch = summarizeValidation(store({
      state: 'Invalid',
      activeManifest: { success: [], informational: [], failure: [{ code: 'assertion.dataHash.mismatch', url: dataHash, explanation: 'asset hash error, name: jumbf manifest, error: hash verification( Hashes do not match )' }] },
    }), ACTIVE);
    expect(realMismatch.state).toBe('invalid');
    expect(c2paVerdict(watermark(realMismatch)).tampered).toBe(true);
    const both = summarizeValidation(store({
      state: 'Invalid',
      activeManifest: {
        success: [],
        informational: [],
        failure: [
          { code: 'assertion.dataHash.mismatch', url: dataHash, explanation: 'data hash exclusion does not match the manifest location in the asset' },
          { code: 'assertion.dataHash.mismatch', url: dataHash, explanation: 'Hashes do not match' },
        ],
      },
    }), ACTIVE);
    expect(both.state).toBe('invalid');
    expect(c2paVerdict(watermark(both)).tampered).toBe(true);
  });

  it('M3: a hashedURI failure of the active manifest filed as an ingredient delta is a failure (tampering)', () => {
    const s = summarizeValidation(store({
      state: 'Invalid',
      ingredientDeltas: [{
        ingredientAssertionURI: a(ACTIVE, 'c2pa.assertions/c2pa.ingredient.v3'),
        validationDeltas: { success: [], informational: [], failure: [{ code: 'assertion.hashedURI.mismatch', url: a(ACTIVE, 'c2pa.assertions/c2pa.actions.v2'), explanation: 'hash does not match assertion data' }] },
      }],
    }), ACTIVE);
    expect(s.state).toBe('invalid');
    const f = s.status.filter((x) => x.kind === 'failure');
    expect(f.map((x) => x.code)).toContain('assertion.hashedURI.mismatch');
    expect(f.find((x) => x.code === 'assertion.hashedURI.mismatch')!.explanation).toMatch(/active manifest \(filed by c2pa-rs under an ingredient delta\)/);
    expect(c2paVerdict(watermark(s)).tampered).toBe(true);
    // Even when c2pa-rs's own state says Valid, the failure is the active manifest's.
    const fromValid = summarizeValidation({ ...store({ ingredientDeltas: [{ ingredientAssertionURI: a(ACTIVE, 'c2pa.assertions/c2pa.ingredient.v3'), validationDeltas: { success: [], informational: [], failure: [{ code: 'assertion.hashedURI.mismatch', url: a(ACTIVE, 'c2pa.assertions/c2pa.actions.v2') }] } }] }) }, ACTIVE);
    expect(fromValid.state).toBe('invalid');
  });

  it('M3b: an integrity failure of a cited ingredient manifest that its ingredient assertion did not record is the active manifest\'s', () => {
    const withIngredient = (recordedCodes: string[]): RawStore => ({
      ...store({
        ingredientDeltas: [{
          ingredientAssertionURI: a(ACTIVE, 'c2pa.assertions/c2pa.ingredient'),
          validationDeltas: { success: [], informational: [], failure: [{ code: 'assertion.hashedURI.mismatch', url: a(INGREDIENT, 'c2pa.assertions/c2pa.actions') }] },
        }],
      }),
      manifests: { [ACTIVE]: { ingredients: [{ title: 'in.jpg', active_manifest: INGREDIENT, validation_status: recordedCodes.map((code) => ({ code })) }] } },
    });
    const changed = summarizeValidation(withIngredient(['claimSignature.mismatch']), ACTIVE);
    expect(changed.state).toBe('invalid');
    expect(changed.status.find((x) => x.kind === 'failure' && x.code === 'assertion.hashedURI.mismatch')?.explanation).toMatch(/^active manifest: the ingredient manifest/);
    expect(c2paVerdict(watermark(changed)).tampered).toBe(true);
    // Recorded when the ingredient was added: the ingredient's own, informational.
    const known = summarizeValidation(withIngredient(['assertion.hashedURI.mismatch']), ACTIVE);
    expect(known.state).toBe('valid');
    expect(known.status.find((x) => x.code === 'assertion.hashedURI.mismatch')?.kind).toBe('informational');
  });

  it('M3: an ingredient\'s own failures stay informational; M4: untrusted alone is informational', () => {
    const s = summarizeValidation(store({
      ingredientDeltas: [{
        ingredientAssertionURI: a(ACTIVE, 'c2pa.assertions/c2pa.ingredient.v3'),
        validationDeltas: { success: [], informational: [], failure: [{ code: 'claimSignature.mismatch', url: a(INGREDIENT, 'c2pa.signature'), explanation: 'claim signature is not valid' }] },
      }],
    }), ACTIVE);
    expect(s.state).toBe('valid');
    expect(s.status.filter((x) => x.kind === 'failure')).toEqual([]);
    expect(s.status.find((x) => x.code === 'claimSignature.mismatch')?.explanation).toMatch(/^ingredient: /);
    expect(s.status.find((x) => x.code === 'signingCredential.untrusted')?.kind).toBe('informational');
  });
});
