import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { beforeAll, describe, expect, it } from 'vitest';
import { BusinessResult, ClaimResult, DocumentResult, MediaResult } from '../../src/api/results.js';
import { ErrorBody } from '../../src/api/errors.js';
import { VERSION } from '../../src/version.js';
import { ANSI, newHome, verity } from './run-cli.js';

/** The checkout (examples/ lives here, not in the e2e copy of bin/ and dist/). */
const repoRoot = fileURLToPath(new URL('../../', import.meta.url));

let dir: string;
let jpeg: string;
let pdf: Buffer;

beforeAll(async () => {
  dir = newHome();
  // Real files, made here: a JPEG with sharp and a one-page PDF with pdf-lib.
  const { default: sharp } = await import('sharp');
  jpeg = join(dir, 'photo.jpg');
  await sharp({ create: { width: 64, height: 48, channels: 3, background: { r: 200, g: 80, b: 40 } } }).jpeg().toFile(jpeg);
  const { PDFDocument } = await import('pdf-lib');
  const doc = await PDFDocument.create();
  doc.setAuthor('E2E Author');
  doc.addPage([200, 200]).drawText('Quarterly report', { x: 10, y: 100, size: 8 });
  // pdf-lib compresses page text and hex-encodes metadata, so the sandbox trigger goes in a
  // trailing comment, where the sandbox's byte scan finds it and PDF readers ignore it.
  pdf = Buffer.concat([Buffer.from(await doc.save()), Buffer.from('% verity-sandbox:signature_forgery\n')]);
  writeFileSync(join(dir, 'report.pdf'), pdf);
});

describe('verify --test --json: one document that validates against the result schema', () => {
  it('claim', async () => {
    const r = await verity(['verify', 'claim', 'The Eiffel Tower is in Paris', '--test', '--json']);
    expect(r.code).toBe(0);
    const parsed = ClaimResult.safeParse(JSON.parse(r.stdout));
    expect(parsed.success, JSON.stringify(parsed.error?.issues)).toBe(true);
    expect(parsed.data?.verdict).toBe('true');
  });

  it('business', async () => {
    const r = await verity(['verify', 'business', 'Acme Widgets Ltd', '--jurisdiction', 'gb', '--officers', '--filings', '--test', '--json']);
    expect(r.code).toBe(0);
    const parsed = BusinessResult.safeParse(JSON.parse(r.stdout));
    expect(parsed.success, JSON.stringify(parsed.error?.issues)).toBe(true);
    expect(parsed.data?.officers?.length).toBeGreaterThan(0);
  });

  it('media from a file', async () => {
    const r = await verity(['verify', 'media', jpeg, '--test', '--json']);
    expect(r.code).toBe(0);
    const parsed = MediaResult.safeParse(JSON.parse(r.stdout));
    expect(parsed.success, JSON.stringify(parsed.error?.issues)).toBe(true);
    expect(parsed.data?.metadata.format).toBe('jpeg');
  });

  it('document from a PDF file (its sandbox trigger sets the flag)', async () => {
    const r = await verity(['verify', 'document', join(dir, 'report.pdf'), '--test', '--json']);
    expect(r.code).toBe(0);
    const parsed = DocumentResult.safeParse(JSON.parse(r.stdout));
    expect(parsed.success, JSON.stringify(parsed.error?.issues)).toBe(true);
    expect(parsed.data?.manipulation_flags).toEqual(['signature_forgery']);
  });
});

