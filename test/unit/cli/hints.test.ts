import { describe, expect, it } from 'vitest';
import { VerityError } from '../../../src/api/errors.js';
import { clockTime, humanDuration, retryIn } from '../../../src/cli/durations.js';
import { hintFor } from '../../../src/cli/errors.js';
import { retryLine } from '../../../src/cli/retry-notice.js';
import { suggestSettings } from '../../../src/cli/commands/config-settings.js';

const remote = { mode: 'remote' as const, baseUrl: 'http://api.internal:8080' };
const live = { mode: 'embedded' as const, sandbox: false };
const at = new Date(2026, 10, 27, 20, 16, 0); // local time

describe('durations as people read them', () => {
  it('seconds under 90 s, then minutes, hours and days, rounded up', () => {
    expect([30, 89, 90, 3500, 3600, 3660, 86_400, 90_000].map(humanDuration)).toEqual(['30 s', '89 s', '2 min', '59 min', '1 h', '1 h 1 min', '1 d', '1 d 1 h']);
  });
  it('a long wait adds the clock time; one past today adds the date', () => {
    expect(retryIn(3500, at)).toBe('retry in 59 min (at 21:15)');
    expect(retryIn(20, at)).toBe('retry in 20 s');
    expect(clockTime(at, 86_400)).toBe('28 Nov 20:16');
  });
});

describe('hintFor names the real cause', () => {
  it('remote: unreachable vs the service answering with its own error', () => {
    const down = new VerityError('UNAVAILABLE', 'Cannot reach the service at api.internal:8080 (ECONNREFUSED)', { origin: 'transport' });
    const sources = new VerityError('UNAVAILABLE', 'no claim source answered', { origin: 'service', retryAfter: 30 });
    expect(hintFor(down, remote, at)).toMatch(/^check that the service at api\.internal:8080 is up/);
    expect(hintFor(sources, remote, at)).toBe('the service at api.internal:8080 answered, but what it depends on is unavailable; retry in 30 s, or run with --test for sandbox results');
  });
  it('a local failure keeps its own hint in any mode; an error carrying a hint wins', () => {
    const port = new VerityError('UNAVAILABLE', 'Port 4242 on 127.0.0.1 is already in use', { origin: 'local', hint: 'pick another port with --port' });
    expect(hintFor(port, remote, at)).toBe('pick another port with --port');
    expect(hintFor(new VerityError('UNAVAILABLE', 'x', { origin: 'local' }), remote, at)).toBeUndefined();
  });
  it('embedded live: every claim source down → --test and --sources local', () => {
    expect(hintFor(new VerityError('UNAVAILABLE', 'no claim source answered — wikipedia failed: x'), live, at)).toMatch(/--test.*--sources local/);
  });
  it('rate limits in minutes', () => {
    expect(hintFor(new VerityError('RATE_LIMITED', 'slow down', { retryAfter: 3500 }), remote, at)).toBe('retry in 59 min (at 21:15)');
  });
});

describe('retry lines and setting suggestions', () => {
  it('says what failed, the wait and the attempt', () => {
    const error = new VerityError('UNAVAILABLE', 'no claim source answered');
    expect(retryLine({ error, status: 503, waitMs: 2000, attempt: 2, maxAttempts: 3, host: 'h:1' })).toBe(
      'the service at h:1 answered 503 (no claim source answered); retrying in 2 s (attempt 2 of 3)',
    );
    expect(retryLine({ error, status: 503, waitMs: 0, attempt: 3, maxAttempts: 3, host: 'h:1' })).toMatch(/retrying now \(attempt 3 of 3\)$/);
  });
  it('base_url → the profile setting first; a near spelling is found', () => {
    expect(suggestSettings('base_url', 'staging')[0]).toBe('profiles.staging.base_url');
    expect(suggestSettings('contct')).toEqual(['contact']);
    expect(suggestSettings('completely.unrelated.thing')).toEqual([]);
  });
});
