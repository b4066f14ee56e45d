import type { Command } from 'commander';
import { VerityError } from '../../api/errors.js';
import type { CliRuntime } from '../runtime.js';
import type { ReportSource } from './report.js';
import { isUrl, readInputFile, gateFlags, runVerification, wrongCommandHint } from './verify-common.js';

/** Text is read as `raw`; anything with a NUL byte or a known binary signature is an `upload`. */
export function looksBinary(b: Buffer): boolean {
  const head = b.subarray(0, 8192);
  if (head.includes(0)) return true;
  const sig = head.subarray(0, 8).toString('latin1');
  return sig.startsWith('%PDF') || sig.startsWith('PK\u0003\u0004') || sig.startsWith('\u00ff\u00d8\u00ff') || sig.startsWith('\u0089PNG');
}

export default async function verifyDocument(rt: CliRuntime, cmd: Command): Promise<void> {
  gateFlags(cmd);
  const o = cmd.opts<{ source?: 'url' | 'upload' | 'raw'; content?: string; mimeType?: string; checkDeepfakes?: boolean; checkWatermarks?: boolean }>();
  const input = cmd.args[0] as string | undefined;
  if ((input === undefined) === (o.content === undefined))
    throw new VerityError('VALIDATION_FAILED', 'Give exactly one input: a path, a URL, - for stdin, or --content', {
      details: [{ field: 'content', issue: 'required' }],
    });
  let source = o.source;
  let content: string | undefined;
  // An uploaded file's bytes go to the engine as they are (`inputBytes`); the remote engine encodes them.
  let inputBytes: Buffer | undefined;
  const report: ReportSource = { subject: input && input !== '-' ? input : null };
  if (o.content !== undefined) {
    content = o.content;
    source ??= isUrl(content) ? 'url' : 'raw';
  } else if (input === '-') {
    const bytes = await rt.takeStdin('the document');
    source ??= looksBinary(bytes) ? 'upload' : 'raw';
    if (source === 'upload') inputBytes = bytes;
    else content = bytes.toString('utf8');
    report.input = bytes;
    report.subject = 'stdin';
  } else if (isUrl(input!) && (source === undefined || source === 'url')) {
    source = 'url';
    content = input!;
  } else {
    const bytes = await readInputFile(input!, 'content');
    source ??= 'upload';
    if (source === 'upload') inputBytes = bytes;
    else content = source === 'raw' ? bytes.toString('utf8') : bytes.toString('base64');
    report.input = bytes;
  }
  const req = { source, content, mime_type: o.mimeType, check_deepfakes: o.checkDeepfakes, check_watermarks: o.checkWatermarks };
  try {
    await runVerification(rt, cmd, 'Analysing the document', (e, signal) => e.verifyDocument(req as never, { signal, inputBytes }), async () => (await import('../../output/human/document.js')).renderDocument, report);
  } catch (err) {
    throw wrongCommandHint(err, 'document', input);
  }
}