describe('stdin input (-)', () => {
  it('claim text from stdin', async () => {
    const r = await verity(['verify', 'claim', '-', '--test', '--json'], { input: 'Water boils at 100 °C #conflicting\n' });
    expect(r.code).toBe(0);
    expect(JSON.parse(r.stdout).verdict).toBe('conflicting');
  });

  it('document: plain text is read as raw, a PDF as an upload', async () => {
    const text = await verity(['verify', 'document', '-', '--test', '--json'], { input: 'Dear board, #ai_generated_text' });
    expect(text.code).toBe(0);
    const t = DocumentResult.parse(JSON.parse(text.stdout));
    expect(t.metadata.producer).toBe('raw text');
    expect(t.manipulation_flags).toEqual(['ai_generated_text']);
    const bin = await verity(['verify', 'document', '-', '--test', '--json'], { input: pdf });
    expect(bin.code).toBe(0);
    expect(DocumentResult.parse(JSON.parse(bin.stdout)).metadata.producer).not.toBe('raw text');
  });

  it('media bytes from stdin', async () => {
    const { readFileSync } = await import('node:fs');
    const r = await verity(['verify', 'media', '-', '--test', '--json'], { input: readFileSync(jpeg) });
    expect(r.code).toBe(0);
    expect(MediaResult.parse(JSON.parse(r.stdout)).metadata.format).toBe('jpeg');
  });
});

describe('human output in a pipe', () => {
  it.each([
    ['claim', ['verify', 'claim', 'The Eiffel Tower is in Paris #false', '--test']],
    ['business', ['verify', 'business', 'Globex Dissolved Ltd', '--test', '--officers']],
    ['media', ['verify', 'media', 'https://example.com/verity-sandbox:suspicious.jpg', '--test']],
    ['document', ['verify', 'document', '--content', 'memo #inconsistent_timestamps', '--test']],
  ])('%s: readable, and no ANSI escapes on stdout or stderr', async (_kind, args) => {
    const r = await verity(args);
    expect(r.code).toBe(0);
    expect(r.stdout).not.toMatch(ANSI);
    expect(r.stderr).not.toMatch(ANSI);
    expect(r.stdout).toMatch(/trust/i);
  });

  it('FORCE_COLOR brings colour back even in a pipe', async () => {
    const r = await verity(['verify', 'claim', 'x', '--test'], { env: { FORCE_COLOR: '1' } });
    expect(r.stdout).toMatch(ANSI);
  });
});

describe('failures: exit codes and messages', () => {
  it('a 2,001-character claim → exit 2, VALIDATION_FAILED naming claim (body on stdout with --json)', async () => {
    const long = 'a'.repeat(2001);
    const json = await verity(['verify', 'claim', long, '--test', '--json']);
    expect(json.code).toBe(2);
    const body = ErrorBody.parse(JSON.parse(json.stdout));
    expect(body.error.code).toBe('VALIDATION_FAILED');
    expect(body.error.details?.map((d) => d.field)).toContain('claim');
    const human = await verity(['verify', 'claim', long, '--test']);
    expect(human.code).toBe(2);
    expect(human.stdout).toBe('');
    expect(human.stderr).toMatch(/claim/);
    expect(human.stderr).toContain('VALIDATION_FAILED');
  });

  it('a missing file → exit 2', async () => {
    for (const kind of ['media', 'document']) {
      const r = await verity(['verify', kind, join(dir, 'nope.bin'), '--test', '--json']);
      expect(r.code, kind).toBe(2);
      expect(JSON.parse(r.stdout).error.code).toBe('VALIDATION_FAILED');
      expect(r.stderr).toContain('nope.bin');
    }
  });

  it('an unknown flag → exit 2 with a hint, no stack trace', async () => {
    const r = await verity(['verify', 'claim', 'x', '--max-evidense', '3']);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain("unknown option '--max-evidense'");
    expect(r.stderr).toMatch(/Did you mean --max-evidence\?/);
    expect(r.stderr).not.toMatch(/\n\s+at /);
  });

  it.each([
    [['verify', 'claim', 'x', '--bogus', '--json'], '--bogus'],
    [['verify', 'clam', 'x', '--json'], 'command'],
    [['verify', 'batch', '--json'], 'input'],
    [['report', 'r.json', '--json'], '--output'],
    [['completion', 'powershell', '--json'], 'shell'],
    [['keys', '--json'], 'command'],
  ])('a parser rejection with --json prints one error document (%j)', async (args, field) => {
    const r = await verity(args);
    expect(r.code).toBe(2);
    const body = ErrorBody.parse(JSON.parse(r.stdout));
    expect(body.error.code).toBe('VALIDATION_FAILED');
    expect(body.error.details?.[0]?.field).toBe(field);
    // The person still reads commander's words on stderr.
    expect(r.stderr).toMatch(/error:|Usage:/);
  });

  it('a parser rejection with --ndjson prints one line; after `--`, --json is an argument', async () => {
    const r = await verity(['verify', 'claim', 'x', '--bogus', '--ndjson']);
    expect(r.code).toBe(2);
    expect(r.stdout.trim().split('\n')).toHaveLength(1);
    expect(JSON.parse(r.stdout).error.code).toBe('VALIDATION_FAILED');
    const plain = await verity(['verify', 'claim', 'x', '--bogus']);
    expect(plain.stdout).toBe('');
  });

  it('gates → exit 3 and the result is still printed', async () => {
    const r = await verity(['verify', 'media', 'https://example.com/verity-sandbox:manipulated.png', '--test', '--json', '--fail-on', 'manipulated,suspicious']);
    expect(r.code).toBe(3);
    expect(MediaResult.parse(JSON.parse(r.stdout)).authenticity).toBe('manipulated');
    expect((await verity(['verify', 'claim', 'x #unverifiable', '--test', '--min-trust', '0.9'])).code).toBe(3);
    expect((await verity(['verify', 'claim', 'x', '--test', '--min-trust', '0.1'])).code).toBe(0);
  });

  it('a simulated outage → exit 6', async () => {
    expect((await verity(['verify', 'claim', 'x #unavailable', '--test'])).code).toBe(6);
  });
});

