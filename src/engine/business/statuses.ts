/**
 * Every registry status vocabulary → the four SPEC statuses (active, dissolved, liquidation,
 * inactive), in one place. `liquidation` stands for liquidation and the other insolvency
 * procedures (administration, receivership, voluntary arrangements): the SPEC has no finer value,
 * and the raw status always goes into the evidence.
 */
import type { CompanyStatus } from '../../api/results.js';

/** Companies House `company_status` enumeration (API "constants" file). */
export const COMPANIES_HOUSE_STATUS: Readonly<Record<string, CompanyStatus>> = {
  active: 'active',
  open: 'active', // overseas entities: the UK establishment is open
  registered: 'active', // registered overseas entities
  dissolved: 'dissolved',
  closed: 'dissolved', // overseas entities: the UK establishment is closed
  'converted-closed': 'dissolved', // converted to another form, this registration closed
  removed: 'dissolved', // removed from the register
  liquidation: 'liquidation',
  receivership: 'liquidation',
  administration: 'liquidation',
  'voluntary-arrangement': 'liquidation',
  'insolvency-proceedings': 'liquidation',
};

/** GLEIF `entity.status`; an INACTIVE entity whose expiration reason is DISSOLVED is dissolved. */
export function gleifStatus(entityStatus: string | undefined | null, expirationReason?: string | null): CompanyStatus | null {
  const s = (entityStatus ?? '').toUpperCase();
  if (s === 'ACTIVE') return 'active';
  if (s === 'INACTIVE') return (expirationReason ?? '').toUpperCase() === 'DISSOLVED' ? 'dissolved' : 'inactive';
  return null;
}

// Free-text statuses (OpenCorporates' `current_status`, the Companies House bulk file's
// CompanyStatus): ordered rules, first match wins. "Inactive" is tested before "active",
// insolvency words before "active" ("Active - in administration").
const FREE_TEXT_RULES: ReadonlyArray<readonly [RegExp, CompanyStatus]> = [
  [/liquidat|receiver|administration|insolven|bankrupt|winding.?up|wound.?up|voluntary arrangement/i, 'liquidation'],
  [/dissolved|struck.?off|strike.?off.*(complete|final)|removed|cancel+ed|revoked|terminated|merged|converted|closed|deregistered|ceased|expired|withdrawn|inactive - dissolved/i, 'dissolved'],
  [/inactive|dormant|suspended|forfeit|delinquent|not in good standing|lapsed|void|abandoned/i, 'inactive'],
  [/active|good standing|registered|live|current|existing|in existence|incorporated|open|normal|subsisting/i, 'active'],
];

export function freeTextStatus(text: string | null | undefined): CompanyStatus | null {
  const t = (text ?? '').trim();
  if (!t) return null;
  const key = t.toLowerCase();
  if (key in COMPANIES_HOUSE_STATUS) return COMPANIES_HOUSE_STATUS[key]!;
  for (const [re, status] of FREE_TEXT_RULES) if (re.test(t)) return status;
  return null;
}

export function companiesHouseStatus(raw: string | undefined | null): CompanyStatus | null {
  if (!raw) return null;
  return COMPANIES_HOUSE_STATUS[raw.toLowerCase()] ?? freeTextStatus(raw);
}

export interface SecFilingLike {
  form: string;
  filingDate: string;
  items?: string;
}

export interface InferredStatus {
  status: CompanyStatus;
  /** Why, in words, for the evidence ("inferred from filing activity: …"). */
  reason: string;
  /** Latest relevant filing date, for recency. */
  lastFiledAt: string | null;
}

const PERIODIC = /^(10-K|10-Q|20-F|40-F|10-KT|10-QT|N-CSR|N-CEN)(\/A)?$/;
const DEREGISTRATION = /^15(-12B|-12G|-15D|F-12B|F-12G|F-15D)?(\/A)?$/;
/** A periodic report within this many days means the filer is alive and reporting. */
export const SEC_ACTIVE_WINDOW_DAYS = 550;

/**
 * SEC EDGAR has no status field: it is inferred from filing activity. A Form 15 (deregistration)
 * with no periodic report after it → inactive; an 8-K reporting Item 1.03 (bankruptcy or
 * receivership) after the last periodic report → liquidation; a periodic report (10-K, 10-Q,
 * 20-F, 40-F) within ~18 months → active; otherwise inactive (stopped reporting).
 */
export function inferSecStatus(filings: readonly SecFilingLike[], now: Date): InferredStatus {
  const sorted = [...filings].filter((f) => /^\d{4}-\d{2}-\d{2}$/.test(f.filingDate)).sort((a, b) => (a.filingDate < b.filingDate ? 1 : -1));
  const lastPeriodic = sorted.find((f) => PERIODIC.test(f.form));
  const lastDereg = sorted.find((f) => DEREGISTRATION.test(f.form));
  const lastBankruptcy = sorted.find((f) => /^8-K/.test(f.form) && /\b1\.03\b/.test(f.items ?? ''));
  const latest = sorted[0]?.filingDate ?? null;
  if (lastDereg && (!lastPeriodic || lastPeriodic.filingDate <= lastDereg.filingDate))
    return { status: 'inactive', reason: `Form ${lastDereg.form} (deregistration) filed ${lastDereg.filingDate} with no periodic report since`, lastFiledAt: latest };
  if (lastBankruptcy && (!lastPeriodic || lastPeriodic.filingDate <= lastBankruptcy.filingDate))
    return { status: 'liquidation', reason: `8-K Item 1.03 (bankruptcy or receivership) filed ${lastBankruptcy.filingDate}`, lastFiledAt: latest };
  if (lastPeriodic) {
    const ageDays = (now.getTime() - Date.parse(`${lastPeriodic.filingDate}T00:00:00Z`)) / 86_400_000;
    if (ageDays <= SEC_ACTIVE_WINDOW_DAYS)
      return { status: 'active', reason: `latest periodic report ${lastPeriodic.form} filed ${lastPeriodic.filingDate}`, lastFiledAt: latest };
    return { status: 'inactive', reason: `no periodic report since ${lastPeriodic.form} of ${lastPeriodic.filingDate}`, lastFiledAt: latest };
  }
  return {
    status: 'inactive',
    reason: latest ? `no periodic reports on file (latest filing ${latest})` : 'no filings on record',
    lastFiledAt: latest,
  };
}
