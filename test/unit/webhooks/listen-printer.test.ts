// How `verity listen` prints records under load: the time stamp made once per second, and the
// lines of one event-loop turn written in one go, in order, flushed on demand.
import { describe, expect, it } from 'vitest';
import { recordPrinter } from '../../../src/cli/commands/listen.js';
import { Output } from '../../../src/output/output.js';
import { isoTimeStamper, type ListenRecord } from '../../../src/webhooks/listener.js';

describe('isoTimeStamper', () => {
  it('stamps exactly what Date#toISOString says, across seconds, fractions and the edges of the form', () => {
    const stamp = isoTimeStamper();
    const base = Date.parse('2026-05-01T10:00:59.990Z');
    const times = [
      base, base + 1, base + 9, base + 10, base + 11, base + 99, base + 100, base + 1000, base - 1000, base + 0.7, base - 0.7,
      0, -1, -999, -1000, -1001, 1.5, Date.parse('9999-12-31T23:59:59.999Z'), Date.parse('+010000-01-01T00:00:00.001Z'), Date.parse('-000001-06-01T00:00:00.5Z'),
    ];
    for (let i = 0; i < 2000; i++) times.push(base + Math.floor(Math.random() * 5000));
    for (const t of times) expect(stamp(t)).toBe(new Date(t).toISOString());
  });

  it('throws for a time Date cannot stamp, as Date does', () => {
    expect(() => isoTimeStamper()(Number.NaN)).toThrow(RangeError);
  });
});

function fakeOutput(opts: Partial<Output['opts']> = {}) {
  const writes: string[] = [];
  const stream = { write: (s: string) => (writes.push(s), true) } as unknown as NodeJS.WritableStream;
  const out = new Output({ stdout: stream, stderr: stream, env: {} }, { json: false, ndjson: false, quiet: false, verbose: false, noColor: true, ...opts });
  return { out, writes };
}

const record = (n: number, extra: Partial<ListenRecord> = {}): ListenRecord => ({
  time: `2026-05-01T10:00:0${n}.00${n}Z`,
  outcome: 'accepted',
  status: 200,
  path: '/webhooks',
  type: 'verification.completed',
  event_id: `wh_E${n}`,
  request_id: `vrf_clm_R${n}`,
  verdict: 'false',
  trust_score: 0.4,
  attempt: 1,
  ...extra,
});
const nextTurn = () => new Promise((r) => setImmediate(r));

describe('recordPrinter', () => {
  it('prints the line fields as before: empty ones left out, the score to 3 places, detail and attempt last', () => {
    const { out, writes } = fakeOutput();
    const print = recordPrinter(out, {});
    print(record(1));
    print(record(2, { request_id: null, verdict: null, trust_score: null, type: 'credit.threshold', detail: '80 % of quota (80/100, 2026-05)', attempt: null }));
    print(record(3, { request_id: '', verdict: 'true', trust_score: null, outcome: 'duplicate', replay: true }));
    expect(writes).toEqual([
      '10:00:01.001  verification.completed  wh_E1  vrf_clm_R1  false  0.400  attempt 1\n',
      '10:00:02.002  credit.threshold  wh_E2  80 % of quota (80/100, 2026-05)  attempt ?\n',
      '10:00:03.003  verification.completed  wh_E3  true  attempt 1  replay  duplicate (already received; acknowledged)\n',
    ]);
  });

  it('with batch, writes the lines of one turn once, in order, at the end of the turn; flush writes what is held', async () => {
    const { out, writes } = fakeOutput();
    const print = recordPrinter(out, { batch: true });
    print(record(1));
    print(record(2));
    expect(writes).toEqual([]);
    await nextTurn();
    expect(writes).toEqual([
      '10:00:01.001  verification.completed  wh_E1  vrf_clm_R1  false  0.400  attempt 1\n10:00:02.002  verification.completed  wh_E2  vrf_clm_R2  false  0.400  attempt 1\n',
    ]);
    print(record(3));
    print.flush();
    expect(writes[1]).toBe('10:00:03.003  verification.completed  wh_E3  vrf_clm_R3  false  0.400  attempt 1\n');
    await nextTurn();
    expect(writes).toHaveLength(2);
  });

  it('with batch and --ndjson, one JSON record a line, in order', async () => {
    const { out, writes } = fakeOutput({ ndjson: true });
    const print = recordPrinter(out, { batch: true });
    print(record(1));
    print(record(2, { outcome: 'refused', status: 401, reason: 'no_secret_matched', explanation: 'x' }));
    await nextTurn();
    expect(writes).toHaveLength(1);
    expect(writes[0]!.split('\n').filter(Boolean).map((l) => JSON.parse(l) as ListenRecord)).toEqual([record(1), record(2, { outcome: 'refused', status: 401, reason: 'no_secret_matched', explanation: 'x' })]);
  });
});
