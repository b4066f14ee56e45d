import { afterAll, describe, expect, it } from 'vitest';
import { ERROR_CATALOGUE, VerityError, type ErrorCode } from '../../../src/api/errors.js';
import { EXIT, ExitError, exitCodeFor, GateFailure } from '../../../src/cli/errors.js';
import { cleanHomes, runCli } from './fake-context.js';

afterAll(cleanHomes);

/** DESIGN.md "Exit codes", written out independently of the catalogue it checks. */
const EXPECTED: Record<ErrorCode, number> = {
  INVALID_REQUEST: 2,
  VALIDATION_FAILED: 2,
  UNAUTHORIZED: 4,
  QUOTA_EXCEEDED: 5,
  FORBIDDEN: 4,
  NOT_FOUND: 1,
  PAYLOAD_TOO_LARGE: 2,
  UNSUPPORTED_MEDIA_TYPE: 2,
  UNPROCESSABLE_CONTENT: 2,
  RATE_LIMITED: 5,
  INTERNAL_ERROR: 1,
  UNAVAILABLE: 6,
  CONFLICT: 5,
};

describe('exit-code mapping', () => {
  it('covers exactly the catalogue', () => {
    expect(Object.keys(EXPECTED).sort()).toEqual(Object.keys(ERROR_CATALOGUE).sort());
  });

  it.each(Object.entries(EXPECTED))('%s → exit %i', (code, exit) => {
    expect(exitCodeFor(new VerityError(code as ErrorCode, 'x'))).toBe(exit);
  });

  it('gates → 3, an unknown throwable → 1, a reported failure keeps its code', () => {
    expect(exitCodeFor(new GateFailure(['x']))).toBe(EXIT.gate);
    expect(EXIT.gate).toBe(3);
    expect(exitCodeFor(new TypeError('boom'))).toBe(1);
    expect(exitCodeFor(new ExitError(130))).toBe(130);
  });
});

describe('exit codes through the CLI (sandbox, in-process)', () => {
  it('0 for a result; 3 when --fail-on or --min-trust fails, with the result still printed', async () => {
    expect((await runCli(['verify', 'claim', 'The sky is blue', '--test'])).code).toBe(0);
    const gated = await runCli(['verify', 'claim', 'The moon is cheese #false', '--test', '--json', '--fail-on', 'false']);
    expect(gated.code).toBe(3);
    expect(JSON.parse(gated.stdout).verdict).toBe('false');
    expect((await runCli(['verify', 'claim', 'x', '--test', '--min-trust', '0.99'])).code).toBe(3);
    expect((await runCli(['verify', 'business', 'Globex Dissolved Ltd', '--test', '--fail-on', 'dissolved,liquidation'])).code).toBe(3);
  });

  it('2 for invalid input and unknown gate values; 1 for NOT_FOUND; 6 for UNAVAILABLE', async () => {
    const invalid = await runCli(['verify', 'claim', 'x', '--test', '--max-evidence', '21', '--json']);
    expect(invalid.code).toBe(2);
    expect(JSON.parse(invalid.stdout).error.details[0].field).toBe('max_evidence');
    expect((await runCli(['verify', 'claim', 'x', '--test', '--fail-on', 'maybe'])).code).toBe(2);
    expect((await runCli(['verify', 'business', 'Notfound Ltd', '--test'])).code).toBe(1);
    const down = await runCli(['verify', 'claim', 'x #unavailable', '--test', '--json']);
    expect(down.code).toBe(6);
    expect(JSON.parse(down.stdout).error).toMatchObject({ code: 'UNAVAILABLE', retry_after: 30 });
  });

  it('2 for unknown flags and commands, with a hint', async () => {
    const r = await runCli(['verify', 'claim', 'x', '--bogus']);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain("unknown option '--bogus'");
    expect(r.stderr).toContain('--help');
    const typo = await runCli(['verfy']);
    expect(typo.code).toBe(2);
    expect(typo.stderr).toMatch(/Did you mean verify\?/);
  });
});
