import type { Command } from 'commander';
import { VerityError } from '../../api/errors.js';
import type { CliRuntime } from '../runtime.js';
import { gateFlags, runVerification, splitList } from './verify-common.js';

export default async function verifyBusiness(rt: CliRuntime, cmd: Command): Promise<void> {
  gateFlags(cmd);
  const o = cmd.opts<{
    companyName?: string;
    jurisdiction?: string;
    registrationNumber?: string;
    officers?: boolean;
    filings?: boolean;
    sources?: string;
  }>();
  let name = (cmd.args[0] as string | undefined) ?? o.companyName;
  if (name === '-') name = (await rt.takeStdin('the company name')).toString('utf8').trim();
  if (name === undefined)
    throw new VerityError('VALIDATION_FAILED', 'Give the company name as an argument or with --company-name', {
      details: [{ field: 'company_name', issue: 'required' }],
    });
  const req = {
    company_name: name,
    jurisdiction: o.jurisdiction,
    registration_number: o.registrationNumber,
    officers: o.officers ?? false,
    filings: o.filings ?? false,
    sources: splitList(o.sources),
  };
  await runVerification(rt, cmd, 'Checking the company', (e, signal) => e.verifyBusiness(req as never, { signal }), async () => (await import('../../output/human/business.js')).renderBusiness);
}
