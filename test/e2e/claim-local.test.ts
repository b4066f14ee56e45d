/**
 * Claims against a real local corpus through the built CLI (issue 34): `verity corpus add` a
 * JSONL file of Wikipedia-style sentences, then `verity verify claim … --sources local --json`.
 * The entity swap ("in Berlin" against "… in Paris") is false, the claim as stated true, a claim
 * the corpus says nothing about unverifiable, and a true claim whose passage holds an unrelated
 * number of the same unit is not false.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { ClaimResult } from '../../src/api/results.js';
import { newHome, verity } from './run-cli.js';

const SENTENCES = [
  ['The Eiffel Tower is a wrought-iron lattice tower on the Champ de Mars in Paris, France.', 'https://en.wikipedia.org/wiki/Eiffel_Tower'],
  ['The Brandenburg Gate is an 18th-century neoclassical monument in Berlin.', 'https://en.wikipedia.org/wiki/Brandenburg_Gate'],
  ['Mount Everest is the highest mountain above sea level, located in the Himalayas.', 'https://en.wikipedia.org/wiki/Mount_Everest'],
  [
    'Ruth Bader Ginsburg served on the Supreme Court for 27 years, in a building that had then stood for 85 years.',
    'https://en.wikipedia.org/wiki/Ruth_Bader_Ginsburg',
  ],
  ['The Danube flows through ten countries before reaching the Black Sea.', 'https://en.wikipedia.org/wiki/Danube'],
] as const;

let home: string;

async function claim(text: string): Promise<ClaimResult> {
  const r = await verity(['verify', 'claim', text, '--sources', 'local', '--json'], { home });
  expect(r.code, r.stderr).toBe(0);
  const parsed = ClaimResult.safeParse(JSON.parse(r.stdout));
  expect(parsed.success, JSON.stringify(parsed.error?.issues)).toBe(true);
  return parsed.data!;
}

beforeAll(async () => {
  home = newHome();
  const file = join(home, 'wiki.jsonl');
  writeFileSync(file, SENTENCES.map(([text, url]) => JSON.stringify({ text, url, source: 'Wikipedia' })).join('\n'));
  const r = await verity(['corpus', 'add', file], { home });
  expect(r.code, r.stderr).toBe(0);
  expect(r.stdout + r.stderr).toMatch(/5 added/);
});

describe('verify claim --sources local against a corpus added with `verity corpus add`', () => {
  it('"The Eiffel Tower is in Berlin" is false: the passage states the frame with Paris', async () => {
    const r = await claim('The Eiffel Tower is in Berlin');
    expect(r.verdict).toBe('false');
    const top = r.evidence[0]!;
    expect(top.snippet).toMatch(/Champ de Mars in Paris/);
    expect(top.supports_claim).toBe(false);
    expect(top.stance).toBe('refutes');
  });

  it('"The Eiffel Tower is in Paris" is true', async () => {
    const r = await claim('The Eiffel Tower is in Paris');
    expect(r.verdict).toBe('true');
    expect(r.evidence[0]!.supports_claim).toBe(true);
  });

  it('a claim the corpus says nothing about is unverifiable', async () => {
    const r = await claim('Octopuses have three hearts');
    expect(r.verdict).toBe('unverifiable');
  });

  it('a true claim whose passage holds an unrelated number of the same unit is not false', async () => {
    const r = await claim('Ruth Bader Ginsburg served on the Supreme Court for 27 years');
    expect(r.verdict).not.toBe('false');
    expect(r.evidence.some((e) => e.snippet.includes('85 years') && e.stance !== 'refutes')).toBe(true);
  });

  it('an unverifiable claim with related passages shows what was read, with its stance', async () => {
    const r = await claim('The Danube was renamed by the Romans');
    expect(r.verdict).toBe('unverifiable');
    expect(r.evidence.length).toBeGreaterThan(0);
    expect(r.evidence.every((e) => e.stance !== undefined)).toBe(true);
  });
});
