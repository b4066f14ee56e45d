/** The results journal: one whole line per result, refused reuse without --resume, torn lines survived. */
import { spawn } from 'node:child_process';
import { appendFileSync, existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { VerityError } from '../../../src/api/errors.js';
import { openJournal, readJournal, type ResultLine } from '../../../src/batch/journal.js';
import { formatDuration, progressLine } from '../../../src/batch/progress.js';
import { exitCodeOf, gateReasons, parseBatchGates } from '../../../src/batch/outcome.js';

const dir = mkdtempSync(join(tmpdir(), 'verity-batch-journal-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const ok = (id: string, line: number, result: Record<string, unknown> = { verdict: 'true', trust_score: 0.9 }): ResultLine => ({
  custom_id: id,
  index: line - 1,
  line,
  type: 'claim',
  status: 'succeeded',
  result,
});
const bad = (id: string, line: number): ResultLine => ({ custom_id: id, index: line - 1, line, type: 'claim', status: 'failed', error: { code: 'UNAVAILABLE', message: 'down' } });

describe('journal', () => {
  it('appends whole lines; resume reads ids, status and gate values back; the last line of an id wins', async () => {
    const path = join(dir, 'a.ndjson');
    const j = openJournal(path, false);
    j.append(ok('a', 1));
    j.append(bad('b', 2));
    j.append(ok('c', 3, { verdict: 'false', trust_score: 0.2, evidence: [{ long: 'x'.repeat(1000) }] }));
    expect(j.written).toBe(3);
    j.close();
    const lines = readFileSync(path, 'utf8').split('\n');
    expect(lines).toHaveLength(4);
    expect(lines.slice(0, 3).map((l) => JSON.parse(l).custom_id)).toEqual(['a', 'b', 'c']);
    const again = openJournal(path, true);
    again.append(ok('b', 2));
    again.close();
    const m = await readJournal(path);
    expect([...m.entries()].map(([id, e]) => [id, e.status])).toEqual([
      ['a', 'succeeded'],
      ['b', 'succeeded'],
      ['c', 'succeeded'],
    ]);
    expect(m.get('c')!.gateView).toEqual({ verdict: 'false', trust_score: 0.2 });
  });

  it('an existing journal without --resume is refused (exit 2), and an empty one is fine', () => {
    const path = join(dir, 'b.ndjson');
    writeFileSync(path, `${JSON.stringify(ok('a', 1))}\n`);
    let err: unknown;
    try {
      openJournal(path, false);
    } catch (e) {
      err = e;
    }
    expect(err).toBeInstanceOf(VerityError);
    expect((err as VerityError).details).toEqual([{ field: 'out', issue: expect.stringMatching(/--resume/) }]);
    writeFileSync(join(dir, 'empty.ndjson'), '');
    openJournal(join(dir, 'empty.ndjson'), false).close();
  });

  it('one run per journal: a second open is refused (exit 2) while the first holds it; a dead run\'s lock is taken over', async () => {
    const path = join(dir, 'locked.ndjson');
    const first = openJournal(path, false);
    let err: unknown;
    try {
      openJournal(path, true);
    } catch (e) {
      err = e;
    }
    expect(err).toBeInstanceOf(VerityError);
    expect((err as VerityError).code).toBe('VALIDATION_FAILED');
    expect((err as VerityError).message).toContain(`in use by another batch run (PID ${process.pid}`);
    expect((err as VerityError).details).toEqual([{ field: 'out', issue: 'in use by another run' }]);
    first.close();
    expect(existsSync(`${path}.lock`)).toBe(false);
    // A run killed with -9 leaves its lock; its PID no longer runs.
    const dead = spawn(process.execPath, ['-e', '0']);
    await new Promise((r) => dead.once('exit', r));
    writeFileSync(`${path}.lock`, JSON.stringify({ pid: dead.pid, started_at: '2026-01-01T00:00:00Z' }));
    openJournal(path, true).close();
  });

  it('a torn last line (a write cut short) is ignored and closed off before the next line', async () => {
    const path = join(dir, 'torn.ndjson');
    writeFileSync(path, `${JSON.stringify(ok('a', 1))}\n{"custom_id":"b","status":"succ`);
    expect([...(await readJournal(path)).keys()]).toEqual(['a']);
    const j = openJournal(path, true);
    j.append(ok('b', 2));
    j.close();
    expect([...(await readJournal(path)).keys()]).toEqual(['a', 'b']);
    appendFileSync(path, 'not json\n');
    expect((await readJournal(path)).size).toBe(2);
    expect(await readJournal(join(dir, 'missing.ndjson'))).toEqual(new Map());
  });
});

describe('progress line', () => {
  it('reads like "312/1000 ✓298 ✗14 · 12/s · ETA 55s"', () => {
    expect(progressLine({ done: 312, total: 1000, succeeded: 298, failed: 14, doneThisRun: 312, elapsedMs: 26_000 })).toBe('312/1000 ✓298 ✗14 · 12/s · ETA 57s');
    expect(progressLine({ done: 0, total: 10, succeeded: 0, failed: 0, doneThisRun: 0, elapsedMs: 5 })).toBe('0/10 ✓0 ✗0');
    // Resumed items count as done but not in the rate.
    expect(progressLine({ done: 60, total: 100, succeeded: 60, failed: 0, doneThisRun: 10, elapsedMs: 4000 })).toBe('60/100 ✓60 ✗0 · 2.5/s · ETA 16s');
    expect(progressLine({ done: 5, total: 5, succeeded: 5, failed: 0, doneThisRun: 5, elapsedMs: 1000 })).toBe('5/5 ✓5 ✗0 · 5.0/s');
    expect(formatDuration(3725)).toBe('1h02m');
    expect(formatDuration(125)).toBe('2m05s');
  });
});

describe('gates and exit codes', () => {
  it('--fail-on takes any kind\'s values (a batch may mix kinds) and refuses others', () => {
    const g = parseBatchGates({ failOn: 'false,dissolved,manipulated', minTrust: '0.5' });
    expect(gateReasons({ verdict: 'false', trust_score: 0.9 }, g)).toEqual(['result is "false" (--fail-on)']);
    expect(gateReasons({ status: 'active', trust_score: 0.4 }, g)).toEqual(['trust score 0.4 is below --min-trust 0.5']);
    expect(gateReasons({ authenticity: 'authentic', trust_score: 0.8 }, g)).toEqual([]);
    expect(() => parseBatchGates({ failOn: 'fake' })).toThrow(/not a value any result can have/);
    expect(() => parseBatchGates({ minTrust: '2' })).toThrow(/0 to 1/);
  });

  it('a stop keeps its code; then the gate (3) before failures; 5 quota, 6 only when every item was unavailable, else 1', () => {
    const gate = (passed: boolean) => ({ set: true, passed, failed_items: [] });
    const f = (code: string) => ({ custom_id: 'x', error: { code, message: '' } });
    expect(exitCodeOf({ failures: [], gate: gate(true), succeeded: 3 })).toBe(0);
    expect(exitCodeOf({ failures: [], gate: gate(false), succeeded: 3 })).toBe(3);
    // An unreadable or unavailable item beside a gate failure: the gate decides.
    expect(exitCodeOf({ failures: [f('UNAVAILABLE')], gate: gate(false), succeeded: 2 })).toBe(3);
    expect(exitCodeOf({ failures: [f('UNPROCESSABLE_CONTENT')], gate: gate(false), succeeded: 2 })).toBe(3);
    // 4 of 5 fine and one unavailable: some items failed (1); all unavailable: 6.
    expect(exitCodeOf({ failures: [f('UNAVAILABLE')], gate: gate(true), succeeded: 4 })).toBe(1);
    expect(exitCodeOf({ failures: [f('UNAVAILABLE'), f('UNAVAILABLE')], gate: gate(true), succeeded: 0 })).toBe(6);
    expect(exitCodeOf({ failures: [f('UNAVAILABLE'), f('UNPROCESSABLE_CONTENT')], gate: gate(true), succeeded: 0 })).toBe(1);
    expect(exitCodeOf({ failures: [f('INTERNAL_ERROR'), f('QUOTA_EXCEEDED')], gate: gate(true), succeeded: 1 })).toBe(5);
    expect(exitCodeOf({ failures: [], gate: gate(false), succeeded: 0 }, new VerityError('UNAUTHORIZED', 'no'))).toBe(4);
  });
});
