/**
 * The CLI in a real terminal (tmux): Ctrl-C while a spinner shows and during an import, and
 * layout at 80 and 200 columns. Skips with a visible message when tmux is missing (`.ci/run`
 * installs it).
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { startFakeServer, type FakeServer } from '../fakes/claim-fake-server.js';
import { newHome, verity } from './run-cli.js';
import { hasTmux, startInTmux, type Pane } from './tmux.js';

if (!hasTmux) console.warn('cli-terminal tests skipped: tmux is not installed (apt-get install tmux)');

const panes: Pane[] = [];
const servers: FakeServer[] = [];
afterEach(async () => {
  for (const p of panes.splice(0)) p.kill();
  for (const s of servers.splice(0)) await s.close();
});

const open = (...a: Parameters<typeof startInTmux>): Pane => {
  const p = startInTmux(...a);
  panes.push(p);
  return p;
};

describe.skipIf(!hasTmux)('Ctrl-C', () => {
  it('ends a live claim check while the spinner shows: exit 130 and a note, not a wait for the upstream', async () => {
    // A Wikipedia that accepts the connection and never answers: only an interrupt ends the wait.
    const wiki = await startFakeServer(() => ({ status: 200, body: {} }), { mode: 'hang' });
    servers.push(wiki);
    const home = newHome();
    writeFileSync(
      join(home, 'config.json'),
      JSON.stringify({ contact: 'e2e@example.com', sources: { wikipedia: { base_url: `${wiki.url}/w/api.php` } } }),
    );
    const pane = open(['verify', 'claim', 'The Eiffel Tower is in Paris', '--live', '--sources', 'wikipedia'], { cols: 100, home });
    await pane.waitFor(/Checking the claim/, 'the spinner');
    // The request reached the upstream: the command is waiting on the network, as in the report.
    for (let i = 0; i < 400 && wiki.requests.length === 0; i++) await new Promise((r) => setTimeout(r, 25));
    expect(wiki.requests.length).toBeGreaterThan(0);
    const pressed = Date.now();
    pane.keys('C-c');
    const status = await pane.exitStatus(5_000);
    const elapsed = Date.now() - pressed;
    console.log(`Ctrl-C to exit: ${elapsed} ms`);
    expect(status).toBe(130);
    expect(pane.screen()).toMatch(/interrupted: /);
    // DESIGN.md's 0.5 s, with room for a loaded CI machine polling the pane every 25 ms.
    expect(elapsed).toBeLessThan(1_500);
  });

  it('ends a data import, says how many rows were kept and how to resume; a later look-up says the data is incomplete', async () => {
    const home = newHome();
    const dir = newHome();
    const file = join(dir, 'companies.csv');
    // 400,000 rows (about 30 MB): several seconds of import, committed about once a second.
    const rows = ['CompanyName, CompanyNumber,CompanyCategory,CompanyStatus,DissolutionDate,IncorporationDate'];
    rows.push('"ACME WIDGETS LTD","01234567","Private Limited Company","Active","","01/02/2003"');
    for (let n = 1; n < 400_000; n++) rows.push(`"COMPANY ${n} TRADING LTD","${String(10_000_000 + n)}","Private Limited Company","Active","","01/02/2003"`);
    writeFileSync(file, `${rows.join('\n')}\n`);
    const pane = open(['data', 'import', 'companies-house', file], { cols: 120, home });
    // Until the first commit shows in the progress line.
    await pane.waitFor(/[\d,]+ rows/, 'the first commit', 20_000);
    pane.keys('C-c');
    expect(await pane.exitStatus(5_000)).toBe(130);
    const screen = pane.screen().replace(/\n/g, ' ');
    const committed = Number(/interrupted: ([\d,]+) rows of companies-house were committed/.exec(screen)?.[1]?.replace(/,/g, ''));
    expect(committed).toBeGreaterThan(0);
    expect(screen).toContain(`verity data import companies-house ${file}`);

    // The register now holds part of the file: a look-up answers from it, and says so.
    const r = await verity(['verify', 'business', 'Acme Widgets Ltd', '--jurisdiction', 'gb', '--sources', 'companies_house', '--live', '--json'], { home });
    expect(r.code, r.stderr).toBe(0);
    const result = JSON.parse(r.stdout) as { legal_name: string; warnings?: string[] };
    expect(result.legal_name).toBe('ACME WIDGETS LTD');
    expect(result.warnings?.join('\n')).toMatch(/local companies-house data is incomplete: its import of .* was interrupted after [\d,]+ rows/);

    // Running the import again says it is finishing an unfinished one, and clears the mark.
    const again = await verity(['data', 'import', 'companies-house', file], { home });
    expect(again.code, again.stderr).toBe(0);
    expect(again.stderr).toMatch(/The last import of companies-house \(.*companies\.csv\) did not finish: [\d,]+ rows were stored/);
    const after = JSON.parse((await verity(['verify', 'business', 'Acme Widgets Ltd', '--jurisdiction', 'gb', '--sources', 'companies_house', '--live', '--json'], { home })).stdout) as { warnings?: string[] };
    expect(after.warnings ?? []).not.toContainEqual(expect.stringMatching(/incomplete/));
  });
});

describe.skipIf(!hasTmux)('layout in a terminal', () => {
  let home: string;
  beforeAll(() => {
    home = newHome();
  });

  for (const cols of [80, 200]) {
    it(`at ${cols} columns: no line wider than the terminal, URLs and ids whole, no word broken across lines`, async () => {
      const args = ['verify', 'business', 'Acme Widgets Ltd', '--jurisdiction', 'gb', '--officers', '--filings', '--test'];
      const pane = open(args, { cols, rows: 80, home });
      expect(await pane.exitStatus()).toBe(0);
      const screen = pane.screen();
      for (const l of screen.split('\n')) expect(l.length, l).toBeLessThanOrEqual(cols);
      const r = JSON.parse((await verity([...args, '--json'], { home })).stdout) as {
        evidence: Array<{ url: string; finding: string }>;
        officers: Array<{ name: string; role: string }>;
        filings: Array<{ url: string }>;
      };
      // Every URL whole on a line of its own: the filings' under their rows, the evidence's as
      // numbered references under its table; the request id whole.
      const lines = screen.split('\n').map((l) => l.trim());
      for (const u of r.filings.map((f) => f.url)) expect(lines).toContain(u);
      r.evidence.forEach((e, i) => expect(lines).toContain(`[${i + 1}] ${e.url}`));
      expect(screen).toMatch(/ vrf_biz_[0-9A-Za-z]{20} · /);
      expect(screen).not.toContain('…');
      // Wrapped text reads back word for word: a word cut at a line end would not. The evidence
      // table's findings are read down their column, row block by row block.
      const flat = screen.replace(/\s+/g, ' ');
      const cells = screen
        .split(/\n├[─┼]+┤\n/)
        .map((block) => block.split('\n').filter((l) => l.startsWith('│')).map((l) => l.split('│').at(-2)!.trim()).join(' '));
      for (const e of r.evidence) expect(cells.some((c) => c.includes(e.finding.replace(/\s+/g, ' '))), e.finding).toBe(true);
      for (const o of r.officers) expect(flat).toContain(o.role);
      // The simulated-data notice heads the output, and "trust" is explained under the verdict.
      // (stderr's warnings come first on the screen; stdout starts with the notice)
      expect(screen.split('\n').find((l) => !/^warning:|^\s|^$/.test(l))).toMatch(/^SIMULATED/);
      expect(flat).toMatch(/Trust: how far the registry record confirms a live company/);
      if (cols === 200) expect(screen.split('\n').filter((l) => l.length > 100).length).toBeGreaterThan(0);
    });
  }
});
