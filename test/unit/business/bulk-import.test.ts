import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { importCompaniesHouse, importGleif, importSecTickers, ukDate } from '../../../src/engine/business/bulk-import.js';
import { csvRecords } from '../../../src/sources/csv-records.js';
import { findLocal, findLocalTickers, importInfo } from '../../../src/engine/business/local-registry.js';
import { VerityError } from '../../../src/api/errors.js';
import { openStore, type Store } from '../../../src/store/local/database.js';

// The real product's header line: note the stray spaces before some column names.
export const CH_HEADER =
  'CompanyName, CompanyNumber,RegAddress.CareOf,RegAddress.POBox,RegAddress.AddressLine1, RegAddress.AddressLine2,RegAddress.PostTown,RegAddress.County,RegAddress.Country,RegAddress.PostCode,CompanyCategory,CompanyStatus,CountryOfOrigin,DissolutionDate,IncorporationDate,Accounts.AccountRefDay,Accounts.AccountRefMonth,Accounts.NextDueDate,Accounts.LastMadeUpDate,Accounts.AccountCategory,Returns.NextDueDate,Returns.LastMadeUpDate,Mortgages.NumMortCharges,Mortgages.NumMortOutstanding,Mortgages.NumMortPartSatisfied,Mortgages.NumMortSatisfied,SICCode.SicText_1,SICCode.SicText_2,SICCode.SicText_3,SICCode.SicText_4,LimitedPartnerships.NumGenPartners,LimitedPartnerships.NumLimPartners,URI,PreviousName_1.CONDATE, PreviousName_1.CompanyName,ConfStmtNextDueDate, ConfStmtLastMadeUpDate';

export function chRow(name: string, number: string, status: string, incorporated: string, town = 'LONDON'): string {
  const q = (s: string) => `"${s.replace(/"/g, '""')}"`;
  return [name, number, '', '', '1 HIGH STREET', '', town, '', 'UNITED KINGDOM', 'EC1A 1AA', 'Private Limited Company', status, 'United Kingdom', '', incorporated, '31', '12', '30/09/2025', '31/12/2023', 'SMALL', '', '', '0', '0', '0', '0', '62020 - Information technology consultancy activities', '', '', '', '0', '0', `http://business.data.gov.uk/id/company/${number}`, '', '', '01/01/2026', '01/01/2025']
    .map(q)
    .join(',');
}

async function collect(chunks: string[]): Promise<string[][]> {
  const out: string[][] = [];
  for await (const r of csvRecords(Readable.from(chunks.map((c) => Buffer.from(c))))) out.push(r);
  return out;
}

describe('csvRecords', () => {
  it('reads quotes, doubled quotes, embedded commas and newlines, CRLF, across chunk borders', async () => {
    const text = '\uFEFFa,b,c\r\n"x, y","he said ""hi""","multi\nline"\r\nplain,,last\n';
    const whole = await collect([text]);
    expect(whole).toEqual([
      ['a', 'b', 'c'],
      ['x, y', 'he said "hi"', 'multi\nline'],
      ['plain', '', 'last'],
    ]);
    // One byte at a time: every state must survive a chunk border (including the doubled quote).
    expect(await collect([...text])).toEqual(whole);
  });

  it('keeps a last record without a newline and skips blank lines', async () => {
    expect(await collect(['a,b\n\n1,2'])).toEqual([['a', 'b'], ['1', '2']]);
  });
});

