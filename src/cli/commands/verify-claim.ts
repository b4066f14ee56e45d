import type { Command } from 'commander';
import { VerityError } from '../../api/errors.js';
import type { CliRuntime } from '../runtime.js';
import { numberFlag, gateFlags, runVerification, splitList } from './verify-common.js';

export default async function verifyClaim(rt: CliRuntime, cmd: Command): Promise<void> {
  gateFlags(cmd);
  const o = cmd.opts<{ claim?: string; sources?: string; language: string; maxEvidence: string }>();
  let text = (cmd.args[0] as string | undefined) ?? o.claim;
  if (text === '-') {
    text = (await rt.takeStdin('the claim')).toString('utf8').trim();
    const lines = text.split(/\r?\n/).filter((l) => l.trim()).length;
    if (lines > 1) rt.out.warn(`stdin has ${lines} lines; they are checked as one claim (one claim per line: \`verity verify batch FILE --type claim\`)`);
  }
  if (text === undefined)
    throw new VerityError('VALIDATION_FAILED', 'Give the claim as an argument, with --claim, or - to read it from stdin', {
      details: [{ field: 'claim', issue: 'required' }],
    });
  const req = { claim: text, sources: splitList(o.sources), language: o.language, max_evidence: numberFlag(o.maxEvidence) };
  await runVerification(rt, cmd, 'Checking the claim', (e, signal) => e.verifyClaim(req as never, { signal }), async () => (await import('../../output/human/claim.js')).renderClaim);
}
