/**
 * Issue 32, "Done when": the CLI in a real terminal (tmux, 80 columns) as a new user meets it —
 * the README's quick-start commands (the --test sandbox ones and the offline examples in
 * examples/), a batch, an evidence table — with no line wider than the terminal, no word broken
 * across lines and no raw data on the screen. Skips with a visible message when tmux is missing.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';
import { newHome, verity } from './run-cli.js';
import { brokenWords, dictionary, rawData, tooWide } from './screen-checks.js';
import { hasTmux, startInTmux, type Pane } from './tmux.js';

if (!hasTmux) console.warn('cli-walkthrough tests skipped: tmux is not installed (apt-get install tmux)');

const repo = fileURLToPath(new URL('../../', import.meta.url));
const HARBOUR = join(repo, 'examples', 'harbour.jpg');
const LETTER = join(repo, 'examples', 'letter.pdf');
const COLS = 80;

const panes: Pane[] = [];
afterEach(() => {
  for (const p of panes.splice(0)) p.kill();
});
const open = (args: string[], o: { cols?: number; rows?: number; home?: string } = {}): Pane => {
  const p = startInTmux(args, { cols: o.cols ?? COLS, rows: o.rows ?? 60, ...(o.home ? { home: o.home } : {}) });
  panes.push(p);
  return p;
};

/** The screen's own checks, with what was on it when one fails. */
function expectReadable(screen: string, dict: Set<string>, cols = COLS): void {
  expect(tooWide(screen, cols), screen).toEqual([]);
  expect(brokenWords(screen, dict), screen).toEqual([]);
  expect(rawData(screen), screen).toEqual([]);
}

describe.skipIf(!hasTmux)('the README walk-through at 80 columns', () => {
  // [args, expected exit]: the quick start's commands, the sandbox forms of the ones that need the
  // network, and the offline examples with the gates the README shows.
  const commands: Array<[string[], number]> = [
    [['verify', 'media', HARBOUR], 0],
    [['verify', 'document', LETTER], 0],
    [['verify', 'claim', 'The Eiffel Tower is in Paris', '--test'], 0],
    [['verify', 'claim', 'The Eiffel Tower is in Berlin #false', '--test'], 0],
    [['verify', 'business', 'Acme Widgets Ltd', '--jurisdiction', 'gb', '--officers', '--filings', '--test'], 0],
    [['verify', 'media', HARBOUR, '--fail-on', 'manipulated,suspicious'], 0],
    [['verify', 'document', LETTER, '--min-trust', '0.6'], 0],
    [['help', 'verify', 'claim'], 0],
    // The top-level help a new user types first (answered from dist/help.txt without the bundle).
    [['--help'], 0],
  ];
  for (const [args, code] of commands) {
    it(`verity ${args.map((a) => a.replace(repo, '')).join(' ')}`, async () => {
      const home = newHome();
      const pane = open(args, { home });
      expect(await pane.exitStatus(30_000)).toBe(code);
      const screen = pane.screen();
      // The words it could show: the result's own text (--json), or the help.
      const json = /help/.test(args[0]!) ? await verity([...args], { home }) : await verity([...args, '--json'], { home });
      expectReadable(screen, dictionary(json.stdout, json.stderr));
    }, 60_000);
  }
});

