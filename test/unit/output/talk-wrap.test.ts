/** stderr talk and `listen` lines on a terminal break between words only (issue 32 item 6). */
import { describe, expect, it } from 'vitest';
import { VerityError } from '../../../src/api/errors.js';
import { Output } from '../../../src/output/output.js';
import { visibleWidth, wrapLines } from '../../../src/output/wrap.js';
import { fakeContext } from '../cli/fake-context.js';

const URL = 'https://hooks.example-customer-platform.com/api/v2/incoming/verity/webhooks?tenant=acme-widgets-international';

/** Every word of `text` appears whole on some line: a word cut at a line end would not. */
function wordsWhole(text: string, lines: string[]): void {
  const tokens = new Set(lines.flatMap((l) => l.trim().split(/\s+/)));
  for (const w of text.split(/\s+/).filter(Boolean)) expect(tokens, w).toContain(w);
}

describe('wrapLines', () => {
  it('breaks at spaces only, keeps each line\'s own indent and hangs continuations; long tokens stay whole', () => {
    const text = `error: the receiver at ${URL} refused the delivery of the event verification.completed because its signature did not match\n  url: must be https`;
    for (const cols of [80, 120]) {
      const lines = wrapLines(text, cols).split('\n');
      for (const l of lines) if (!l.includes(URL)) expect(visibleWidth(l), l).toBeLessThanOrEqual(cols);
      wordsWhole(text, lines);
      expect(lines.some((l) => l.trim() === URL || l.includes(` ${URL}`) || l.startsWith(URL))).toBe(true);
      expect(lines.at(-1)).toBe('  url: must be https');
    }
    expect(wrapLines(text, null)).toBe(text);
  });

  it('keeps a `backticked command` on one line so it can be copied whole', () => {
    const note = 'interrupted: 81,678 rows of companies-house were committed; the name index is rebuilt by the next import. Run `verity data import companies-house /tmp/data/companies.csv` to finish.';
    const lines = wrapLines(note, 80).split('\n');
    expect(lines.some((l) => l.includes('`verity data import companies-house /tmp/data/companies.csv`'))).toBe(true);
    for (const l of lines) expect(visibleWidth(l), l).toBeLessThanOrEqual(80);
  });
});

describe('Output on a terminal of 80 columns', () => {
  const make = (stderrTTY: boolean) => {
    const f = fakeContext({ stderrTTY });
    (f.ctx.stderr as { columns?: number }).columns = 80;
    return { f, out: new Output(f.ctx, { json: false, ndjson: false, quiet: false, verbose: false, noColor: true }) };
  };
  const long =
    'the claim could not be checked because every source it was sent to failed or was skipped; run it again with --test to see the output, or with --sources local after verity corpus add FILE';

  it('info, warn and error wrap between words; piped stderr keeps whole lines', () => {
    const { f, out } = make(true);
    out.info(long);
    out.warn(long);
    out.error(new VerityError('UNAVAILABLE', long), `run verity verify claim "…" --test, or read ${URL}`);
    const lines = f.stderr().trimEnd().split('\n');
    for (const l of lines) if (!l.includes(URL)) expect(visibleWidth(l), l).toBeLessThanOrEqual(80);
    wordsWhole(long, lines);
    expect(lines.filter((l) => l.includes(URL))).toHaveLength(1);

    const piped = make(false);
    piped.out.info(long);
    expect(piped.f.stderr()).toBe(`${long}\n`);
  });
});
