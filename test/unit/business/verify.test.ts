/**
 * verifyBusiness end to end through createEngine: the real registry clients and the real HTTP
 * layer talk to fake registries on 127.0.0.1 that speak the documented formats.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { BusinessResult } from '../../../src/api/results.js';
import { importCompaniesHouse, importSecTickers } from '../../../src/engine/business/bulk-import.js';
import { createEngine } from '../../../src/engine/index.js';
import { interruptedImport, markInterruptedImport } from '../../../src/engine/business/local-registry.js';
import type { VerityError } from '../../../src/api/errors.js';
import type { EngineConfig, EnginePorts } from '../../../src/engine/types.js';
import { createHttpClient, UpstreamError } from '../../../src/sources/http.js';
import { failureReason } from '../../../src/engine/business/registry-search.js';
import { openStore, type Store } from '../../../src/store/local/database.js';
import { companiesHouseFake, type FakeChCompany } from '../../fakes/companies-house.js';
import { gleifFake, type FakeLei } from '../../fakes/gleif.js';
import { openCorporatesFake } from '../../fakes/opencorporates.js';
import { secEdgarFake } from '../../fakes/sec-edgar.js';
import { CH_HEADER, chRow } from './bulk-import.test.js';
import { serve, type Served } from './serve.js';

const CH_KEY = 'ch-test-key-0123456789abcdef';
const OC_TOKEN = 'oc-token-secret-987654321';
const NOW = new Date('2025-06-01T12:00:00Z');

const CH: FakeChCompany[] = [
  {
    company_name: 'ACME WIDGETS LIMITED',
    company_number: '01234567',
    company_status: 'active',
    date_of_creation: '2001-02-03',
    officers: [
      { name: 'SMITH, Jane', officer_role: 'director', appointed_on: '2001-02-03' },
      { name: 'JONES, Tom', officer_role: 'secretary', appointed_on: '2005-05-05', resigned_on: '2010-01-01' },
    ],
    filings: [
      { transaction_id: 'MzAwMDAwMDAwMWFkaXF6a2N4', type: 'AA', category: 'accounts', date: '2024-09-30', description: 'accounts-with-accounts-type-small' },
      { transaction_id: 'MzAwMDAwMDAwMmFkaXF6a2N4', type: 'CS01', category: 'confirmation-statement', date: '2025-02-10', description: 'confirmation-statement' },
    ],
  },
  { company_name: 'OLD MILL TRADING LTD', company_number: '07654321', company_status: 'dissolved', date_of_creation: '2010-04-01' },
  { company_name: 'CONFLICT HOLDINGS LIMITED', company_number: '05555555', company_status: 'active', date_of_creation: '2003-03-03' },
  { company_name: 'TWIN PEAKS LIMITED', company_number: '02222222', company_status: 'active', date_of_creation: '1999-01-01' },
  { company_name: 'TWIN PEAKS LTD', company_number: '03333333', company_status: 'dissolved', date_of_creation: '1990-01-01' },
];
const LEIS: FakeLei[] = [
  { lei: '213800ACMEWIDGETS012', legalName: 'Acme Widgets Ltd', registeredAs: '01234567', jurisdiction: 'GB', status: 'ACTIVE', creationDate: '2001-02-03T00:00:00Z' },
  // Conflicting: GLEIF says inactive and has another incorporation date for the same number.
  { lei: '213800CONFLICTHOLD34', legalName: 'CONFLICT HOLDINGS LIMITED', registeredAs: '05555555', jurisdiction: 'GB', status: 'INACTIVE', creationDate: '2004-04-04T00:00:00Z' },
  { lei: '5493001KJTIIGC8Y1R12', legalName: 'Globex Corporation', registeredAs: '3456789', registeredAt: 'RA000602', jurisdiction: 'US-DE', status: 'ACTIVE', creationDate: '1995-07-01T00:00:00Z' },
];

let ch: ReturnType<typeof companiesHouseFake>;
let sec: ReturnType<typeof secEdgarFake>;
let gleif: ReturnType<typeof gleifFake>;
let oc: ReturnType<typeof openCorporatesFake>;
const servers: Served[] = [];
let config: EngineConfig;
let sleeps: number[];

beforeAll(async () => {
  ch = companiesHouseFake(CH, CH_KEY);
  sec = secEdgarFake([
    {
      cik: 1234567,
      name: 'Globex Corp',
      tickers: ['GLBX'],
      stateOfIncorporation: 'DE',
      formerNames: ['Globex Industries Inc'],
      filings: [
        { form: '10-Q', filingDate: '2025-05-02', accessionNumber: '0001234567-25-000010', primaryDocument: 'glbx-20250331.htm' },
        { form: '10-K', filingDate: '2025-02-20', accessionNumber: '0001234567-25-000003', primaryDocument: 'glbx-20241231.htm' },
        { form: '8-K', filingDate: '2025-01-15', accessionNumber: '0001234567-25-000001', primaryDocument: 'glbx-8k.htm', items: '2.02,9.01' },
      ],
    },
    {
      cik: 7654321,
      name: 'Gone Dark Inc',
      tickers: ['GDRK'],
      stateOfIncorporation: 'NV',
      filings: [
        { form: '15-12G', filingDate: '2024-03-01', accessionNumber: '0007654321-24-000002', primaryDocument: 'form15.htm' },
        { form: '10-K', filingDate: '2023-03-01', accessionNumber: '0007654321-23-000001', primaryDocument: 'gdrk-10k.htm' },
      ],
    },
  ]);
  gleif = gleifFake(LEIS);
  oc = openCorporatesFake(
    [
      {
        name: 'ACME WIDGETS LIMITED',
        company_number: '01234567',
        jurisdiction_code: 'gb',
        incorporation_date: '2001-02-03',
        current_status: 'Active',
        officers: [{ name: 'JANE SMITH', position: 'director', start_date: '2001-02-03' }],
      },
      { name: 'OLD MILL TRADING LTD', company_number: '07654321', jurisdiction_code: 'gb', incorporation_date: '2010-04-01', current_status: 'Dissolved', dissolution_date: '2020-01-01', inactive: true },
    ],
    OC_TOKEN,
  );
  for (const f of [ch, sec, gleif, oc]) servers.push(await serve(f.handler));
  const [chS, secS, gleifS, ocS] = servers as [Served, Served, Served, Served];
  config = {
    contact: 'ops@example.com',
    sources: {
      companies_house: { api_key: CH_KEY, base_url: chS.base },
      sec_edgar: { base_url: secS.base, tickers_url: `${secS.base}/files/company_tickers.json` },
      gleif: { base_url: `${gleifS.base}/api/v1` },
      opencorporates: { api_token: OC_TOKEN, base_url: `${ocS.base}/v0.4` },
    },
  };
});
afterAll(async () => {
  for (const s of servers) await s.close();
});
beforeEach(() => {
  sleeps = [];
  for (const f of [ch, sec, gleif, oc]) {
    f.state.requests.length = 0;
    f.state.failures.length = 0;
  }
});

function ports(over: Partial<EnginePorts> = {}, conf: EngineConfig = config): EnginePorts {
  return {
    clock: { now: () => NOW },
    config: conf,
    http: createHttpClient({
      userAgent: `verity/0.1.0 (+mailto:${conf.contact ?? 'none'})`,
      sleep: async (ms) => {
        sleeps.push(ms);
      },
    }),
    fetchInput: async () => {
      throw new Error('not used');
    },
    ...over,
  };
}

describe('verifyBusiness (live, against fake registries)', () => {
  it.each(['ACME WIDGETS LTD', 'Acme Widgets Limited', 'acme widgets'])('verifies "%s" as the same company, cross-checked', async (name) => {
    const r = await createEngine(ports()).verifyBusiness({ company_name: name, jurisdiction: 'gb' });
    expect(BusinessResult.parse(r)).toBeTruthy();
    expect(r).toMatchObject({ legal_name: 'ACME WIDGETS LIMITED', registration_number: '01234567', jurisdiction: 'gb', status: 'active', incorporation_date: '2001-02-03' });
    expect(r.id).toMatch(/^vrf_biz_/);
    expect(r.credits_used).toBe(2);
    const sources = r.evidence.map((e) => e.source);
    expect(sources).toEqual(expect.arrayContaining(['companies_house', 'gleif', 'opencorporates']));
    expect(r.evidence[0]!.source).toBe('companies_house');
    expect(r.evidence.find((e) => e.source === 'gleif')!.finding).toMatch(/agrees on .*status.*incorporation date/);
    expect(r.dimensions.cross_reference).toBeGreaterThan(0.8);
    expect(r.trust_score).toBeGreaterThan(0.85);
    expect(r.officers).toBeUndefined();
    expect(r.filings).toBeUndefined();
    // The key went out as HTTP Basic user name, never in a URL or message.
    expect(ch.state.requests.every((q) => q.authorization === `Basic ${Buffer.from(`${CH_KEY}:`).toString('base64')}`)).toBe(true);
    expect(JSON.stringify(r)).not.toContain(CH_KEY);
    expect(JSON.stringify(r)).not.toContain(OC_TOKEN);
  });

  it('an exact registration number wins, in the 8-character form', async () => {
    const r = await createEngine(ports()).verifyBusiness({ company_name: 'Acme', registration_number: '1234567', jurisdiction: 'gb' });
    expect(r.registration_number).toBe('01234567');
    expect(ch.state.requests[0]!.path).toBe('/company/01234567');
    expect(r.evidence[0]!.finding).toContain('matched on the registration number given');
  });

  it('officers and filings only when asked, with document URLs; current officers only', async () => {
    const r = await createEngine(ports()).verifyBusiness({ company_name: 'Acme Widgets Ltd', jurisdiction: 'gb', officers: true, filings: true });
    expect(r.credits_used).toBe(4);
    // Companies House's "SMITH, Jane" and OpenCorporates' "JANE SMITH" are one officer; the primary's spelling is kept.
    expect(r.officers).toEqual([{ name: 'SMITH, Jane', role: 'director', appointed_on: '2001-02-03' }]);
    expect(r.officers!.some((o) => o.name.includes('JONES'))).toBe(false);
    expect(r.filings![0]).toEqual({
      type: 'CS01',
      filed_at: '2025-02-10',
      url: 'https://find-and-update.company-information.service.gov.uk/company/01234567/filing-history/MzAwMDAwMDAwMmFkaXF6a2N4/document?format=pdf&download=0',
    });
  });

  it('reports a dissolved company as dissolved, with a low trust score', async () => {
    const r = await createEngine(ports()).verifyBusiness({ company_name: 'Old Mill Trading Limited', jurisdiction: 'gb' });
    expect(r.status).toBe('dissolved');
    expect(r.registration_number).toBe('07654321');
    expect(r.trust_score).toBeLessThan(0.6);
    expect(r.evidence.find((e) => e.source === 'opencorporates')!.finding).toContain('agrees on');
  });

  it('conflicting sources lower the trust score and are named in the evidence', async () => {
    const agreeing = await createEngine(ports()).verifyBusiness({ company_name: 'Acme Widgets Ltd', jurisdiction: 'gb', sources: ['companies_house', 'gleif'] });
    const r = await createEngine(ports()).verifyBusiness({ company_name: 'Conflict Holdings Ltd', jurisdiction: 'gb', sources: ['companies_house', 'gleif'] });
    expect(r.status).toBe('active'); // the statutory register decides
    const g = r.evidence.find((e) => e.source === 'gleif')!;
    expect(g.finding).toContain('DISAGREES');
    expect(g.finding).toContain('status inactive');
    expect(g.finding).toContain('incorporation date 2004-04-04 vs 2003-03-03');
    expect(r.dimensions.cross_reference).toBeLessThan(agreeing.dimensions.cross_reference);
    expect(r.trust_score).toBeLessThan(agreeing.trust_score - 0.15);
  });

  it('ambiguous names: the best match, with the alternatives in the evidence', async () => {
    const r = await createEngine(ports()).verifyBusiness({ company_name: 'Twin Peaks Limited', jurisdiction: 'gb', sources: ['companies_house'] });
    expect(r.registration_number).toBe('02222222'); // exact legal form, then active, wins the tie
    const alt = r.evidence.find((e) => e.finding?.startsWith('alternative match'));
    expect(alt?.finding).toContain('03333333');
  });

  it('SEC EDGAR: ticker file matched locally, status inferred, filings linked to the archive', async () => {
    const r = await createEngine(ports()).verifyBusiness({ company_name: 'Globex Corporation', jurisdiction: 'us_de', filings: true });
    // SEC (higher authority) is the basis; GLEIF joins on the name and supplies the Delaware file number.
    expect(r).toMatchObject({ legal_name: 'Globex Corp', registration_number: '3456789', jurisdiction: 'us_de', incorporation_date: '1995-07-01' });
    expect(r.evidence.find((e) => e.source === 'gleif')!.finding).toMatch(/agrees on .*status, jurisdiction/);
    expect(r.status).toBe('active');
    const s = r.evidence.find((e) => e.source === 'sec_edgar')!;
    expect(s.finding).toContain('status inferred from filing activity');
    expect(s.finding).toContain('CIK 0001234567');
    expect(r.filings![0]).toEqual({ type: '10-Q', filed_at: '2025-05-02', url: 'https://www.sec.gov/Archives/edgar/data/1234567/000123456725000010/glbx-20250331.htm' });
    expect(sec.state.requests.map((q) => q.path)).toContain('/submissions/CIK0001234567.json');
    expect(sec.state.requests.every((q) => q.userAgent?.includes('ops@example.com'))).toBe(true);
    expect(r.warnings?.some((w) => w.includes('officers'))).toBeFalsy();
  });

  it('SEC only: a Form 15 filer is inactive, incorporation date null, CIK as the number', async () => {
    const r = await createEngine(ports()).verifyBusiness({ company_name: 'Gone Dark Inc', sources: ['sec_edgar'] });
    expect(r).toMatchObject({ status: 'inactive', registration_number: '0007654321', jurisdiction: 'us_nv', incorporation_date: null });
  });

  it('a 429 with Retry-After is retried after the advised wait', async () => {
    ch.state.failures.push({ status: 429, retryAfter: '3', path: '/search' });
    const r = await createEngine(ports()).verifyBusiness({ company_name: 'Acme Widgets Ltd', jurisdiction: 'gb', sources: ['companies_house'] });
    expect(r.registration_number).toBe('01234567');
    expect(sleeps).toContain(3000);
  });

  it('a source that keeps failing becomes a warning; the others still answer', async () => {
    for (let i = 0; i < 3; i++) gleif.state.failures.push({ status: 503 });
    const r = await createEngine(ports()).verifyBusiness({ company_name: 'Acme Widgets Ltd', jurisdiction: 'gb' });
    expect(r.registration_number).toBe('01234567');
    expect(r.warnings).toEqual(expect.arrayContaining([expect.stringMatching(/^gleif: .*503/)]));
  });

  it('sources without credentials are skipped with a warning, never fatal', async () => {
    const conf: EngineConfig = { ...config, contact: undefined, sources: { ...config.sources, companies_house: { base_url: config.sources!.companies_house!.base_url }, opencorporates: { base_url: config.sources!.opencorporates!.base_url } } };
    const r = await createEngine(ports({}, conf)).verifyBusiness({ company_name: 'Acme Widgets Ltd', jurisdiction: 'gb' });
    expect(r.evidence.map((e) => e.source)).toEqual(['gleif']);
    expect(r.warnings).toEqual(expect.arrayContaining([expect.stringContaining('companies_house: skipped'), expect.stringContaining('opencorporates: skipped')]));
    expect(ch.state.requests).toHaveLength(0);
  });

  it('a rejected API key is a warning that does not show the key', async () => {
    const conf: EngineConfig = { ...config, sources: { ...config.sources, companies_house: { ...config.sources!.companies_house, api_key: 'wrong-key-123' } } };
    const r = await createEngine(ports({}, conf)).verifyBusiness({ company_name: 'Acme Widgets Ltd', jurisdiction: 'gb', sources: ['companies_house', 'gleif'] });
    expect(r.warnings!.join(' ')).toContain('companies_house: refused our credentials (HTTP 401)');
    expect(JSON.stringify(r)).not.toContain('wrong-key-123');
  });

  it('no match anywhere → NOT_FOUND naming the sources searched', async () => {
    const err = await createEngine(ports()).verifyBusiness({ company_name: 'Zzyzx Imaginary Enterprises', jurisdiction: 'gb' }).catch((e: unknown) => e);
    expect(err).toMatchObject({ code: 'NOT_FOUND' });
    expect((err as Error).message).toMatch(/companies_house, gleif, opencorporates/);
  });

  it('every source down → UNAVAILABLE, not a made-up company', async () => {
    for (let i = 0; i < 3; i++) gleif.state.failures.push({ status: 500 });
    const err = await createEngine(ports()).verifyBusiness({ company_name: 'Acme', sources: ['gleif'] }).catch((e: unknown) => e);
    expect(err).toMatchObject({ code: 'UNAVAILABLE' });
  });

  it('opencorporates: plan-gated; named explicitly on a lower plan → FORBIDDEN with required_plan', async () => {
    const engine = createEngine(ports());
    await expect(engine.verifyBusiness({ company_name: 'Acme', sources: ['opencorporates'] }, { plan: 'business' })).rejects.toMatchObject({
      code: 'FORBIDDEN',
      requiredPlan: 'enterprise',
    });
    const r = await engine.verifyBusiness({ company_name: 'Acme Widgets Ltd', jurisdiction: 'gb' }, { plan: 'pro' });
    expect(r.evidence.map((e) => e.source)).not.toContain('opencorporates');
    expect(oc.state.requests).toHaveLength(0);
  });

  it('validation errors come from the contract', async () => {
    await expect((async () => createEngine(ports()).verifyBusiness({ company_name: '  ' }))()).rejects.toMatchObject({ code: 'VALIDATION_FAILED' });
  });
});

describe('verifyBusiness with local bulk data', () => {
  let dir: string;
  let store: Store;
  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'verity-biz-v-'));
    store = await openStore(join(dir, 'verity.db'));
    const csv = join(dir, 'ch.csv');
    writeFileSync(csv, [CH_HEADER, chRow('ACME WIDGETS LIMITED', '01234567', 'Active', '03/02/2001'), chRow('LOCAL ONLY LIMITED', '09999999', 'Liquidation', '01/01/2015')].join('\n'));
    await importCompaniesHouse(store, csv, { now: () => new Date('2025-05-02T00:00:00Z') });
    const tickers = join(dir, 't.json');
    writeFileSync(tickers, JSON.stringify({ 0: { cik_str: 1234567, ticker: 'GLBX', title: 'Globex Corp' } }));
    await importSecTickers(store, tickers);
  });
  afterAll(() => {
    store.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('answers from local data first: no Companies House API call unless officers are asked', async () => {
    const r = await createEngine(ports({ store: async () => store })).verifyBusiness({ company_name: 'Local Only Ltd', jurisdiction: 'gb', sources: ['companies_house'] });
    expect(r).toMatchObject({ legal_name: 'LOCAL ONLY LIMITED', status: 'liquidation', incorporation_date: '2015-01-01' });
    expect(r.evidence[0]!.source).toBe('companies_house (bulk data of 2025-05-02)');
    expect(r.dimensions.recency).toBeLessThan(1);
    expect(ch.state.requests).toHaveLength(0);

    const withOfficers = await createEngine(ports({ store: async () => store })).verifyBusiness({ company_name: 'Acme Widgets', jurisdiction: 'gb', sources: ['companies_house'], officers: true });
    expect(withOfficers.officers).toEqual([{ name: 'SMITH, Jane', role: 'director', appointed_on: '2001-02-03' }]);
    expect(ch.state.requests.map((q) => q.path)).toEqual(['/company/01234567/officers?items_per_page=100']);
  });

  it('a local miss falls through to the API (dissolved companies are not in the bulk file)', async () => {
    const r = await createEngine(ports({ store: async () => store })).verifyBusiness({ company_name: 'Old Mill Trading Ltd', jurisdiction: 'gb', sources: ['companies_house'] });
    expect(r.status).toBe('dissolved');
    expect(ch.state.requests.length).toBeGreaterThan(0);
  });

  it('SEC tickers come from the local import: the tickers file is not fetched', async () => {
    const r = await createEngine(ports({ store: async () => store })).verifyBusiness({ company_name: 'Globex Corp', sources: ['sec_edgar'] });
    expect(r.registration_number).toBe('0001234567');
    expect(sec.state.requests.map((q) => q.path)).toEqual(['/submissions/CIK0001234567.json']);
  });

  it('without an API key, a company missing from the imported register is NOT_FOUND naming the bulk data, not UNAVAILABLE', async () => {
    const noKey: EngineConfig = { ...config, sources: { ...config.sources, companies_house: { base_url: config.sources!.companies_house!.base_url! } } };
    const err = await createEngine(ports({ store: async () => store }, noKey))
      .verifyBusiness({ company_name: 'Nobody Such Trading Ltd', jurisdiction: 'gb', sources: ['companies_house'] })
      .then(() => null, (e: unknown) => e as VerityError);
    expect(err?.code).toBe('NOT_FOUND');
    expect(err?.message).toContain('Companies House bulk data of 2025-05-02');
    expect(ch.state.requests).toHaveLength(0);
  });

  it('an unfinished import of the register is named in every result that uses it, until an import finishes', async () => {
    markInterruptedImport(store, 'companies-house', { dataset: 'companies-house', file: 'big.csv', rows_committed: 1234, at: '2026-03-01T10:00:00.000Z' });
    const r = await createEngine(ports({ store: async () => store })).verifyBusiness({ company_name: 'Local Only Ltd', jurisdiction: 'gb', sources: ['companies_house'] });
    expect(r.warnings).toContainEqual(expect.stringMatching(/local companies-house data is incomplete: its import of big\.csv was interrupted after 1,234 rows/));
    // Another source's data is not blamed.
    const g = await createEngine(ports({ store: async () => store })).verifyBusiness({ company_name: 'Globex Corp', sources: ['sec_edgar'] });
    expect(g.warnings ?? []).not.toContainEqual(expect.stringMatching(/incomplete/));
    // A finished import clears the mark.
    const csv = join(dir, 'ch2.csv');
    writeFileSync(csv, [CH_HEADER, chRow('LOCAL ONLY LIMITED', '09999999', 'Liquidation', '01/01/2015')].join('\n'));
    await importCompaniesHouse(store, csv, { now: () => new Date('2025-05-02T00:00:00Z') });
    expect(interruptedImport(store, 'companies-house')).toBeNull();
  });

  it('an import that fails before committing anything leaves the mark as it was', async () => {
    const bad = join(dir, 'bad.csv');
    writeFileSync(bad, 'not,a,register\n1,2,3\n');
    await expect(importCompaniesHouse(store, bad)).rejects.toThrow();
    expect(interruptedImport(store, 'companies-house')).toBeNull();
  });
});

describe('business failures name each source and its reason', () => {
  it('DNS failure, timeout, refused connection, credentials, rate limit in words', () => {
    const e = (kind: ConstructorParameters<typeof UpstreamError>[1], msg: string, status?: number) => new UpstreamError('api.example.org', kind, msg, status);
    expect(failureReason(e('network', 'api.example.org could not be reached (ENOTFOUND)'))).toBe('DNS failure: api.example.org could not be resolved (ENOTFOUND)');
    expect(failureReason(e('network', 'api.example.org could not be reached (ECONNREFUSED)'))).toBe('connection refused by api.example.org (ECONNREFUSED)');
    expect(failureReason(e('timeout', 'api.example.org did not answer within 8000 ms'))).toBe('timed out: api.example.org did not answer within 8000 ms');
    expect(failureReason(e('http', 'api.example.org answered HTTP 401', 401))).toBe('refused our credentials (HTTP 401)');
    expect(failureReason(e('rate_limited', 'x', 429))).toBe('rate limited (HTTP 429)');
  });

  it('when no source could be searched, the error says why for each one', async () => {
    const closed: EngineConfig = {
      contact: 'ops@example.com',
      sources: { gleif: { base_url: 'http://127.0.0.1:9/api/v1' }, sec_edgar: { base_url: 'http://127.0.0.1:9', tickers_url: 'http://127.0.0.1:9/t.json' } },
    };
    const err = await createEngine(ports({}, closed))
      .verifyBusiness({ company_name: 'Acme Widgets Ltd', sources: ['companies_house', 'gleif', 'opencorporates'] })
      .then(() => null, (x: unknown) => x as VerityError);
    expect(err?.code).toBe('UNAVAILABLE');
    expect(err?.message).toMatch(/gleif: connection refused by 127\.0\.0\.1:9/);
    expect(err?.message).toMatch(/companies_house: skipped, no API key configured/);
    expect(err?.message).toMatch(/opencorporates: skipped, no API token configured/);
  });
});