describe.skipIf(!hasTmux)('evidence as a table', () => {
  it('at 80 columns: a bordered table, every passage whole in its column, the URLs whole as numbered references under it', async () => {
    const home = newHome();
    const args = ['verify', 'claim', 'The Eiffel Tower is in Paris', '--test'];
    const pane = open(args, { home });
    expect(await pane.exitStatus()).toBe(0);
    const screen = pane.screen();
    const r = JSON.parse((await verity([...args, '--json'], { home })).stdout) as { evidence: Array<{ url: string; snippet: string; source: string }> };
    const rows = screen.split('\n').filter((l) => l.startsWith('│'));
    expect(rows[0]).toMatch(/^│ # │ Stance\s+│ Source\s+│ Authority │ Passage\s+│$/);
    for (const l of screen.split('\n')) if (!/https?:\/\//.test(l)) expect([...l].length, l).toBeLessThanOrEqual(80);
    // Each item's passage, read down its column, is the snippet word for word: no word was cut.
    const passages = screen
      .split(/\n├[─┼]+┤\n/)
      .map((block) => block.split('\n').filter((l) => l.startsWith('│')).map((l) => l.split('│').at(-2)!.trim()).join(' '));
    r.evidence.forEach((e, i) => expect(passages.some((p) => p.includes(e.snippet) && p.includes(`[${i + 1}]`)), e.snippet).toBe(true));
    // The URLs under the table, whole, numbered like the rows.
    const lines = screen.split('\n').map((l) => l.trim());
    r.evidence.forEach((e, i) => expect(lines).toContain(`[${i + 1}] ${e.url}`));
    expectReadable(screen, dictionary(JSON.stringify(r)));
  });

  it('piped: the plain numbered list, no table', async () => {
    const r = await verity(['verify', 'claim', 'The Eiffel Tower is in Paris', '--test']);
    expect(r.code).toBe(0);
    expect(r.stdout).not.toMatch(/[┌│└]/);
    expect(r.stdout).toMatch(/^ {2}1 {2}supports {2}Google Fact Check · authority 0\.\d\d$/m);
  });
});

describe.skipIf(!hasTmux)('a batch in a terminal', () => {
  it('shows the progress line while it runs and a summary table at the end: no raw JSON', async () => {
    const dir = newHome();
    const bad = join(dir, 'not-an-image.jpg');
    writeFileSync(bad, 'this is text, not a JPEG\n');
    const items = [
      ...Array.from({ length: 40 }, (_, i) => JSON.stringify({ type: 'media', custom_id: `harbour-${i + 1}`, file: HARBOUR })),
      JSON.stringify({ type: 'media', custom_id: 'not-an-image', file: bad }),
    ];
    const input = join(dir, 'photos.jsonl');
    writeFileSync(input, `${items.join('\n')}\n`);
    // Live, offline analysis of local files, one at a time: long enough to see the progress line.
    const pane = open(['verify', 'batch', input, '--concurrency', '1', '--min-trust', '0.99'], { rows: 80 });
    const during = await pane.waitFor(/\d+\/41 ✓\d+ ✗\d+/, 'the progress line', 30_000);
    expect(during).not.toMatch(/"custom_id"/);
    expect(await pane.exitStatus(60_000)).toBe(3);
    const screen = pane.screen();
    expect(screen).toMatch(/^Batch\s+41 items · 40 succeeded · 1 failed in [\d.]+ s$/m);
    expect(screen).toMatch(/^Results\s+not kept: add --out FILE/m);
    expect(screen).toMatch(/^Gate\s+failed by 40 items$/m);
    expect(screen).toMatch(/│ images\/videos │\s+41 │\s+40 │\s+1 │\s+40 │ likely authentic 40\s+│/);
    expect(screen).toMatch(/Failed items \(1\)/);
    expect(screen).toMatch(/│\s+41 │ not-an-image\s+│/);
    expect(screen).toMatch(/Gate hits \(40\)/);
    expect(screen).toMatch(/… and 30 more/);
    const json = await verity(['verify', 'batch', input, '--concurrency', '1', '--min-trust', '0.99', '--json']);
    expectReadable(screen, dictionary(json.stdout));
  }, 90_000);
});

describe.skipIf(!hasTmux)('listen lines in a terminal', () => {
  for (const cols of [80, 120]) {
    it(`at ${cols} columns the refusal lines wrap between words, none wider than the terminal`, async () => {
      const pane = open(['listen', '--port', '0', '--secret', 'whsec-walkthrough-0123456789-0123456789'], { cols });
      const ready = await pane.waitFor(/Listening on http:\/\/127\.0\.0\.1:\d+/, 'the ready line');
      const url = /Listening on (http:\/\/127\.0\.0\.1:\d+)/.exec(ready)![1]!;
      const body = JSON.stringify({ id: 'evt_walkthrough_0001', type: 'verification.completed', created_at: new Date().toISOString(), data: { id: 'vrf_clm_walkthrough' } });
      const answers: string[] = [];
      const attempts: Array<Record<string, string>> = [{}, { 'x-service-signature': `sha256=${'0'.repeat(64)}` }];
      for (const headers of attempts) {
        const r = await fetch(url, { method: 'POST', body, headers: { 'content-type': 'application/json', ...headers } });
        answers.push(await r.text());
      }
      const screen = await pane.waitFor((s) => (s.match(/refused 401/g) ?? []).length === 2, 'two refusal lines');
      pane.keys('C-c');
      expect(await pane.exitStatus()).toBe(0);
      expectReadable(pane.screen(), dictionary(...answers), cols);
      expect(screen).toMatch(/\(missing_header\)/);
    });
  }
});
