import { describe, expect, it } from 'vitest';
import { BusinessRequest, ClaimRequest, DocumentRequest, MediaRequest } from '../../../src/api/requests.js';

/** The fields a failed parse names (joined paths). */
const fieldsOf = (r: { success: boolean; error?: { issues: Array<{ path: PropertyKey[] }> } }): string[] =>
  r.success ? [] : r.error!.issues.map((i) => i.path.map(String).join('.'));

describe('ClaimRequest (SPEC 4.1)', () => {
  it('accepts up to 2,000 characters and refuses 2,001, naming `claim`', () => {
    expect(ClaimRequest.safeParse({ claim: 'a'.repeat(2000) }).success).toBe(true);
    const r = ClaimRequest.safeParse({ claim: 'a'.repeat(2001) });
    expect(fieldsOf(r)).toEqual(['claim']);
  });

  it('counts characters, not UTF-16 units: 2,000 emoji are 2,000 characters', () => {
    expect(ClaimRequest.safeParse({ claim: '😀'.repeat(2000) }).success).toBe(true);
    expect(ClaimRequest.safeParse({ claim: '😀'.repeat(2001) }).success).toBe(false);
  });

  it('requires a non-blank claim', () => {
    expect(fieldsOf(ClaimRequest.safeParse({}))).toEqual(['claim']);
    expect(fieldsOf(ClaimRequest.safeParse({ claim: '   ' }))).toEqual(['claim']);
  });

  it('max_evidence is an integer 1 to 20, default 5', () => {
    expect(ClaimRequest.parse({ claim: 'x' }).max_evidence).toBe(5);
    expect(ClaimRequest.parse({ claim: 'x', max_evidence: 1 }).max_evidence).toBe(1);
    expect(ClaimRequest.parse({ claim: 'x', max_evidence: 20 }).max_evidence).toBe(20);
    for (const bad of [0, 21, -1, 2.5, '5'])
      expect(fieldsOf(ClaimRequest.safeParse({ claim: 'x', max_evidence: bad })), String(bad)).toEqual(['max_evidence']);
  });

  it('sources are the SPEC enum (default: all, i.e. absent); language ISO 639-1, default en', () => {
    const all = ['web', 'wikipedia', 'google_fact_check', 'semantic_scholar', 'gdelt'];
    expect(ClaimRequest.parse({ claim: 'x', sources: all }).sources).toEqual(all);
    expect(ClaimRequest.parse({ claim: 'x' }).sources).toBeUndefined();
    expect(fieldsOf(ClaimRequest.safeParse({ claim: 'x', sources: ['twitter'] }))).toEqual(['sources.0']);
    expect(fieldsOf(ClaimRequest.safeParse({ claim: 'x', sources: [] }))).toEqual(['sources']);
    expect(ClaimRequest.parse({ claim: 'x' }).language).toBe('en');
    expect(ClaimRequest.parse({ claim: 'x', language: 'fr' }).language).toBe('fr');
    for (const bad of ['xx', 'EN', 'eng', 'en-US']) expect(ClaimRequest.safeParse({ claim: 'x', language: bad }).success, bad).toBe(false);
  });

  it('sources are capped at the known values, each at most once (issue 28: 1,000,000 entries were accepted)', () => {
    const known = ['web', 'wikipedia', 'google_fact_check', 'semantic_scholar', 'gdelt', 'local'];
    expect(ClaimRequest.parse({ claim: 'x', sources: known }).sources).toEqual(known);
    const twice = ClaimRequest.safeParse({ claim: 'x', sources: ['web', 'web'] });
    expect(fieldsOf(twice)).toEqual(['sources']);
    expect(twice.error!.issues[0]!.message).toMatch(/twice/);
    // A huge list is refused by its length alone: one issue, not one per entry.
    for (const entry of ['web', 'twitter']) {
      const huge = ClaimRequest.safeParse({ claim: 'x', sources: Array.from({ length: 1_000_000 }, () => entry) });
      expect(huge.error!.issues.map((i) => [i.path.join('.'), i.message]), entry).toEqual([['sources', expect.stringMatching(/at most the 6 sources/)]]);
    }
    expect(fieldsOf(BusinessRequest.safeParse({ company_name: 'Acme', sources: ['gleif', 'gleif'] }))).toEqual(['sources']);
    expect(fieldsOf(BusinessRequest.safeParse({ company_name: 'Acme', sources: Array.from({ length: 5 }, () => 'gleif') }))).toEqual(['sources']);
  });

  it('refuses unknown fields', () => {
    expect(fieldsOf(ClaimRequest.safeParse({ claim: 'x', maxEvidence: 3 }))).toEqual(['']);
  });
});

