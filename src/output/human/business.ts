import type { BusinessResult, CompanyStatus } from '../../api/results.js';
import type { Output } from '../output.js';
import { BUSINESS_TRUST, businessTrustWhy } from '../trust-words.js';
import { AUTHORITY_COLUMN, authority, dimensions, evidenceSection, field, headline, meta, simulatedNotice, sourceWidth, type Tone } from './common.js';
import { columns, link } from './layout.js';

const TONE: Record<CompanyStatus, Tone> = { active: 'good', dissolved: 'bad', liquidation: 'bad', inactive: 'warn' };


export function renderBusiness(r: BusinessResult, out: Output): string {
  const lines = [
    ...simulatedNotice(out, r.warnings),
    ...headline(out, 'Status', r.status, TONE[r.status], r.trust_score, BUSINESS_TRUST, businessTrustWhy(r)),
    field(out, 'Legal name', out.style.bold(r.legal_name)),
    field(out, 'Number', `${r.registration_number}  ${out.style.dim('jurisdiction')} ${r.jurisdiction}`),
    field(out, 'Incorporated', r.incorporation_date ?? out.style.dim('unknown')),
    dimensions(out, r.dimensions, r.dimension_producers, r.warnings),
    meta(out, r),
  ];
  if (r.officers) {
    lines.push('', out.style.bold(`Officers (${r.officers.length})`));
    if (r.officers.length)
      lines.push(
        columns(
          out,
          [{ header: 'Name', flex: true }, { header: 'Role' }, { header: 'Appointed' }],
          r.officers.map((o) => ({ cells: [o.name, o.role, o.appointed_on ?? '—'] })),
        ),
      );
  }
  if (r.filings) {
    lines.push('', out.style.bold(`Filings (${r.filings.length})`));
    if (r.filings.length)
      lines.push(
        columns(
          out,
          [{ header: 'Filed' }, { header: 'Type', flex: true }],
          r.filings.map((f) => ({ cells: [f.filed_at, f.type], below: [link(out, f.url)] })),
        ),
      );
  }
  lines.push(
    ...evidenceSection(
      out,
      'Evidence',
      [{ header: 'Source', width: sourceWidth(r.evidence.map((e) => e.source)) }, AUTHORITY_COLUMN],
      'Finding',
      r.evidence.map((e) => ({
        head: `${out.style.bold(e.source)} · ${authority(out, e.authority_score)}`,
        cells: [e.source, e.authority_score.toFixed(2)],
        text: e.finding,
        url: e.url,
      })),
    ),
  );
  return lines.join('\n');
}
