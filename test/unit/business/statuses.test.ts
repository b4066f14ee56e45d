import { describe, expect, it } from 'vitest';
import {
  COMPANIES_HOUSE_STATUS,
  companiesHouseStatus,
  freeTextStatus,
  gleifStatus,
  inferSecStatus,
} from '../../../src/engine/business/statuses.js';

describe('status tables', () => {
  it('maps every Companies House company_status value', () => {
    const values = ['active', 'dissolved', 'liquidation', 'receivership', 'administration', 'voluntary-arrangement', 'insolvency-proceedings', 'converted-closed', 'open', 'closed', 'registered', 'removed'];
    expect(Object.keys(COMPANIES_HOUSE_STATUS).sort()).toEqual([...values].sort());
    expect(values.map(companiesHouseStatus)).toEqual(['active', 'dissolved', 'liquidation', 'liquidation', 'liquidation', 'liquidation', 'liquidation', 'dissolved', 'active', 'dissolved', 'active', 'dissolved']);
  });

  it('reads the bulk file and OpenCorporates free text', () => {
    expect(freeTextStatus('Active')).toBe('active');
    expect(freeTextStatus('Active - Proposal to Strike off')).toBe('active');
    expect(freeTextStatus('In Administration')).toBe('liquidation');
    expect(freeTextStatus('Liquidation')).toBe('liquidation');
    expect(freeTextStatus('RECEIVER MANAGER / ADMINISTRATIVE RECEIVER')).toBe('liquidation');
    expect(freeTextStatus('Dissolved')).toBe('dissolved');
    expect(freeTextStatus('Inactive')).toBe('inactive');
    expect(freeTextStatus('Good Standing')).toBe('active');
    expect(freeTextStatus('Void')).toBe('inactive');
    expect(freeTextStatus('Forfeited - Failed to File Annual Report')).toBe('inactive');
    expect(freeTextStatus('Merged')).toBe('dissolved');
    expect(freeTextStatus('')).toBeNull();
    expect(freeTextStatus('zzz')).toBeNull();
  });

  it('maps GLEIF entity status with the expiration reason', () => {
    expect(gleifStatus('ACTIVE')).toBe('active');
    expect(gleifStatus('INACTIVE', 'DISSOLVED')).toBe('dissolved');
    expect(gleifStatus('INACTIVE', 'CORPORATE_ACTION')).toBe('inactive');
    expect(gleifStatus('NULL')).toBeNull();
  });
});

describe('SEC status inference from filing activity', () => {
  const now = new Date('2025-06-01T00:00:00Z');
  it('recent 10-Q → active', () => {
    const r = inferSecStatus([{ form: '10-Q', filingDate: '2025-05-01' }, { form: '10-K', filingDate: '2024-11-01' }], now);
    expect(r.status).toBe('active');
    expect(r.reason).toContain('10-Q filed 2025-05-01');
  });
  it('Form 15 after the last periodic report → inactive', () => {
    const r = inferSecStatus([{ form: '15-12G', filingDate: '2025-03-01' }, { form: '10-K', filingDate: '2025-02-01' }], now);
    expect(r.status).toBe('inactive');
    expect(r.reason).toContain('deregistration');
  });
  it('a periodic report after a Form 15 → active again', () => {
    expect(inferSecStatus([{ form: '10-K', filingDate: '2025-04-01' }, { form: '15-12G', filingDate: '2023-01-01' }], now).status).toBe('active');
  });
  it('8-K Item 1.03 → liquidation', () => {
    const r = inferSecStatus([{ form: '8-K', filingDate: '2025-04-01', items: '1.03,7.01' }, { form: '10-Q', filingDate: '2025-02-01' }], now);
    expect(r.status).toBe('liquidation');
  });
  it('periodic reports stopped long ago → inactive', () => {
    expect(inferSecStatus([{ form: '10-K', filingDate: '2019-03-01' }], now).status).toBe('inactive');
    expect(inferSecStatus([], now)).toMatchObject({ status: 'inactive', reason: 'no filings on record' });
  });
});
