import { describe, expect, it } from 'vitest';
import { MATCH_THRESHOLD, foldName, matchKey, nameKey, nameSimilarity, sameLegalName } from '../../../src/engine/business/names.js';

describe('company name normalisation', () => {
  it('gives the issue name variants one key', () => {
    const keys = ['ACME WIDGETS LTD', 'Acme Widgets Limited', 'acme widgets', 'Acme Widgets Ltd.', 'THE ACME WIDGETS LIMITED'].map(matchKey);
    expect(new Set(keys)).toEqual(new Set(['acme widgets']));
  });

  it('folds case, punctuation, diacritics and ampersands', () => {
    expect(foldName('Société Générale S.A.')).toBe('societe generale sa');
    expect(foldName('Marks & Spencer p.l.c.')).toBe('marks and spencer plc');
    expect(foldName("McDonald's Corp.")).toBe('mcdonalds corp');
    expect(foldName('Müller GmbH')).toBe('muller gmbh');
  });

  it('separates legal forms, including multi-word and stacked ones', () => {
    expect(nameKey('Tesco Public Limited Company')).toEqual({ base: 'tesco', form: 'plc' });
    expect(nameKey('Apple Inc.')).toEqual({ base: 'apple', form: 'inc' });
    expect(nameKey('Acme Holdings Co., Ltd.')).toEqual({ base: 'acme holdings', form: 'co ltd' });
    expect(nameKey('Siemens Aktiengesellschaft')).toEqual({ base: 'siemens', form: 'ag' });
    expect(nameKey('Example L.L.C.')).toEqual({ base: 'example', form: 'llc' });
    // A name made only of a legal-form word keeps it as its base.
    expect(nameKey('Limited').base).toBe('limited');
  });

  it('treats the same legal name in different spellings as equal', () => {
    expect(sameLegalName('ACME WIDGETS LIMITED', 'Acme Widgets Ltd')).toBe(true);
    expect(sameLegalName('Acme Widgets Ltd', 'Acme Widgets LLP')).toBe(false);
  });

  // Labelled pairs (same entity name or not) that set MATCH_THRESHOLD; docs/business.md reports them.
  const SAME: Array<[string, string]> = [
    ['ACME WIDGETS LTD', 'Acme Widgets Limited'],
    ['acme widgets', 'ACME WIDGETS LIMITED'],
    ['Apple Inc', 'APPLE INC.'],
    ['Tesco PLC', 'TESCO PUBLIC LIMITED COMPANY'],
    ['Marks and Spencer Group plc', 'MARKS & SPENCER GROUP P.L.C.'],
    ['Rolls Royce Holdings', 'ROLLS-ROYCE HOLDINGS PLC'],
    ['Microsoft Corporation', 'MICROSOFT CORP'],
    ['Alphabet Inc.', 'Alphabet Incorporated'],
    ['Société Générale', 'SOCIETE GENERALE S.A.'],
    ['Deutsche Bank AG', 'Deutsche Bank Aktiengesellschaft'],
    ['Vodafone Group Public Limited Company', 'VODAFONE GROUP PLC'],
    ['BP p.l.c.', 'BP PLC'],
    ['J Sainsbury plc', 'J SAINSBURY PLC'],
    ['Acme Widget Ltd', 'ACME WIDGETS LIMITED'],
    ['Globex Corporation', 'Globex Corp.'],
    ['Initech Solutions Ltd', 'INITECH SOLUTIONS LIMITED'],
    ['The Coca-Cola Company', 'COCA COLA CO'],
    ['Unilever PLC', 'UNILEVER P.L.C.'],
  ];
  const DIFFERENT: Array<[string, string]> = [
    ['Acme Widgets Ltd', 'Acme Gadgets Ltd'],
    ['Apple Inc', 'Applied Materials Inc'],
    ['Tesco PLC', 'Tesla Inc'],
    ['Acme Widgets Ltd', 'Acme Widgets LLP'],
    ['Globex Corporation', 'Globe Express Corporation'],
    ['Initech Solutions Ltd', 'Initech Holdings Ltd'],
    ['Meta Platforms Inc', 'Metal Platforms Inc'],
    ['Rolls Royce Holdings', 'Royce Holdings'],
    ['Barclays PLC', 'Barclays Bank UK PLC'],
    ['Amazon.com Inc', 'Amazonia Ltd'],
    ['Shell plc', 'Shelly plc'],
    ['Unilever PLC', 'Unilife Corp'],
    ['Deutsche Bank AG', 'Deutsche Boerse AG'],
    ['North Star Capital Ltd', 'South Star Capital Ltd'],
  ];

  it(`separates the labelled pairs at MATCH_THRESHOLD = ${MATCH_THRESHOLD}`, () => {
    const missed = SAME.filter(([a, b]) => nameSimilarity(a, b) < MATCH_THRESHOLD);
    const falseMatches = DIFFERENT.filter(([a, b]) => nameSimilarity(a, b) >= MATCH_THRESHOLD);
    expect(missed).toEqual([]);
    expect(falseMatches).toEqual([]);
  });

  it('scores identical bases 1 and unrelated names low', () => {
    expect(nameSimilarity('ACME WIDGETS LTD', 'acme widgets')).toBe(1);
    expect(nameSimilarity('Acme Widgets', 'Zebra Logistics')).toBeLessThan(0.3);
    expect(nameSimilarity('', 'Acme')).toBe(0);
  });
});
