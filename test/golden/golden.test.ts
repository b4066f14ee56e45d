/**
 * Before/after guard for the per-file cost work (issue 18): every public fixture in
 * ../shared/fixtures — media (images/, c2pa/), documents (pdf/, pdf-signatures/, docx/) and, in
 * the sandbox, the first claims of each claim set — goes through the engine, and the result JSON
 * (without ids and processing times) must equal the golden file under test/golden/.
 *
 * The golden files were generated from the code BEFORE the speed changes (commit 1150e27, the
 * base of wip/perf; this test and scripts/golden.mjs copied into a checkout of it), so a difference here
 * means an optimisation changed a result. A deliberate change of verdicts (another piece of work
 * changing scores, findings or warnings) legitimately changes them too: regenerate with
 * `node scripts/golden.mjs --update`, review the diff of test/golden/*.json, and commit it with
 * the change that caused it.
 *
 * The clock is fixed; the ports fail any network use (fixtures are analysed offline).
 */
import { existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, expect, it } from 'vitest';
import { createEngine, createSandboxEngine } from '../../src/engine/index.js';
import type { EnginePorts } from '../../src/engine/types.js';
import { describeFixtures, fixturesDir, haveFixtures } from '../helpers/fixtures.js';

const here = dirname(fileURLToPath(import.meta.url));
// Set by `node scripts/golden.mjs --update` (a test runner's switch, not the engine's).
const UPDATE = process.env.VERITY_GOLDEN_UPDATE === '1';
/** Claims taken from each claim set: the sandbox answers from the text alone, so a sample shows any change. */
const CLAIMS_PER_SET = 25;

const offline = async (): Promise<never> => {
  throw new Error('the golden run is offline');
};
const ports: EnginePorts = {
  clock: { now: () => new Date('2026-03-01T00:00:00Z') },
  config: {},
  http: { request: offline, getJson: offline },
  fetchInput: offline,
};
const engine = createEngine(ports);
const sandbox = createSandboxEngine(ports);

/** Ids and processing times differ on every run; everything else must not. */
function normalise(v: unknown, top = true): unknown {
  if (Array.isArray(v)) return v.map((x) => normalise(x, false));
  if (v && typeof v === 'object') {
    const out: Record<string, unknown> = {};
    for (const [k, x] of Object.entries(v)) {
      if ((top && k === 'id') || k === 'latency_ms' || /_ms$/.test(k)) continue;
      out[k] = normalise(x, false);
    }
    return out;
  }
  return v;
}

async function outcome(run: () => Promise<unknown>): Promise<unknown> {
  try {
    return normalise(await run());
  } catch (err) {
    const e = err as { code?: string; message?: string };
    return { error: e.code ?? 'UNCAUGHT', message: String(e.message ?? err) };
  }
}

const files = (sub: string): string[] => {
  const dir = join(fixturesDir, sub);
  if (!existsSync(dir)) return [];
  return readdirSync(dir, { withFileTypes: true })
    .filter((d) => d.isFile() && !/\.(md|json|pem)$/.test(d.name))
    .map((d) => join(dir, d.name))
    .sort();
};

function claimSet(path: string): string[] {
  const text = readFileSync(path, 'utf8');
  const rows: { claim?: string; text?: string }[] = path.endsWith('averitec-dev.json') ? JSON.parse(text) : text.split('\n').filter(Boolean).map((l) => JSON.parse(l));
  // Fool-Me-Twice names the claim `text`.
  return rows.map((r) => r.claim ?? r.text).filter((c): c is string => typeof c === 'string' && c.trim().length > 0).slice(0, CLAIMS_PER_SET);
}

type Case = { name: string; run: () => Promise<unknown> };
const cases: Record<string, Case[]> = { media: [], documents: [], claims: [] };
if (haveFixtures) {
  for (const sub of ['images/camera', 'images/ai-metadata', 'images/malformed', 'c2pa'])
    for (const f of files(sub)) cases.media!.push({ name: relative(fixturesDir, f), run: () => engine.verifyMedia({ file: readFileSync(f).toString('base64') }) });
  for (const sub of ['pdf', 'pdf-signatures', 'docx'])
    for (const f of files(sub)) cases.documents!.push({ name: relative(fixturesDir, f), run: () => engine.verifyDocument({ source: 'upload', content: readFileSync(f).toString('base64') }) });
  for (const f of ['claims/averitec-dev.json', 'claims/check-covid/Check-COVID_all.json', 'claims/fool-me-twice/dev.jsonl', 'claims/fool-me-twice/test.jsonl'])
    claimSet(join(fixturesDir, f)).forEach((claim, i) => cases.claims!.push({ name: `${f}#${i}`, run: () => sandbox.verifyClaim({ claim }) }));
}

const golden = (set: string): string => join(here, `${set}.json`);
const fresh: Record<string, Record<string, unknown>> = { media: {}, documents: {}, claims: {} };

describeFixtures('results equal the golden files (test/golden/*.json)', () => {
  for (const [set, list] of Object.entries(cases)) {
    const expected: Record<string, unknown> = !UPDATE && existsSync(golden(set)) ? JSON.parse(readFileSync(golden(set), 'utf8')) : {};
    it.each(list.map((c) => [c.name, c] as const))(`${set}: %s`, async (name, c) => {
      const got = await outcome(c.run);
      fresh[set]![name] = got;
      if (UPDATE) return;
      expect(name in expected, `${name} has no golden entry: run node scripts/golden.mjs --update`).toBe(true);
      expect(got).toEqual(expected[name]);
    }, 60_000);
  }
  afterAll(() => {
    if (!UPDATE) return;
    for (const [set, results] of Object.entries(fresh)) writeFileSync(golden(set), `${JSON.stringify(results, null, 1)}\n`);
  });
});
