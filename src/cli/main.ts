/** The one place that sets the process exit code. */
import { CommanderError } from 'commander';
import type { EarlyPdfThread } from '../engine/document/extraction-thread.js';
import { processContext, type KeptOnInterrupt } from './context.js';
import type { EarlyAnalysisWorker } from './engine-worker-boot.js';
import type { EarlyMedia } from '../engine/media/early-media.js';
import { EXIT, exitCodeFor } from './errors.js';
import { settleParserError } from './parse-outcome.js';
import { buildProgram } from './program.js';
import { wrapLines } from '../output/wrap.js';

/**
 * After Ctrl-C a command has this long to unwind by itself (abort its HTTP calls, roll back its
 * open transaction) before the process leaves anyway: DESIGN.md promises an exit within 0.5 s.
 */
export const INTERRUPT_GRACE_MS = 350;

/**
 * A server stopped with Ctrl-C finishes the requests it is answering and flushes its store first
 * (the same graceful stop as SIGTERM); past this, or at a second Ctrl-C, it leaves anyway (130).
 */
export const SERVER_STOP_GRACE_MS = 10_000;

/** What bin/run-bundle.js started before loading the CLI (see early-start there). */
export interface EarlyStart {
  pdfThread?: EarlyPdfThread;
  analysisWorker?: EarlyAnalysisWorker;
  /** The decode of `verify media`'s image, begun while the CLI loaded. */
  media?: EarlyMedia;
  /**
   * The folder for this process's V8 code caches when its V8 flags were changed (else the default).
   */
  codeCacheDir?: string;
}

export async function main(argv: string[], early: EarlyStart = {}): Promise<void> {
  const interrupt = new AbortController();
  const kept: KeptOnInterrupt = {};
  let noted = false;
  /** One line on stderr saying what the interrupted command kept; printed once. */
  const sayKept = (): void => {
    if (noted) return;
    noted = true;
    let note = 'stopped before finishing; nothing further was saved';
    try {
      note = kept.note?.() ?? note;
    } catch {
      // The note is a courtesy; never let it stand between the user and the exit.
    }
    // A spinner may have hidden the cursor; give it back.
    const showCursor = process.stderr.isTTY ? '\u001b[?25h' : '';
    const cols = process.stderr.isTTY && process.stderr.columns ? process.stderr.columns : null;
    process.stderr.write(`${showCursor}\n${wrapLines(`interrupted: ${note}`, cols)}\n`);
  };
  /** Leaves now, whatever the command is still doing: DESIGN.md promises an exit within 0.5 s. */
  const leaveNow = (): void => {
    sayKept();
    process.exit(EXIT.interrupted);
  };
  const onSigint = (): void => {
    // Second Ctrl-C: leave now.
    if (interrupt.signal.aborted) return leaveNow();
    interrupt.abort(new Error('interrupted'));
    if (kept.stopsOnInterrupt) {
      // A server's normal end: its stop runs as for SIGTERM, and its exit code stands.
      kept.note = () => 'stopped before the requests in flight finished';
      setTimeout(leaveNow, SERVER_STOP_GRACE_MS).unref();
      return;
    }
    process.exitCode = EXIT.interrupted;
    setTimeout(leaveNow, INTERRUPT_GRACE_MS).unref();
  };
  process.on('SIGINT', onSigint);
  const ctx = processContext(interrupt.signal, kept, early);
  // A closed pipe (`verity … | head`) is a normal end, not a crash.
  process.stdout.on('error', (err: NodeJS.ErrnoException) => {
    if (err.code === 'EPIPE') process.exit(process.exitCode ?? 0);
  });
  const program = buildProgram(ctx);
  try {
    // Bare `verity` asks what there is: the help, on stdout, as a success (like `verity help`).
    await program.parseAsync(argv.length > 2 ? argv : [...argv, 'help']);
  } catch (err) {
    if (err instanceof CommanderError) {
      // Help and version are not failures; everything else commander rejects is a usage error,
      // including help shown because a subcommand is missing (`verity keys`: exitCode 1), and
      // prints the error document on stdout when --json asked for one.
      process.exitCode = settleParserError(err, program, argv.slice(2), ctx);
    } else {
      process.exitCode = exitCodeFor(err);
    }
  } finally {
    process.off('SIGINT', onSigint);
    // An early thread the command did not use (another input, an error) is not needed now.
    early.pdfThread?.discard();
    early.analysisWorker?.discard();
    early.media?.discard();
  }
  if (interrupt.signal.aborted && !kept.stopsOnInterrupt) {
    sayKept();
    process.exitCode = EXIT.interrupted;
  }
}
