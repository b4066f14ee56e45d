/**
 * A real terminal for e2e tests: the built CLI runs in a tmux pane (its own tmux server on a
 * private socket), keys are sent as a person types them, and the screen is read back with
 * capture-pane. Waits poll the screen with a deadline; nothing sleeps for a fixed time.
 */
import { execFileSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { inject } from 'vitest';
import { newHome } from './run-cli.js';

export const hasTmux = ((): boolean => {
  try {
    execFileSync('tmux', ['-V'], { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
})();

const q = (s: string): string => `'${s.replace(/'/g, `'\\''`)}'`;

export interface Pane {
  /** The screen and its scroll-back, lines the terminal wrapped joined again (-J), trailing spaces trimmed. */
  screen(): string;
  keys(...keys: string[]): void;
  /** Polls the screen until `test` holds; returns the screen. */
  waitFor(test: RegExp | ((screen: string) => boolean), what: string, timeoutMs?: number): Promise<string>;
  /** Resolves with the exit status once the command has ended, as the shell's `$?` says it. */
  exitStatus(timeoutMs?: number): Promise<number>;
  kill(): void;
}

/**
 * Starts `verity ARGS` in a `cols`×`rows` terminal with a clean environment (no CI, so the
 * spinner and progress bar show as they do for a person).
 */
export function startInTmux(args: string[], o: { cols: number; rows?: number; env?: Record<string, string>; home?: string }): Pane {
  const root = inject('verityRoot');
  const socket = `verity-e2e-${process.pid}-${Math.random().toString(36).slice(2, 8)}`;
  const conf = join(newHome(), 'tmux.conf');
  // remain-on-exit keeps the pane (and its exit status) after the command ends.
  writeFileSync(conf, 'set -g remain-on-exit on\nset -g status off\nset -g history-limit 5000\n');
  const env = {
    PATH: process.env.PATH ?? '/usr/bin:/bin',
    HOME: process.env.HOME ?? '/tmp',
    LANG: 'C.UTF-8',
    TERM: 'xterm-256color',
    VERITY_HOME: o.home ?? newHome(),
    ...o.env,
  };
  // A shell around the command prints its exit status when it ends (tmux's own pane_dead_status
  // is not always filled in); the shell ignores SIGINT itself so that Ctrl-C reaches only verity.
  const verity = `env -i ${Object.entries(env)
    .map(([k, v]) => q(`${k}=${v}`))
    .join(' ')} ${q(process.execPath)} ${q(join(root, 'bin', 'verity.js'))} ${args.map(q).join(' ')}`;
  const command = `bash -c ${q(`trap '' INT; ${verity}; echo "[exit $?]"`)}`;
  const tmux = (...a: string[]): string => execFileSync('tmux', ['-L', socket, '-f', conf, ...a], { encoding: 'utf8' });
  tmux('new-session', '-d', '-s', 'e2e', '-x', String(o.cols), '-y', String(o.rows ?? 40), command);
  const screen = (): string =>
    tmux('capture-pane', '-p', '-J', '-S', '-', '-t', 'e2e')
      .split('\n')
      .map((l) => l.trimEnd())
      .join('\n')
      .trimEnd();
  const poll = async <T>(probe: () => T | undefined, what: string, timeoutMs: number): Promise<T> => {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const v = probe();
      if (v !== undefined) return v;
      if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}; screen:\n${screen()}`);
      await new Promise((r) => setTimeout(r, 25));
    }
  };
  return {
    screen,
    keys: (...keys) => void tmux('send-keys', '-t', 'e2e', ...keys),
    waitFor: (test, what, timeoutMs = 15_000) =>
      poll(
        () => {
          const s = screen();
          return (typeof test === 'function' ? test(s) : test.test(s)) ? s : undefined;
        },
        what,
        timeoutMs,
      ),
    exitStatus: (timeoutMs = 15_000) =>
      poll(
        () => {
          const m = /^\[exit (\d+)\]$/m.exec(screen());
          return m ? Number(m[1]) : undefined;
        },
        'the command to exit',
        timeoutMs,
      ),
    kill: () => {
      try {
        tmux('kill-server');
      } catch {
        // already gone
      }
    },
  };
}
