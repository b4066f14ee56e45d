import { describe, expect, it } from 'vitest';
import { validationError } from '../../../src/api/errors.js';
import { BusinessRequest, ClaimRequest } from '../../../src/api/requests.js';

const details = (schema: typeof ClaimRequest | typeof BusinessRequest, v: unknown) => {
  const r = schema.safeParse(v);
  if (r.success) throw new Error('expected a failure');
  return validationError(r.error).details;
};

describe('validation problems in our own words, one per field', () => {
  it('an unknown source names the allowed values, without zod quoting', () => {
    const d = details(ClaimRequest, { claim: 'x', sources: ['webb', 'twitter'] });
    const allowed = 'must be one of: web, wikipedia, google_fact_check, semantic_scholar, gdelt, local';
    expect(d).toEqual([
      { field: 'sources.0', issue: allowed },
      { field: 'sources.1', issue: allowed },
    ]);
  });

  it('a wrong type says what is expected and what came, in plain words', () => {
    expect(details(ClaimRequest, { claim: 'x', max_evidence: 'a' })).toEqual([{ field: 'max_evidence', issue: 'must be a number (got text)' }]);
    expect(details(ClaimRequest, { claim: 5 })).toEqual([{ field: 'claim', issue: 'must be text (got a number)' }]);
    expect(details(ClaimRequest, { claim: 'x', sources: 'web' })).toEqual([{ field: 'sources', issue: 'must be a list (got text)' }]);
    expect(details(ClaimRequest, {})).toEqual([{ field: 'claim', issue: 'required' }]);
  });

  it('unknown fields are named one by one; messages written in the schema are kept', () => {
    expect(details(ClaimRequest, { claim: 'x', bogus: 1, other: 2 })).toEqual([
      { field: 'bogus', issue: 'is not a field of this request' },
      { field: 'other', issue: 'is not a field of this request' },
    ]);
    expect(details(ClaimRequest, { claim: 'x', max_evidence: 99 })).toEqual([{ field: 'max_evidence', issue: 'must be between 1 and 20' }]);
  });

  it('no message carries zod wording', () => {
    for (const v of [{ claim: 'x', sources: ['nope'] }, { claim: 1 }, { claim: 'x', language: 3 }, { claim: 'x', zzz: true }]) {
      const e = validationError(ClaimRequest.safeParse(v).error!);
      expect(e.message).not.toMatch(/Invalid (input|option)|expected one of|received|Unrecognized/);
    }
  });
});
