/** What the `keys` commands share: reading a new key without echoing it, and key names. */
import { readFileSync } from 'node:fs';
import { VerityError } from '../../api/errors.js';
import { keyEnvironment, type KeyEnvironment } from '../../config/schema.js';
import { EXIT, ExitError } from '../errors.js';
import type { CliRuntime } from '../runtime.js';

/** Key names are used as flags (`--key NAME`) and in file listings: keep them shell-friendly. */
export const KEY_NAME = /^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$/;

export function checkKeyName(name: string): string {
  if (!KEY_NAME.test(name))
    throw new VerityError('VALIDATION_FAILED', `Invalid key name "${name}"`, {
      details: [{ field: 'name', issue: 'use 1 to 64 letters, digits, ".", "_" or "-", starting with a letter or digit' }],
    });
  // A name that looks like a key would make `--key NAME` ambiguous, and would print the key.
  if (name.startsWith('vty_'))
    throw new VerityError('VALIDATION_FAILED', 'A key name must not start with "vty_" (that is what keys look like)', {
      details: [{ field: 'name', issue: 'must not start with "vty_"' }],
    });
  return name;
}

const FORMAT_ISSUE = 'expected vty_live_ or vty_test_ followed by 32 letters and digits';

/** The key's environment, or a VALIDATION_FAILED that never repeats the (possibly secret) input. */
export function checkKeyValue(value: string, origin: string): KeyEnvironment {
  const env = keyEnvironment(value);
  if (!env)
    throw new VerityError('VALIDATION_FAILED', `The key from ${origin} is not a verity API key (${FORMAT_ISSUE})`, {
      details: [{ field: 'key', issue: FORMAT_ISSUE }],
    });
  return env;
}

/**
 * The key to store, by precedence: --key-file, --key -, --key VALUE, a hidden prompt on a
 * terminal, else piped stdin. Never from a terminal stdin without a prompt (it would echo).
 */
export async function readNewKey(rt: CliRuntime): Promise<{ value: string; origin: string }> {
  const { key, keyFile } = rt.opts;
  if (keyFile) {
    let text: string;
    try {
      text = readFileSync(keyFile, 'utf8');
    } catch {
      throw new VerityError('VALIDATION_FAILED', `Cannot read the key file ${keyFile}`, {
        details: [{ field: 'key-file', issue: 'file not found or not readable' }],
      });
    }
    return { value: firstLine(text), origin: 'the key file' };
  }
  if (key === '-') return { value: firstLine((await rt.takeStdin('the API key')).toString('utf8')), origin: 'stdin' };
  if (key) {
    rt.out.warn('a key given on the command line stays in your shell history; prefer --key - or --key-file');
    return { value: key.trim(), origin: '--key' };
  }
  if (rt.ctx.isInteractive()) return { value: await promptKey(rt), origin: 'the prompt' };
  if (!rt.ctx.stdin.isTTY) return { value: firstLine((await rt.takeStdin('the API key')).toString('utf8')), origin: 'stdin' };
  throw new VerityError('VALIDATION_FAILED', 'No key given: pipe it on stdin, or use --key - or --key-file PATH', {
    details: [{ field: 'key', issue: 'required (stdin, --key - or --key-file)' }],
  });
}

/** Files and pipes often end with a newline, and `echo` adds one; the key is the first line. */
function firstLine(text: string): string {
  const line = text.split(/\r?\n/).find((l) => l.trim() !== '');
  if (line === undefined)
    throw new VerityError('VALIDATION_FAILED', 'The key input is empty', { details: [{ field: 'key', issue: 'required' }] });
  return line.trim();
}

async function promptKey(rt: CliRuntime): Promise<string> {
  const { password } = await import('@inquirer/prompts');
  try {
    const v = await password(
      {
        message: 'API key (vty_live_… or vty_test_…):',
        mask: '*',
        validate: (s: string) => (keyEnvironment(s.trim()) ? true : FORMAT_ISSUE),
      },
      // The prompt is talk, not data: it goes to stderr so stdout stays clean.
      { input: rt.ctx.stdin, output: rt.ctx.stderr, signal: rt.ctx.interrupted },
    );
    return v.trim();
  } catch (err) {
    if (err instanceof Error && /ExitPromptError|AbortPromptError/.test(err.name)) throw new ExitError(EXIT.interrupted);
    throw err;
  }
}

export { confirmed } from '../confirm.js';
