import { resolve } from 'node:path';
import type { Command } from 'commander';
import { VerityError } from '../../api/errors.js';
import { LIMITS } from '../../api/limits.js';
import type { CliRuntime } from '../runtime.js';
import type { ReportSource } from './report.js';
import { isUrl, readInputFile, gateFlags, runVerification, wrongCommandHint } from './verify-common.js';

export default async function verifyMedia(rt: CliRuntime, cmd: Command): Promise<void> {
  gateFlags(cmd);
  const o = cmd.opts<{ url?: string; file?: string; checkDeepfakes?: boolean; checkProvenance?: boolean; checkWatermarks?: boolean }>();
  const input = cmd.args[0] as string | undefined;
  const given = [input, o.url, o.file].filter((x) => x !== undefined);
  if (given.length !== 1)
    throw new VerityError('VALIDATION_FAILED', 'Give exactly one input: a path, a URL, - for stdin, --url or --file', {
      details: [{ field: 'url', issue: 'one of `url` or `file` is required' }],
    });
  const req: Record<string, unknown> = {
    check_deepfakes: o.checkDeepfakes,
    check_provenance: o.checkProvenance,
    check_watermarks: o.checkWatermarks,
  };
  // The report embeds the file it was given; a URL input is named but not downloaded again.
  const report: ReportSource = {};
  // A file's bytes go to the engine as they are (`inputBytes`); the remote engine encodes them.
  let inputBytes: Buffer | undefined;
  if (o.url !== undefined || (input !== undefined && isUrl(input))) {
    req.url = o.url ?? input;
    Object.assign(report, { subject: req.url, note: 'the input was a URL; the report does not download it (save the file and use verity report … --input FILE)' });
  } else if (input === '-') {
    const bytes = await rt.takeStdin('the media file');
    if (bytes.length > LIMITS.fileBytes) throw new VerityError('PAYLOAD_TOO_LARGE', 'stdin is larger than 20 MB');
    inputBytes = bytes;
    Object.assign(report, { input: bytes, subject: 'stdin' });
  } else {
    const path = (o.file ?? input)!;
    // The file bin/run-bundle.js read to start its decode early, when it is still that file.
    const bytes = rt.ctx.earlyMedia?.fileBytes(resolve(rt.ctx.cwd, path)) ?? (await readInputFile(path, 'file'));
    inputBytes = bytes;
    Object.assign(report, { input: bytes, subject: o.file ?? input });
  }
  try {
    await runVerification(rt, cmd, 'Analysing the media', (e, signal) => e.verifyMedia(req as never, { signal, inputBytes }), async () => (await import('../../output/human/media.js')).renderMedia, report);
  } catch (err) {
    throw wrongCommandHint(err, 'media', o.file ?? input);
  }
}
