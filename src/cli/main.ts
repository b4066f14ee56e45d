/** The one place that sets the process exit code. */
import { CommanderError } from 'commander';
import { processContext } from './context.js';
import { EXIT, exitCodeFor } from './errors.js';
import { buildProgram } from './program.js';

export async function main(argv: string[]): Promise<void> {
  const interrupt = new AbortController();
  const onSigint = (): void => {
    if (interrupt.signal.aborted) process.exit(EXIT.interrupted); // second Ctrl-C: leave now
    interrupt.abort(new Error('interrupted'));
    process.exitCode = EXIT.interrupted;
  };
  process.on('SIGINT', onSigint);
  const ctx = processContext(interrupt.signal);
  // A closed pipe (`verity … | head`) is a normal end, not a crash.
  process.stdout.on('error', (err: NodeJS.ErrnoException) => {
    if (err.code === 'EPIPE') process.exit(process.exitCode ?? 0);
  });
  try {
    await buildProgram(ctx).parseAsync(argv);
    if (interrupt.signal.aborted) process.exitCode = EXIT.interrupted;
  } catch (err) {
    if (err instanceof CommanderError) {
      // Help and version are not failures; everything else commander rejects is a usage error,
      // including help shown because a subcommand is missing (`verity keys`: exitCode 1).
      const ok = ['commander.helpDisplayed', 'commander.version'].includes(err.code) || (err.code === 'commander.help' && err.exitCode === 0);
      process.exitCode = ok ? EXIT.ok : EXIT.usage;
    } else {
      process.exitCode = exitCodeFor(err);
    }
  } finally {
    process.off('SIGINT', onSigint);
  }
}