describe('BusinessRequest (SPEC 4.2)', () => {
  it('jurisdiction is lowercase ISO 3166-2 style: country, or country_subdivision', () => {
    for (const ok of ['gb', 'us', 'us_de', 'ca_bc', 'gb_eng', 'in_10'])
      expect(BusinessRequest.safeParse({ company_name: 'Acme', jurisdiction: ok }).success, ok).toBe(true);
    for (const bad of ['GB', 'us-de', 'usa', 'u', 'us_', 'us_dela', 'US_DE', ''])
      expect(fieldsOf(BusinessRequest.safeParse({ company_name: 'Acme', jurisdiction: bad })), bad).toEqual(['jurisdiction']);
  });

  it('officers and filings default to false; sources include companies_house and sec_edgar', () => {
    const r = BusinessRequest.parse({ company_name: 'Acme Ltd', sources: ['companies_house', 'sec_edgar'] });
    expect(r).toMatchObject({ officers: false, filings: false, sources: ['companies_house', 'sec_edgar'] });
    expect(fieldsOf(BusinessRequest.safeParse({ company_name: 'Acme', sources: ['dun_bradstreet'] }))).toEqual(['sources.0']);
  });

  it('requires company_name', () => {
    expect(fieldsOf(BusinessRequest.safeParse({}))).toEqual(['company_name']);
    expect(fieldsOf(BusinessRequest.safeParse({ company_name: ' ' }))).toEqual(['company_name']);
  });
});

describe('MediaRequest (SPEC 4.3)', () => {
  it('needs exactly one of url and file', () => {
    expect(MediaRequest.safeParse({ url: 'https://example.com/a.jpg' }).success).toBe(true);
    expect(MediaRequest.safeParse({ file: Buffer.from('abc').toString('base64') }).success).toBe(true);
    expect(fieldsOf(MediaRequest.safeParse({}))).toEqual(['url']);
    expect(fieldsOf(MediaRequest.safeParse({ url: 'https://example.com/a.jpg', file: 'YWJj' }))).toEqual(['file']);
  });

  it('checks default to true; url must be http(s); file must be base64', () => {
    expect(MediaRequest.parse({ url: 'http://example.com/x.png' })).toMatchObject({
      check_deepfakes: true,
      check_provenance: true,
      check_watermarks: true,
    });
    expect(fieldsOf(MediaRequest.safeParse({ url: 'ftp://example.com/x.png' }))).toEqual(['url']);
    expect(fieldsOf(MediaRequest.safeParse({ file: 'not base64!' }))).toEqual(['file']);
  });
});

describe('DocumentRequest (SPEC 4.4)', () => {
  it('source is url | upload | raw and content must match it', () => {
    expect(DocumentRequest.safeParse({ source: 'raw', content: 'hello' }).success).toBe(true);
    expect(DocumentRequest.safeParse({ source: 'url', content: 'https://example.com/a.pdf' }).success).toBe(true);
    expect(DocumentRequest.safeParse({ source: 'upload', content: Buffer.from('%PDF-1.7').toString('base64') }).success).toBe(true);
    expect(fieldsOf(DocumentRequest.safeParse({ source: 'file', content: 'x' }))).toEqual(['source']);
    expect(fieldsOf(DocumentRequest.safeParse({ source: 'url', content: 'not a url' }))).toEqual(['content']);
    expect(fieldsOf(DocumentRequest.safeParse({ source: 'upload', content: '%%%' }))).toEqual(['content']);
    expect(fieldsOf(DocumentRequest.safeParse({ content: 'x' }))).toEqual(['source']);
  });

  it('raw text is limited to 1 MB; mime_type must look like a MIME type; checks default to true', () => {
    expect(fieldsOf(DocumentRequest.safeParse({ source: 'raw', content: 'a'.repeat(1024 * 1024 + 1) }))).toEqual(['content']);
    expect(DocumentRequest.safeParse({ source: 'raw', content: 'x', mime_type: 'application/pdf' }).success).toBe(true);
    expect(fieldsOf(DocumentRequest.safeParse({ source: 'raw', content: 'x', mime_type: 'pdf' }))).toEqual(['mime_type']);
    expect(DocumentRequest.parse({ source: 'raw', content: 'x' })).toMatchObject({ check_deepfakes: true, check_watermarks: true });
  });
});
