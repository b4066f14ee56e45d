/**
 * `verity report RESULT.json [--input FILE] -o FILE.html`, and the file writing behind
 * `verify … --report FILE.html` and `verify media … --heatmap FILE.png` (docs/report.md).
 * The renderer (src/report) is imported only when a report is asked for.
 */
import { statSync, writeFileSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import type { Command } from 'commander';
import { VerityError } from '../../api/errors.js';
import type { MediaResult } from '../../api/results.js';
import { VERSION } from '../../version.js';
import type { CliRuntime } from '../runtime.js';
import { readInputFile } from '../input-files.js';

export type ReportKind = 'claim' | 'business' | 'media' | 'document';

/** What a report shows besides the result: the input file (media, documents) and how to name the subject. */
export interface ReportSource {
  input?: Buffer | null;
  subject?: string | null;
  /** Why the input is not embedded (a URL input, stdin text). */
  note?: string | null;
}

/** An output path must name a file in an existing folder; checked before any work is done. */
export function checkOutputPath(path: string, field: string): void {
  const full = resolve(path);
  let dirOk = false;
  try {
    dirOk = statSync(dirname(full)).isDirectory();
  } catch {
    dirOk = false;
  }
  if (!dirOk) throw new VerityError('VALIDATION_FAILED', `Cannot write ${path}: the folder ${dirname(full)} does not exist`, { details: [{ field, issue: 'folder does not exist' }] });
  try {
    if (statSync(full).isDirectory()) throw new VerityError('VALIDATION_FAILED', `Cannot write ${path}: it is a folder`, { details: [{ field, issue: 'is a folder' }] });
  } catch (err) {
    if (err instanceof VerityError) throw err;
  }
}

function writeOut(path: string, data: string | Buffer, field: string): void {
  try {
    writeFileSync(path, data);
  } catch (err) {
    throw new VerityError('VALIDATION_FAILED', `Cannot write ${path}: ${(err as NodeJS.ErrnoException).code ?? (err as Error).message}`, { details: [{ field, issue: 'not writable' }] });
  }
}

export async function writeReport(rt: CliRuntime, kind: ReportKind, result: object, source: ReportSource, path: string): Promise<void> {
  const { renderReport } = await import('../../report/index.js');
  const html = await renderReport({ kind, result: result as never, input: source.input, subject: source.subject, inputNote: source.note, now: rt.ctx.clock.now(), version: VERSION });
  writeOut(path, html, 'report');
  rt.out.info(`Report written to ${path} (${(Buffer.byteLength(html) / 1024).toFixed(0)} KB)`);
}

export async function writeHeatmap(rt: CliRuntime, result: MediaResult, path: string): Promise<void> {
  const { heatmapPng } = await import('../../report/index.js');
  if (!result.forensics) rt.out.warn('The result has no per-tile data (pixels not analysed, or an older server): the heat map shows only named regions, if any');
  writeOut(path, await heatmapPng(result), 'heatmap');
  rt.out.info(`Heat map written to ${path}`);
}

/**
 * The file given with --input must be the one the result describes: a report that embeds another
 * image beside the verdict would show a verdict about a picture it was never given. The result's
 * `file` (SHA-256, size) decides; a result without it (an older one, a URL in the sandbox) is
 * checked on what it records (media: format, width, height) and the report says so.
 */
async function checkInputMatches(
  rt: CliRuntime,
  kind: ReportKind,
  result: { file?: { sha256: string; bytes: number }; metadata?: unknown },
  input: Buffer,
  path: string,
): Promise<void> {
  const mismatch = (why: string): VerityError =>
    new VerityError('VALIDATION_FAILED', `${path} is not the file this result describes: ${why}`, {
      details: [{ field: 'input', issue: 'not the analysed file' }],
      hint: 'give the file that was verified, or verify this one first (`verity verify ' + kind + ' ' + path + ' --report OUT.html`)',
    });
  if (result.file) {
    const { fileDigest } = await import('../../engine/file-digest.js');
    const got = fileDigest(input);
    if (got.sha256 !== result.file.sha256)
      throw mismatch(
        `its SHA-256 is ${got.sha256.slice(0, 12)}… (${got.bytes} bytes), the result's file ${result.file.sha256.slice(0, 12)}… (${result.file.bytes} bytes)`,
      );
    return;
  }
  if (kind === 'media') {
    const m = result.metadata as { format?: string; width?: number; height?: number } | undefined;
    const { mediaFacts } = await import('../../engine/sandbox/file-facts.js');
    const facts = await mediaFacts(input);
    if (m?.format && m.format !== 'unknown' && facts.format !== m.format) throw mismatch(`it is ${facts.format}, the result describes ${m.format}`);
    if (m?.width && m.height && facts.width && (facts.width !== m.width || facts.height !== m.height))
      throw mismatch(`it is ${facts.width}×${facts.height}, the result describes ${m.width}×${m.height}`);
  }
  rt.out.warn(`the result records no digest of its file (made by an older version, or from a URL): ${path} was checked on its ${kind === 'media' ? 'format and size in pixels' : 'name'} only`);
}

export default async function report(rt: CliRuntime, cmd: Command): Promise<void> {
  const o = cmd.opts<{ input?: string; output: string }>();
  const file = cmd.args[0] as string;
  checkOutputPath(o.output, 'output');
  let raw: Buffer;
  if (file === '-') raw = await rt.takeStdin('the result JSON');
  else raw = await readInputFile(file, 'result');
  let json: unknown;
  try {
    json = JSON.parse(raw.toString('utf8'));
  } catch (err) {
    throw new VerityError('VALIDATION_FAILED', `${file === '-' ? 'stdin' : file} is not JSON: ${(err as Error).message}`, { details: [{ field: 'result', issue: 'not JSON' }] });
  }
  const { readResult } = await import('../../report/index.js');
  const { kind, result } = readResult(json);
  let input: Buffer | null = null;
  if (o.input !== undefined) {
    if (kind === 'claim' || kind === 'business') rt.out.warn(`--input is not used for a ${kind} report`);
    else {
      input = await readInputFile(o.input, 'input');
      await checkInputMatches(rt, kind, result as { file?: { sha256: string; bytes: number }; metadata?: unknown }, input, o.input);
    }
  }
  await writeReport(rt, kind, result, { input, subject: o.input ?? null, note: kind === 'media' && !input ? 'no input file was given (add --input FILE to embed the image)' : null }, o.output);
}
