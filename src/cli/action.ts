/**
 * Wraps a command module so that (1) its code is imported only when the command runs, and
 * (2) every failure is reported once, in the right format, and becomes an exit code.
 */
import type { Command } from 'commander';
import { confirmed } from './confirm.js';
import type { CliContext } from './context.js';
import { EXIT, ExitError, GateFailure, hintFor, toCliError } from './errors.js';
import { flagFor, nameFlags } from './flag-names.js';
import { CliRuntime, type Connection, type GlobalOptions } from './runtime.js';

export interface CommandModule {
  default(rt: CliRuntime, cmd: Command): Promise<void>;
}

export type ActionLoader = () => Promise<CommandModule>;

export interface ActionOptions {
  /**
   * A destructive command: the question asked on a terminal before it runs (the command must
   * also offer `-y, --yes`, see destructive() in tree/conventions.ts); scripts pass --yes.
   */
  confirm?: (cmd: Command) => string;
}

export function lazyAction(ctx: CliContext, load: ActionLoader, o: ActionOptions = {}) {
  return async (...args: unknown[]): Promise<void> => {
    const cmd = args[args.length - 1] as Command;
    const rt = new CliRuntime(ctx, cmd.optsWithGlobals<GlobalOptions>());
    try {
      if (o.confirm && !(await confirmed(rt, o.confirm(cmd), cmd.opts<{ yes?: boolean }>().yes))) {
        rt.out.info('Nothing changed.');
        return;
      }
      const mod = await load();
      await mod.default(rt, cmd);
    } catch (err) {
      if (err instanceof ExitError) throw err;
      if (err instanceof GateFailure) {
        rt.out.info(`${rt.out.errStyle.red('gate failed:')} ${err.message}`);
        throw new ExitError(EXIT.gate);
      }
      if (ctx.interrupted.aborted) throw new ExitError(EXIT.interrupted);
      const e = nameFlags(toCliError(err), cmd);
      let connection: Connection | undefined;
      try {
        connection = await rt.connection();
      } catch {
        connection = undefined;
      }
      rt.out.error(e, hintFor(e, connection, rt.ctx.clock.now()), (f) => flagFor(cmd, f) ?? f);
      if (e.code === 'INTERNAL_ERROR' && rt.opts.verbose && e.cause instanceof Error) rt.out.debug(e.cause.stack ?? String(e.cause));
      throw new ExitError(e.exitCode);
    }
  };
}