describe('basics', () => {
  it('--version prints the version; --help exits 0 with examples', async () => {
    const v = await verity(['--version']);
    expect(v).toMatchObject({ code: 0, stdout: `${VERSION}\n` });
    const h = await verity(['verify', 'claim', '--help']);
    expect(h.code).toBe(0);
    expect(h.stdout).toContain('Examples:');
  });

  it('help on request exits 0; help because a subcommand is missing is a usage error (2)', async () => {
    expect((await verity(['help', 'verify'])).code).toBe(0);
    const bare = await verity(['keys']);
    expect(bare.code).toBe(2);
    expect(bare.stderr).toContain('Usage: verity keys');
  });

  it('completion prints a script', async () => {
    const r = await verity(['completion', 'bash']);
    expect(r.code).toBe(0);
    expect(r.stdout).toContain('complete -F _verity verity');
  });
});

describe("README quick start: the examples the repository ships verify for real, offline", () => {
  it('verify media examples/harbour.jpg (live engine, no sandbox) reads the real file', async () => {
    const r = await verity(['verify', 'media', join(repoRoot, 'examples', 'harbour.jpg'), '--json']);
    expect(r.code, r.stderr).toBe(0);
    const m = MediaResult.parse(JSON.parse(r.stdout));
    expect(m.metadata).toMatchObject({ format: 'jpeg', width: 480, height: 320, exif: { make: 'Example Optics', model: 'EX-100' } });
    expect(m.warnings ?? []).not.toContainEqual(expect.stringMatching(/sandbox/));
  });

  it('verify document examples/letter.pdf', async () => {
    const r = await verity(['verify', 'document', join(repoRoot, 'examples', 'letter.pdf'), '--json']);
    expect(r.code, r.stderr).toBe(0);
    const d = DocumentResult.parse(JSON.parse(r.stdout));
    expect(d.metadata).toMatchObject({ page_count: 1, author: 'Example Widgets Ltd' });
    expect(d.warnings ?? []).not.toContainEqual(expect.stringMatching(/sandbox/));
  });
});
