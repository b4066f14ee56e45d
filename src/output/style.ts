/**
 * Colour policy: flags beat environment variables. --no-color turns colour off whatever the
 * environment says; then FORCE_COLOR wins over NO_COLOR, TERM=dumb and a non-terminal.
 */
import { Chalk, type ChalkInstance } from 'chalk';

export function colorLevel(env: NodeJS.ProcessEnv, isTTY: boolean | undefined, noColorFlag: boolean): 0 | 1 | 2 | 3 {
  if (noColorFlag) return 0;
  const force = env.FORCE_COLOR;
  if (force !== undefined && force !== '') {
    if (force === '0' || force === 'false') return 0;
    return force === '2' ? 2 : force === '3' ? 3 : 1;
  }
  if (env.NO_COLOR !== undefined && env.NO_COLOR !== '') return 0;
  if (env.TERM === 'dumb') return 0;
  if (!isTTY) return 0;
  if (env.COLORTERM === 'truecolor' || env.COLORTERM === '24bit') return 3;
  return /256/.test(env.TERM ?? '') ? 2 : 1;
}

export type Style = ChalkInstance;
export const makeStyle = (level: 0 | 1 | 2 | 3): Style => new Chalk({ level });

/**
 * OSC 8 hyperlinks: only on a terminal known to show them (others print the escape as junk, or
 * nothing), never with --no-color; FORCE_HYPERLINK=1/0 overrides the guess. The URL text is
 * printed either way.
 */
export function hyperlinkSupport(env: NodeJS.ProcessEnv, isTTY: boolean | undefined, noColorFlag: boolean): boolean {
  if (env.FORCE_HYPERLINK !== undefined && env.FORCE_HYPERLINK !== '') return env.FORCE_HYPERLINK !== '0';
  if (noColorFlag || !isTTY || env.TERM === 'dumb' || env.CI) return false;
  // tmux and screen pass OSC 8 through only when configured to: do not guess.
  if (env.TMUX || (env.TERM ?? '').startsWith('screen')) return false;
  if (env.WT_SESSION || env.KONSOLE_VERSION || env.DOMTERM) return true;
  if (['iTerm.app', 'WezTerm', 'vscode', 'ghostty', 'Hyper'].includes(env.TERM_PROGRAM ?? '')) return true;
  if (Number(env.VTE_VERSION) >= 5000) return true;
  return /^(xterm-kitty|alacritty|foot|wezterm)/.test(env.TERM ?? '');
}