describe('bulk imports', () => {
  let dir: string;
  let store: Store;
  beforeEach(async () => {
    dir = mkdtempSync(join(tmpdir(), 'verity-biz-'));
    store = await openStore(join(dir, 'verity.db'));
  });
  afterEach(() => {
    store.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('converts DD/MM/YYYY dates', () => {
    expect(ukDate('03/02/2001')).toBe('2001-02-03');
    expect(ukDate('')).toBeNull();
    expect(ukDate('2001-02-03')).toBeNull();
  });

  it('imports the Free Company Data Product format and re-runs idempotently', async () => {
    const file = join(dir, 'BasicCompanyData.csv');
    writeFileSync(
      file,
      [
        CH_HEADER,
        chRow('ACME WIDGETS LIMITED', '01234567', 'Active', '03/02/2001'),
        chRow('SCOTTISH THISTLE LTD', 'SC123456', 'Liquidation', '15/06/1999', 'EDINBURGH'),
        chRow('"QUOTED" HOLDINGS, PLC', '765', 'Active - Proposal to Strike off', '01/01/2010'),
        chRow('', '00000001', 'Active', '01/01/2000'),
      ].join('\r\n') + '\r\n',
    );
    const progress: number[] = [];
    const first = await importCompaniesHouse(store, file, { onProgress: (p) => progress.push(p.bytes), now: () => new Date('2025-01-01T00:00:00Z') });
    expect(first).toEqual({ rows: 4, upserted: 3, unchanged: 0, skipped: 1, removed: 0 });
    expect(progress.at(-1)).toBeGreaterThan(0);
    const acme = findLocal(store, { source: 'companies_house', key: 'acme widgets' });
    expect(acme).toHaveLength(1);
    expect(acme[0]).toMatchObject({ record_id: '01234567', status: 'Active', incorporated_on: '2001-02-03', jurisdiction: 'gb' });
    // Short numbers are padded to 8 characters, and a number look-up finds the row.
    expect(findLocal(store, { source: 'companies_house', number: '00000765' })[0]?.name).toBe('"QUOTED" HOLDINGS, PLC');
    expect(findLocal(store, { source: 'companies_house', number: 'SC123456' })[0]?.incorporated_on).toBe('1999-06-15');

    const again = await importCompaniesHouse(store, file, { now: () => new Date('2025-02-01T00:00:00Z') });
    expect(again.upserted).toBe(3);
    const count = (store.db.prepare("SELECT COUNT(*) AS n FROM company_registry WHERE source = 'companies_house'").get() as { n: number }).n;
    expect(count).toBe(3);
    // The FTS index was not duplicated by the re-run: a word query finds exactly one row.
    expect(findLocal(store, { source: 'companies_house', key: 'thistle' })).toHaveLength(1);
    expect(importInfo(store, 'companies-house')?.imported_at).toBe('2025-02-01T00:00:00.000Z');
  });

  it('replace=true drops companies missing from a new snapshot, and renames update the text index', async () => {
    const v1 = join(dir, 'v1.csv');
    const v2 = join(dir, 'v2.csv');
    writeFileSync(v1, [CH_HEADER, chRow('ALPHA LTD', '00000001', 'Active', '01/01/2000'), chRow('BETA LTD', '00000002', 'Active', '01/01/2000')].join('\n'));
    writeFileSync(v2, [CH_HEADER, chRow('ALPHA RENAMED LTD', '00000001', 'Active', '01/01/2000')].join('\n'));
    await importCompaniesHouse(store, v1);
    const r = await importCompaniesHouse(store, v2, { replace: true });
    expect(r.removed).toBe(1);
    expect(findLocal(store, { source: 'companies_house', key: 'beta' })).toEqual([]);
    expect(findLocal(store, { source: 'companies_house', key: 'renamed' })[0]?.record_id).toBe('00000001');
    expect(findLocal(store, { source: 'companies_house', key: 'alpha' }).map((x) => x.name)).toEqual(['ALPHA RENAMED LTD']);
  });

  it('finds fuzzy names through FTS5 when the exact key misses', async () => {
    const file = join(dir, 'f.csv');
    writeFileSync(file, [CH_HEADER, chRow('NORTHERN LIGHTS TRADING LIMITED', '00000009', 'Active', '01/01/2000')].join('\n'));
    await importCompaniesHouse(store, file);
    expect(findLocal(store, { source: 'companies_house', key: 'northern lights' })[0]?.record_id).toBe('00000009');
  });

  it('rejects a file that is not the product format, and a missing file', async () => {
    const file = join(dir, 'bad.csv');
    writeFileSync(file, 'foo,bar\n1,2\n');
    await expect(importCompaniesHouse(store, file)).rejects.toMatchObject({ code: 'UNPROCESSABLE_CONTENT' });
    await expect(importCompaniesHouse(store, join(dir, 'nope.csv'))).rejects.toBeInstanceOf(VerityError);
  });

  it('imports the GLEIF golden copy with registeredAs as the join key', async () => {
    const file = join(dir, 'gleif.csv');
    const header = '"LEI","Entity.LegalName","Entity.LegalName.xmllang","Entity.LegalJurisdiction","Entity.EntityCategory","Entity.EntityStatus","Entity.EntityCreationDate","Entity.EntityExpirationReason","Entity.RegistrationAuthority.RegistrationAuthorityID","Entity.RegistrationAuthority.RegistrationAuthorityEntityID","Registration.RegistrationStatus","Registration.LastUpdateDate"';
    writeFileSync(
      file,
      [
        header,
        '"213800ABCDEFGHIJKL12","ACME WIDGETS LIMITED","en","GB","GENERAL","ACTIVE","2001-02-03T00:00:00.000Z","","RA000585","1234567","ISSUED","2024-05-01T10:00:00.000Z"',
        '"5493000000000000XY99","Delaware Gadgets, Inc.","en","US-DE","GENERAL","INACTIVE","2010-01-01T00:00:00+00:00","DISSOLVED","RA000602","4455667","LAPSED","2021-01-01T00:00:00Z"',
      ].join('\n'),
    );
    expect(await importGleif(store, file)).toMatchObject({ rows: 2, upserted: 2 });
    const gb = findLocal(store, { source: 'gleif', number: '01234567' });
    expect(gb[0]).toMatchObject({ record_id: '213800ABCDEFGHIJKL12', jurisdiction: 'gb', incorporated_on: '2001-02-03', status: 'ACTIVE' });
    const de = findLocal(store, { source: 'gleif', key: 'delaware gadgets' });
    expect(de[0]).toMatchObject({ jurisdiction: 'us_de', reg_number: '4455667' });
  });

  it('streams company_tickers.json, whatever the chunking, and upserts on re-run', async () => {
    const json = JSON.stringify({
      0: { cik_str: 320193, ticker: 'AAPL', title: 'Apple Inc.' },
      1: { cik_str: 1652044, ticker: 'GOOGL', title: 'Alphabet Inc.' },
      2: { cik_str: 1652044, ticker: 'GOOG', title: 'Alphabet Inc.' },
      3: { cik_str: 99, ticker: 'BR}CE', title: 'Brace {Test} "Quoted" Corp' },
    });
    const tiny = Readable.from([...json].map((c) => Buffer.from(c)));
    expect(await importSecTickers(store, tiny)).toMatchObject({ rows: 4, upserted: 4, skipped: 0 });
    const file = join(dir, 'company_tickers.json');
    writeFileSync(file, json);
    expect(await importSecTickers(store, file)).toMatchObject({ rows: 4 });
    expect(findLocalTickers(store, { key: 'alphabet' }).map((t) => t.ticker).sort()).toEqual(['GOOG', 'GOOGL']);
    expect(findLocalTickers(store, { cik: 99 })[0]?.title).toBe('Brace {Test} "Quoted" Corp');
    expect((store.db.prepare('SELECT COUNT(*) AS n FROM sec_tickers').get() as { n: number }).n).toBe(4);
    writeFileSync(file, '{"0": {"cik_str": 1, "ticker": "A"');
    await expect(importSecTickers(store, file)).rejects.toMatchObject({ code: 'UNPROCESSABLE_CONTENT' });
    writeFileSync(file, '[1,2,3]');
    await expect(importSecTickers(store, file)).rejects.toMatchObject({ code: 'UNPROCESSABLE_CONTENT' });
  });
});
