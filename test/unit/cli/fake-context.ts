/** An in-process CLI: real commander tree and commands, fake streams/env/clock, a temp VERITY_HOME. */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PassThrough, Readable } from 'node:stream';
import { CommanderError } from 'commander';
import type { CliContext } from '../../../src/cli/context.js';
import { EXIT, exitCodeFor } from '../../../src/cli/errors.js';
import { buildProgram } from '../../../src/cli/program.js';
import { settleParserError } from '../../../src/cli/parse-outcome.js';
import { resolvePaths } from '../../../src/config/paths.js';

export interface FakeOptions {
  env?: NodeJS.ProcessEnv;
  stdin?: string | Buffer;
  stdinTTY?: boolean;
  stdoutTTY?: boolean;
  stderrTTY?: boolean;
  interactive?: boolean;
  now?: Date;
  home?: string;
}

export interface Fake {
  ctx: CliContext;
  home: string;
  stdout(): string;
  stderr(): string;
}

function collector(isTTY: boolean): { stream: PassThrough & { isTTY?: boolean; columns?: number }; text(): string } {
  const stream = new PassThrough() as PassThrough & { isTTY?: boolean; columns?: number };
  stream.isTTY = isTTY;
  if (isTTY) stream.columns = 100;
  const chunks: Buffer[] = [];
  stream.on('data', (c: Buffer) => chunks.push(Buffer.from(c)));
  return { stream, text: () => Buffer.concat(chunks).toString('utf8') };
}

const homes: string[] = [];
export function tempHome(): string {
  const h = mkdtempSync(join(tmpdir(), 'verity-test-'));
  homes.push(h);
  return h;
}
export function cleanHomes(): void {
  for (const h of homes.splice(0)) rmSync(h, { recursive: true, force: true });
}

export function fakeContext(o: FakeOptions = {}): Fake {
  const home = o.home ?? tempHome();
  const env: NodeJS.ProcessEnv = { VERITY_HOME: home, ...o.env };
  const stdin = Readable.from(o.stdin === undefined ? [] : [Buffer.from(o.stdin)]) as Readable & { isTTY?: boolean };
  stdin.isTTY = o.stdinTTY ?? false;
  const out = collector(o.stdoutTTY ?? false);
  const err = collector(o.stderrTTY ?? false);
  const ctx: CliContext = {
    stdin,
    stdout: out.stream,
    stderr: err.stream,
    env,
    cwd: home,
    clock: { now: () => o.now ?? new Date('2026-03-01T12:00:00Z') },
    paths: resolvePaths(env),
    isInteractive: () => Boolean(o.interactive),
    interrupted: new AbortController().signal,
  };
  return { ctx, home, stdout: out.text, stderr: err.text };
}

/** Runs `verity ARGS` in-process; returns the exit code main() would set. */
export async function runCli(args: string[], o: FakeOptions | Fake = {}): Promise<{ code: number; stdout: string; stderr: string; home: string }> {
  const fake = 'ctx' in o ? o : fakeContext(o);
  let code: number = EXIT.ok;
  const program = buildProgram(fake.ctx);
  try {
    await program.parseAsync(['node', 'verity', ...args]);
  } catch (err) {
    if (err instanceof CommanderError) code = settleParserError(err, program, args, fake.ctx);
    else code = exitCodeFor(err);
  }
  // Let the PassThrough 'data' events flush.
  await new Promise((r) => setImmediate(r));
  return { code, stdout: fake.stdout(), stderr: fake.stderr(), home: fake.home };
}

/** A syntactically valid key of the given environment (32 base62 characters after the prefix). */
export const sampleKey = (env: 'live' | 'test', fill = 'A'): string => `vty_${env}_${'0123456789abcdefghijklmnopqrstuv'.slice(0, 31)}${fill}`;
