/**
 * Everything a command may touch of the outside world, in one object, so unit tests run
 * commands with fake streams, environment and clock.
 */
import { resolvePaths, type VerityPaths } from '../config/paths.js';
import type { EarlyPdfThread } from '../engine/document/extraction-thread.js';
import type { EarlyMedia } from '../engine/media/early-media.js';
import { systemClock, type Clock } from '../engine/types.js';
import type { EarlyAnalysisWorker } from './engine-worker-boot.js';

export interface CliStreams {
  stdin: NodeJS.ReadableStream & { isTTY?: boolean };
  stdout: NodeJS.WritableStream & { isTTY?: boolean; columns?: number };
  stderr: NodeJS.WritableStream & { isTTY?: boolean; columns?: number };
}

export interface CliContext extends CliStreams {
  env: NodeJS.ProcessEnv;
  cwd: string;
  clock: Clock;
  paths: VerityPaths;
  /** Prompts are allowed only when a person is at both ends. */
  isInteractive(): boolean;
  /** Resolves when the user interrupts (Ctrl-C); commands that wait listen to it. */
  interrupted: AbortSignal;
  /**
   * What a command has kept so far, said in one line if the user interrupts it (main.ts prints
   * it with the exit). Commands that write (imports) set it; the default says nothing was kept.
   */
  keptOnInterrupt?: KeptOnInterrupt;
  /**
   * Run embedded media/document analysis in a worker thread (runtime.ts). Set for the real
   * process, whose built files include the worker; in-process tests run it on their thread.
   */
  analysisInWorker?: boolean;
  /** A PDF extraction thread started before the CLI loaded (bin/run-bundle.js); runtime.ts hands it to the engine. */
  earlyPdfThread?: EarlyPdfThread;
  /** The analysis worker, likewise started early for a large document (runtime.ts posts it the job). */
  earlyAnalysisWorker?: EarlyAnalysisWorker;
  /** `verify media`'s image decode, begun before the CLI loaded (bin/run-bundle.js); runtime.ts hands it to a local engine. */
  earlyMedia?: EarlyMedia;
  /**
   * Where this process keeps V8 code caches, when the host names a folder other than
   * paths.cacheDir (bin/run-bundle.js no longer does: its V8 flag change waits until the caches
   * are read, src/engine/document/pdf-tiering.ts).
   */
  codeCacheDir?: string;
}

export function processContext(interrupted: AbortSignal, keptOnInterrupt: KeptOnInterrupt = {}, early: { pdfThread?: EarlyPdfThread; analysisWorker?: EarlyAnalysisWorker; media?: EarlyMedia; codeCacheDir?: string } = {}): CliContext {
  return {
    stdin: process.stdin,
    stdout: process.stdout,
    stderr: process.stderr,
    env: process.env,
    cwd: process.cwd(),
    clock: systemClock,
    paths: resolvePaths(process.env),
    isInteractive: () => Boolean(process.stdin.isTTY && process.stdout.isTTY),
    interrupted,
    keptOnInterrupt,
    analysisInWorker: true,
    earlyPdfThread: early.pdfThread,
    earlyAnalysisWorker: early.analysisWorker,
    earlyMedia: early.media,
    codeCacheDir: early.codeCacheDir,
  };
}

/** Reads all of stdin (for `-` arguments and `--key -`). */
export async function readStdin(ctx: CliContext, limitBytes = 30 * 1024 * 1024): Promise<Buffer> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of ctx.stdin) {
    const b = typeof chunk === 'string' ? Buffer.from(chunk) : (chunk as Buffer);
    size += b.length;
    if (size > limitBytes) {
      const { VerityError } = await import('../api/errors.js');
      throw new VerityError('PAYLOAD_TOO_LARGE', `stdin is larger than ${Math.round(limitBytes / 1048576)} MB`);
    }
    chunks.push(b);
  }
  return Buffer.concat(chunks);
}

/** What main() says and does when the user interrupts the running command. */
export interface KeptOnInterrupt {
  /** One line saying what an interrupted command kept (imports); the default says nothing was. */
  note?: () => string;
  /**
   * Set by long-running commands (serve, listen, worker): Ctrl-C is how people stop them, so it
   * is their normal end — a graceful stop, the command's own exit code (0), no "interrupted" line —
   * as uvicorn, `stripe listen` and `python -m http.server` do. A second Ctrl-C still leaves at once.
   */
  stopsOnInterrupt?: boolean;
}

/**
 * Resolves when a long-running command (serve, listen, deliver --watch) should stop: Ctrl-C
 * arrives through ctx.interrupted (main.ts), SIGTERM comes from service managers.
 */
export function untilStopped(ctx: CliContext): Promise<void> {
  if (ctx.keptOnInterrupt) ctx.keptOnInterrupt.stopsOnInterrupt = true;
  return new Promise<void>((resolve) => {
    const stop = (): void => {
      process.off('SIGTERM', stop);
      ctx.interrupted.removeEventListener('abort', stop);
      resolve();
    };
    process.on('SIGTERM', stop);
    if (ctx.interrupted.aborted) stop();
    else ctx.interrupted.addEventListener('abort', stop, { once: true });
  });
}
