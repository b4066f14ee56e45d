/**
 * `verity listen sessions`' table: each session's state — open, closed, or lost (its serve process
 * stopped renewing it; `Closed` is when it was last seen) — and a service from before `state`
 * existed (derived from closed_at).
 */
import { describe, expect, it } from 'vitest';
import { renderSessions } from '../../../src/cli/commands/listen-sessions.js';
import { Output } from '../../../src/output/output.js';
import { fakeContext } from './fake-context.js';

const out = new Output(fakeContext({ env: { COLUMNS: '160' } }).ctx, { json: false, ndjson: false, quiet: false, verbose: false, noColor: true });
const rowOf = (text: string, id: string): string => text.split('\n').find((l) => l.startsWith(id))!.replace(/\s+/g, ' ');

describe('renderSessions', () => {
  it('shows the state column and when a lost session was last seen', () => {
    const text = renderSessions(
      out,
      [
        { session_id: 'lss_open', opened_at: '2026-11-27T22:00:00.000Z', closed_at: null, state: 'open', environment: 'test', events: ['verification.completed'], results: [] },
        { session_id: 'lss_lost', opened_at: '2026-11-27T21:00:00.000Z', closed_at: '2026-11-27T21:30:00.000Z', state: 'lost', environment: 'test', results: [] },
        { session_id: 'lss_done', opened_at: '2026-11-27T20:00:00.000Z', closed_at: '2026-11-27T20:05:00.000Z', state: 'closed', environment: 'test', results: [] },
        { session_id: 'lss_older', opened_at: '2026-11-27T19:00:00.000Z', closed_at: null, environment: 'test', results: [] },
      ],
      5,
    );
    expect(text).toMatch(/Session\s+Env\s+Opened\s+State\s+Closed\s+Results\s+Events/);
    expect(rowOf(text, 'lss_open')).toBe('lss_open test 2026-11-27 22:00:00 open 0 verification.completed');
    expect(rowOf(text, 'lss_lost')).toBe('lss_lost test 2026-11-27 21:00:00 lost 2026-11-27 21:30:00 0 all');
    expect(rowOf(text, 'lss_done')).toBe('lss_done test 2026-11-27 20:00:00 closed 2026-11-27 20:05:00 0 all');
    expect(rowOf(text, 'lss_older')).toMatch(/ open 0 all$/);
  });
});
