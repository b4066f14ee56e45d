/** What the four `verify` commands share: input reading, the engine call, output and gates. */
import { isNotMeasured } from '../../api/not-measured.js';
import type { Command } from 'commander';
import { VerityError } from '../../api/errors.js';
import type { Engine } from '../../engine/types.js';
import type { Output } from '../../output/output.js';
import { checkGates, parseGates, type GateKind, type GateOptions } from '../../api/gates.js';
import { recordKeyUse } from '../key-usage.js';
import { emitEmbeddedWebhooks } from '../embedded-hook.js';
import type { CliRuntime } from '../runtime.js';
import type { MediaResult } from '../../api/results.js';
import { checkOutputPath, writeHeatmap, writeReport, type ReportKind, type ReportSource } from './report.js';

export const splitList = (s: string | undefined): string[] | undefined =>
  s === undefined
    ? undefined
    : s
        .split(',')
        .map((x) => x.trim())
        .filter(Boolean);

/** A number flag, keeping non-numbers as they are so the schema names the field in its error. */
export const numberFlag = (s: string | undefined): number | string | undefined =>
  s === undefined ? undefined : /^-?\d+(\.\d+)?$/.test(s.trim()) ? Number(s) : s;

export const isUrl = (s: string): boolean => /^https?:\/\//i.test(s);

export { readInputFile, requireFile } from '../input-files.js';

/** The --fail-on/--min-trust values, checked before any input is read or sent. */
export const gateFlags = (cmd: Command): ReturnType<typeof parseGates> => parseGates(cmd.opts<GateOptions>(), cmd.name() as GateKind);

/** Runs one verification with a spinner, prints it, then applies the caller's gates. */
export async function runVerification<T extends object>(
  rt: CliRuntime,
  cmd: Command,
  label: string,
  call: (engine: Engine, signal: AbortSignal) => Promise<T>,
  /** Loads the human renderer; not called with --json, so scripts never load it. */
  loadRender: () => Promise<(result: T, out: Output) => string>,
  /** For `--report`: the input file and the subject's name (src/cli/commands/report.ts). */
  reportSource: ReportSource = {},
): Promise<void> {
  const gates = gateFlags(cmd);
  const files = cmd.opts<{ report?: string; heatmap?: string }>();
  // Output paths are checked before the (possibly paid) verification runs.
  if (files.report !== undefined) checkOutputPath(files.report, 'report');
  if (files.heatmap !== undefined) checkOutputPath(files.heatmap, 'heatmap');
  const { engine, connection, close } = await rt.engine();
  rt.out.notBilled = connection.mode === 'embedded';
  const where = connection.mode === 'remote' ? new URL(connection.baseUrl).host : connection.sandbox ? 'sandbox' : 'live';
  rt.out.debug(`mode: ${connection.mode} (${where})${connection.key ? `, key from ${connection.key.origin}` : ''}`);
  const spinner = await rt.out.spinner(`${label} (${where})…`);
  let result: T;
  try {
    result = await call(engine, rt.ctx.interrupted);
    spinner.stop();
  } catch (err) {
    spinner.stop();
    throw err;
  } finally {
    close();
  }
  if (connection.key) recordKeyUse(rt.ctx.paths.dataDir, connection.key.value, rt.ctx.clock.now());
  const warnings = (result as { warnings?: string[] }).warnings;
  // "not measured" lines are shown in the result itself, where the number would be (not twice).
  if (!rt.out.machine) for (const w of warnings ?? []) if (!isNotMeasured(w)) rt.out.warn(w);
  rt.out.result(result, rt.out.machine ? () => '' : await loadRender());
  if (files.report !== undefined) await writeReport(rt, cmd.name() as ReportKind, result, reportSource, files.report);
  if (files.heatmap !== undefined) await writeHeatmap(rt, result as unknown as MediaResult, files.heatmap);
  await emitEmbeddedWebhooks(rt.ctx.paths, connection.mode, result, rt.out, rt.ctx.interrupted);
  checkGates(result as Record<string, unknown>, gates);
}

/** The same error with a next step added (errors are immutable once raised). */
export function withHint(err: VerityError, hint: string): VerityError {
  return err.with({ hint });
}

const DOCUMENT_TYPE = /application\/pdf|wordprocessingml|msword|opendocument|text\/|application\/zip|\.(pdf|docx?|odt|txt|md|rtf)$/i;
const MEDIA_TYPE = /video\/|audio\/|image\/|\.(mp4|mov|m4v|webm|mkv|avi)$/i;

/**
 * A file given to the wrong verify command: `verify media letter.pdf` is told about
 * `verify document`, `verify document clip.mp4` about `verify media`.
 */
export function wrongCommandHint(err: unknown, command: 'media' | 'document', input: string | undefined): unknown {
  if (!(err instanceof VerityError) || err.code !== 'UNSUPPORTED_MEDIA_TYPE' || err.hint) return err;
  const seen = `${err.message} ${input ?? ''}`;
  const arg = input && input !== '-' ? ` ${/^[\w./:@%+-]+$/.test(input) ? input : `'${input.replace(/'/g, "'\\''")}'`}` : ' FILE';
  if (command === 'media' && DOCUMENT_TYPE.test(seen)) return withHint(err, `documents (PDF, DOCX, text) are checked with \`verity verify document${arg}\``);
  if (command === 'document' && MEDIA_TYPE.test(seen)) return withHint(err, `videos are checked with \`verity verify media${arg}\``);
  return err;
}
