import { describe, expect, it } from 'vitest';
import { Output } from '../../../src/output/output.js';
import { colorLevel } from '../../../src/output/style.js';
import { VerityError } from '../../../src/api/errors.js';
import { fakeContext, runCli } from '../cli/fake-context.js';

const ANSI = /\u001b\[/;

describe('colour policy (DESIGN.md)', () => {
  it('on for a TTY, off when not a TTY', () => {
    expect(colorLevel({}, true, false)).toBeGreaterThan(0);
    expect(colorLevel({}, false, false)).toBe(0);
    expect(colorLevel({}, undefined, false)).toBe(0);
  });

  it('off with NO_COLOR (any non-empty value), TERM=dumb or --no-color, even on a TTY', () => {
    expect(colorLevel({ NO_COLOR: '1' }, true, false)).toBe(0);
    expect(colorLevel({ NO_COLOR: '' }, true, false)).toBeGreaterThan(0);
    expect(colorLevel({ TERM: 'dumb' }, true, false)).toBe(0);
    expect(colorLevel({}, true, true)).toBe(0);
  });

  it('FORCE_COLOR wins over the environment and a pipe, but not over the --no-color flag; FORCE_COLOR=0 turns colour off', () => {
    expect(colorLevel({ FORCE_COLOR: '1', NO_COLOR: '1', TERM: 'dumb' }, false, false)).toBe(1);
    // Flags beat environment variables.
    expect(colorLevel({ FORCE_COLOR: '1', NO_COLOR: '1', TERM: 'dumb' }, false, true)).toBe(0);
    expect(colorLevel({ FORCE_COLOR: '3' }, true, true)).toBe(0);
    expect(colorLevel({ FORCE_COLOR: '3' }, false, false)).toBe(3);
    expect(colorLevel({ FORCE_COLOR: '0' }, true, false)).toBe(0);
  });

  it('truecolor and 256-colour terminals get more colours', () => {
    expect(colorLevel({ COLORTERM: 'truecolor' }, true, false)).toBe(3);
    expect(colorLevel({ TERM: 'xterm-256color' }, true, false)).toBe(2);
  });

  it('a rendered result has escapes on a TTY and none in a pipe or with NO_COLOR', async () => {
    // CI=1 keeps ora's spinner away from the fake (non-cursor) stderr.
    const tty = await runCli(['verify', 'claim', 'x #false', '--test'], { stdoutTTY: true, stderrTTY: true, env: { TERM: 'xterm', CI: '1' } });
    expect(tty.stdout).toMatch(ANSI);
    const pipe = await runCli(['verify', 'claim', 'x #false', '--test']);
    expect(pipe.stdout).not.toMatch(ANSI);
    expect(pipe.stderr).not.toMatch(ANSI);
    const noColor = await runCli(['verify', 'claim', 'x #false', '--test'], { stdoutTTY: true, stderrTTY: true, env: { NO_COLOR: '1', CI: '1' } });
    expect(noColor.stdout).not.toMatch(ANSI);
  });
});

describe('Output', () => {
  it('--json: one JSON document on stdout, the error body on failure; talk on stderr', () => {
    const f = fakeContext();
    const out = new Output(f.ctx, { json: true, ndjson: false, quiet: false, verbose: false, noColor: false });
    out.error(new VerityError('VALIDATION_FAILED', 'Invalid claim', { details: [{ field: 'claim', issue: 'too long' }] }));
    return new Promise<void>((resolve) =>
      setImmediate(() => {
        expect(JSON.parse(f.stdout())).toEqual({
          error: { code: 'VALIDATION_FAILED', message: 'Invalid claim', details: [{ field: 'claim', issue: 'too long' }] },
        });
        expect(f.stderr()).toContain('error: Invalid claim');
        resolve();
      }),
    );
  });

  it('--quiet silences notes but not errors; spinners only on a TTY without --json', async () => {
    const f = fakeContext({ stderrTTY: false });
    const out = new Output(f.ctx, { json: false, ndjson: false, quiet: true, verbose: false, noColor: false });
    out.info('note');
    out.error(new VerityError('NOT_FOUND', 'gone'));
    const spinner = await out.spinner('working');
    spinner.succeed('done');
    await new Promise((r) => setImmediate(r));
    expect(f.stderr()).not.toContain('note');
    expect(f.stderr()).toContain('gone');
    expect(f.stderr()).not.toContain('done');
  });
});
