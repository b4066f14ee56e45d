/**
 * `verity verify batch`, the built CLI as a user runs it: a 500-item mixed batch whose results
 * equal single runs, resume after `kill -9`, and Ctrl-C. Everything stays on this machine (the
 * sandbox, and live analysis of local files, which contacts nothing).
 */
import { mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { execa, type ResultPromise } from 'execa';
import { beforeAll, describe, expect, it } from 'vitest';
import { inject } from 'vitest';
import { ClaimResult, BusinessResult, DocumentResult, MediaResult } from '../../src/api/results.js';
import { HOST_CODE_CACHE_FOLDER } from '../../src/cli/analysis-host.js';
import { createSandboxEngine } from '../../src/engine/index.js';
import { childWith, ends, hasProc } from './process-tree.js';
import { newHome, verity } from './run-cli.js';

let dir: string;
const JPEGS = 12;

const lines = (s: string): Array<Record<string, any>> =>
  s
    .split('\n')
    .filter(Boolean)
    .map((l) => JSON.parse(l));
const stable = (r: Record<string, unknown>): Record<string, unknown> => {
  const { id: _i, latency_ms: _l, ...rest } = r;
  return rest;
};

beforeAll(async () => {
  dir = newHome();
  const { default: sharp } = await import('sharp');
  mkdirSync(join(dir, 'photos'));
  for (let i = 0; i < JPEGS; i++)
    await sharp({ create: { width: 320 + i * 8, height: 240, channels: 3, background: { r: 20 * i, g: 120, b: 200 - 10 * i }, noise: { type: 'gaussian', mean: 128, sigma: 20 } } })
      .withExif({ IFD0: { Make: 'Canon', Model: 'Canon EOS R5' } })
      .jpeg({ quality: 85 })
      .toFile(join(dir, 'photos', `p${String(i).padStart(2, '0')}.jpg`));
});

/** The 500 mixed requests: claims with verdict triggers, companies, photos by path, raw-text documents. */
function mixedBatch(): Array<Record<string, unknown>> {
  const out: Array<Record<string, unknown>> = [];
  const verdicts = ['', ' #false', ' #unverifiable', ' #conflicting'];
  for (let i = 0; i < 500; i++) {
    switch (i % 4) {
      case 0:
        out.push({ type: 'claim', claim: `Claim number ${i} about the world${verdicts[(i / 4) % 4]}`, max_evidence: 1 + (i % 5), custom_id: `claim-${i}` });
        break;
      case 1:
        out.push({ type: 'business', company_name: `Company ${i}${i % 20 === 1 ? ' Dissolved' : ''} Ltd`, jurisdiction: 'gb', officers: i % 3 === 0 });
        break;
      case 2:
        out.push({ type: 'media', file: `photos/p${String(i % JPEGS).padStart(2, '0')}.jpg`, check_deepfakes: i % 6 !== 2 });
        break;
      default:
        out.push({ type: 'document', content: `Memo ${i}: the quarterly figures.${i % 16 === 3 ? ' #ai_generated_text' : ''}` });
    }
  }
  return out;
}

describe('verify batch (built CLI)', () => {
  it('500 mixed items in one process: every line names its input; results equal the single commands', async () => {
    const items = mixedBatch();
    writeFileSync(join(dir, 'mixed.jsonl'), items.map((i) => JSON.stringify(i)).join('\n'));
    const home = newHome();
    const r = await verity(['verify', 'batch', 'mixed.jsonl', '--test', '--out', 'results.ndjson'], { cwd: dir, home });
    expect(r.stderr).toContain('500 items: 500 succeeded, 0 failed');
    expect(r.code).toBe(0);
    const out = lines(r.stdout).sort((a, b) => a.index - b.index);
    expect(out).toHaveLength(500);
    expect(lines(readFileSync(join(dir, 'results.ndjson'), 'utf8')).sort((a, b) => a.index - b.index)).toEqual(out);
    const schema = { claim: ClaimResult, business: BusinessResult, media: MediaResult, document: DocumentResult } as const;
    // Every result against the engine called once per request (the code the single commands run)…
    const engine = createSandboxEngine({ clock: { now: () => new Date() }, config: {}, http: null as never, fetchInput: null as never });
    for (const [i, line] of out.entries()) {
      const { type, custom_id, ...req } = items[i]! as Record<string, unknown> & { type: keyof typeof schema };
      expect([line.index, line.line, line.custom_id, line.type]).toEqual([i, i + 1, custom_id ?? `line-${i + 1}`, type]);
      expect(schema[type].safeParse(line.result).success).toBe(true);
      const single =
        type === 'claim'
          ? await engine.verifyClaim(req as never)
          : type === 'business'
            ? await engine.verifyBusiness(req as never)
            : type === 'media'
              ? await engine.verifyMedia({ ...req, file: readFileSync(join(dir, req.file as string)).toString('base64') } as never)
              : await engine.verifyDocument({ source: 'raw', ...req } as never);
      expect(stable(line.result), `item ${i}`).toEqual(stable(single as never));
    }
    expect(new Set(out.map((l) => l.result.verdict).filter(Boolean))).toEqual(new Set(['true', 'false', 'unverifiable', 'conflicting']));
    // …and a sample of each kind against the single CLI commands themselves.
    const singles: Array<[number, string[]]> = [
      [0, ['verify', 'claim', String(items[0]!.claim), '--max-evidence', '1']],
      [1, ['verify', 'business', String(items[1]!.company_name), '--jurisdiction', 'gb']],
      [2, ['verify', 'media', join(dir, String(items[2]!.file))]],
      [3, ['verify', 'document', '--content', String(items[3]!.content)]],
      [21, ['verify', 'business', String(items[21]!.company_name), '--jurisdiction', 'gb', '--officers']],
      [14, ['verify', 'media', join(dir, String(items[14]!.file)), '--no-check-deepfakes']],
    ];
    for (const [i, args] of singles) {
      const s = await verity([...args, '--test', '--json'], { home });
      expect(s.code, s.stderr).toBe(0);
      expect(stable(out[i]!.result), args.join(' ')).toEqual(stable(JSON.parse(s.stdout)));
    }
  });

  it('a live folder batch runs in the analysis pool: results equal the single live command for each photo', async () => {
    const home = newHome();
    const r = await verity(['verify', 'batch', 'photos', '--type', 'media', '--live', '--concurrency', '3', '--out', 'pool.ndjson', '--verbose'], { cwd: dir, home });
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).toMatch(/analysis workers/);
    const out = lines(r.stdout).sort((a, b) => a.index - b.index);
    expect(out.map((l) => l.custom_id)).toEqual(Array.from({ length: JPEGS }, (_, i) => `p${String(i).padStart(2, '0')}.jpg`));
    // The host's threads keep their code caches apart: its process runs V8 flags of its own (cli/analysis-host.ts).
    expect(readdirSync(join(home, 'cache', HOST_CODE_CACHE_FOLDER)).some((f) => f.startsWith('sharp-'))).toBe(true);
    for (const i of [0, 7]) {
      const s = await verity(['verify', 'media', join(dir, 'photos', out[i]!.custom_id), '--live', '--json'], { home });
      expect(s.code, s.stderr).toBe(0);
      expect(stable(out[i]!.result)).toEqual(stable(JSON.parse(s.stdout)));
    }
  });

  /** A live (local files only) batch slow enough to interrupt: photos analysed one at a time. */
  const N_SLOW = 80;
  function slowBatch(name: string): string {
    const rows = Array.from({ length: N_SLOW }, (_, i) => JSON.stringify({ file: `photos/p${String(i % JPEGS).padStart(2, '0')}.jpg`, custom_id: `shot-${i}` }));
    writeFileSync(join(dir, name), rows.join('\n'));
    return name;
  }
  const root = (): string => inject('verityRoot');
  /** Starts the batch; resolves once `n` result lines have been printed. */
  function startUntil(args: string[], home: string, n: number): { proc: ResultPromise; reached: Promise<void> } {
    const proc = execa(process.execPath, [join(root(), 'bin', 'verity.js'), ...args], {
      cwd: dir,
      env: { PATH: process.env.PATH!, VERITY_HOME: home },
      extendEnv: false,
      reject: false,
      buffer: { stdout: true },
    });
    let seen = 0;
    const reached = new Promise<void>((resolve) => {
      proc.stdout!.on('data', (c: Buffer) => {
        seen += c.toString().split('\n').length - 1;
        if (seen >= n) resolve();
      });
    });
    return { proc, reached };
  }

  it('kill -9 mid-batch, then --resume: every item done exactly once in the journal', async () => {
    const input = slowBatch('slow.jsonl');
    const home = newHome();
    const args = ['verify', 'batch', input, '--type', 'media', '--live', '--out', 'killed.ndjson'];
    const first = startUntil([...args, '--concurrency', '1'], home, 10);
    await first.reached;
    // The pool's analysis host (a child process) is running the photos.
    const host = hasProc ? childWith(first.proc.pid!, 'analysis-host-main') : undefined;
    if (hasProc) expect(host).toBeDefined();
    first.proc.kill('SIGKILL');
    // Resolved once the CLI's stderr is closed by every process holding it, the host included.
    const killed = await first.proc;
    expect(killed.signal).toBe('SIGKILL');
    if (host !== undefined) expect(await ends(host)).toBe(true);
    const before = lines(readFileSync(join(dir, 'killed.ndjson'), 'utf8'));
    expect(before.length).toBeGreaterThanOrEqual(10);
    expect(before.length).toBeLessThan(N_SLOW);
    const again = await execa(process.execPath, [join(root(), 'bin', 'verity.js'), ...args, '--resume', '--json'], {
      cwd: dir,
      env: { PATH: process.env.PATH!, VERITY_HOME: home },
      extendEnv: false,
      reject: false,
    });
    expect(again.exitCode, again.stderr).toBe(0);
    const summary = JSON.parse(again.stdout);
    expect(summary).toMatchObject({ total: N_SLOW, succeeded: N_SLOW, failed: 0, resumed: before.length });
    const journal = lines(readFileSync(join(dir, 'killed.ndjson'), 'utf8'));
    const ids = journal.map((l) => l.custom_id);
    expect(journal.every((l) => l.status === 'succeeded')).toBe(true);
    expect(new Set(ids).size).toBe(ids.length);
    expect(ids.sort()).toEqual(Array.from({ length: N_SLOW }, (_, i) => `shot-${i}`).sort());
    // The same input gives the same idempotency key in both runs (a remote re-run is never charged twice).
    expect(journal.find((l) => l.custom_id === 'shot-0')!.idempotency_key).toBe(journal.find((l) => l.custom_id === 'shot-12')!.idempotency_key);
  });

  it('one run per journal: a second run on it is refused (exit 2) while the first runs, and not after the first is killed with -9', async () => {
    // Long enough (2,000 photos, one at a time) that the first run is still going when checked.
    const rows = Array.from({ length: 2000 }, (_, i) => JSON.stringify({ file: `photos/p${String(i % JPEGS).padStart(2, '0')}.jpg`, custom_id: `long-${i}` }));
    writeFileSync(join(dir, 'long.jsonl'), rows.join('\n'));
    writeFileSync(join(dir, 'short.jsonl'), rows.slice(0, 2).join('\n'));
    const home = newHome();
    const run = (input: string, extra: string[]) =>
      execa(process.execPath, [join(root(), 'bin', 'verity.js'), 'verify', 'batch', input, '--type', 'media', '--live', '--out', 'locked.ndjson', ...extra], {
        cwd: dir,
        env: { PATH: process.env.PATH!, VERITY_HOME: home },
        extendEnv: false,
        reject: false,
        timeout: 25_000,
      });
    const first = startUntil(['verify', 'batch', 'long.jsonl', '--type', 'media', '--live', '--concurrency', '1', '--out', 'locked.ndjson'], home, 3);
    try {
      await first.reached;
      for (const extra of [['--resume'], []]) {
        const second = await run('long.jsonl', extra);
        expect(second.exitCode, second.stderr).toBe(2);
        expect(second.stderr).toContain(`locked.ndjson is in use by another batch run (PID ${first.proc.pid}`);
        expect(second.stderr).toContain('verity verify batch long.jsonl');
        expect(second.stdout).toBe('');
      }
    } finally {
      first.proc.kill('SIGKILL');
    }
    expect((await first.proc).signal).toBe('SIGKILL');
    // The killed run's lock is left behind; its process is gone, so the next run takes it over.
    const after = await run('short.jsonl', ['--resume', '--json']);
    expect(after.exitCode, after.stderr).toBe(0);
    expect(JSON.parse(after.stdout)).toMatchObject({ total: 2, succeeded: 2 });
    const journal = lines(readFileSync(join(dir, 'locked.ndjson'), 'utf8')).map((l) => l.custom_id);
    expect(new Set(journal).size).toBe(journal.length); // every item once: nothing written twice
  });

  it('Ctrl-C: exit 130, the journal holds every printed line whole, and the note says how to resume', async () => {
    const input = slowBatch('slow2.jsonl');
    const run = startUntil(['verify', 'batch', input, '--type', 'media', '--live', '--concurrency', '2', '--out', 'int.ndjson'], newHome(), 5);
    await run.reached;
    run.proc.kill('SIGINT');
    const r = await run.proc;
    expect(r.exitCode).toBe(130);
    const printed = lines(String(r.stdout));
    const journal = lines(readFileSync(join(dir, 'int.ndjson'), 'utf8'));
    expect(journal).toEqual(printed);
    expect(printed.length).toBeLessThan(N_SLOW);
    expect(String(r.stderr)).toMatch(/interrupted: \d+ of 80 items succeeded and are in int\.ndjson; run the same command with --resume/);
  });

  it('bad input is refused before any work: exit 2 with the line and field', async () => {
    writeFileSync(join(dir, 'bad.csv'), 'custom_id,company_name,jurisdiction\na,Acme Ltd,gb\nb,Globex,GB\na,Initech,us_de\n');
    const r = await verity(['verify', 'batch', 'bad.csv', '--type', 'business', '--test'], { cwd: dir });
    expect(r.code).toBe(2);
    expect(r.stdout).toBe('');
    expect(r.stderr).toContain('line 3 (jurisdiction)');
    expect(r.stderr).toContain('line 4 (custom_id)');
    const empty = await verity(['verify', 'batch', '-', '--type', 'claim', '--test'], { input: '' });
    expect(empty.code).toBe(2);
  });
});
