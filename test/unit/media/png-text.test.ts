/**
 * PNG text chunks of all three kinds (tEXt, zTXt, iTXt) reach the AI-metadata detectors (issue 13
 * item 2). Real PNGs: sharp writes the pixels, the tests insert text chunks with their CRCs.
 */
import { crc32, deflateSync } from 'node:zlib';
import sharp from 'sharp';
import { beforeAll, describe, expect, it } from 'vitest';
import { MediaRequest } from '../../../src/api/requests.js';
import type { MediaResult } from '../../../src/api/results.js';
import { readMetadataDetails } from '../../../src/engine/media/metadata.js';
import { MAX_CHUNK_TEXT_BYTES, readPngText } from '../../../src/engine/media/png-text.js';
import { verifyMedia } from '../../../src/engine/media/verify.js';
import type { Computed } from '../../../src/engine/types.js';
import { makePorts, scene } from './helpers.js';

const PARAMETERS = 'photo of a duck on a lake\nNegative prompt: monochrome\nSteps: 20, Sampler: Euler a, CFG scale: 7, Seed: 1234, Size: 256x256, Model: v1-5-pruned';
/** What PIL writes as iTXt: a prompt outside Latin-1. */
const UNICODE_PARAMETERS = 'Ente auf einem See, 湖の上のアヒル, café ☕\nSteps: 20, Sampler: Euler a, CFG scale: 7, Seed: 1234, Size: 256x256';

/** One PNG chunk: length, type, data, CRC-32 over type and data. */
function chunk(type: string, data: Buffer, crc?: number): Buffer {
  const head = Buffer.alloc(8);
  head.writeUInt32BE(data.length, 0);
  head.write(type, 4, 'latin1');
  const tail = Buffer.alloc(4);
  tail.writeUInt32BE(crc ?? crc32(Buffer.concat([head.subarray(4), data])), 0);
  return Buffer.concat([head, data, tail]);
}
const nul = Buffer.from([0]);
const tEXt = (k: string, v: string): Buffer => chunk('tEXt', Buffer.concat([Buffer.from(k, 'latin1'), nul, Buffer.from(v, 'latin1')]));
const zTXt = (k: string, v: string | Buffer): Buffer =>
  chunk('zTXt', Buffer.concat([Buffer.from(k, 'latin1'), nul, Buffer.from([0]), deflateSync(typeof v === 'string' ? Buffer.from(v, 'latin1') : v)]));
const iTXt = (k: string, v: string, compressed: boolean): Buffer => {
  const text = Buffer.from(v, 'utf8');
  return chunk('iTXt', Buffer.concat([Buffer.from(k, 'latin1'), nul, Buffer.from([compressed ? 1 : 0, 0]), Buffer.from('en', 'latin1'), nul, Buffer.from('Parameter', 'utf8'), nul, compressed ? deflateSync(text) : text]));
};

/** `png` with `chunks` inserted just before IEND (after IDAT, where A1111 and PIL put theirs too). */
function withChunks(png: Buffer, ...chunks: Buffer[]): Buffer {
  const iend = png.length - 12;
  expect(png.toString('latin1', iend + 4, iend + 8)).toBe('IEND');
  return Buffer.concat([png.subarray(0, iend), ...chunks, png.subarray(iend)]);
}

const verify = (bytes: Buffer): Promise<Computed<MediaResult>> => verifyMedia(MediaRequest.parse({ file: bytes.toString('base64') }), makePorts(), {});
const generatorFinding = (r: Computed<MediaResult>): string => r.evidence.find((e) => e.source === 'metadata.ai_generator')?.finding ?? '';

describe('PNG text chunks reach the AI-metadata detectors', () => {
  let png: Buffer;
  let plain: Computed<MediaResult>;
  let asText: Computed<MediaResult>;
  beforeAll(async () => {
    png = await sharp(scene(256, 256, 5), { raw: { width: 256, height: 256, channels: 3 } }).png().toBuffer();
    [plain, asText] = await Promise.all([verify(png), verify(withChunks(png, tEXt('parameters', PARAMETERS)))]);
  });

  it('baseline: the same PNG without text is not called generated; with tEXt parameters it is', () => {
    expect(plain.deepfake_score).toBeLessThan(0.1);
    expect(asText.deepfake_score).toBeGreaterThanOrEqual(0.9);
    expect(generatorFinding(asText)).toMatch(/AUTOMATIC1111/);
  });

  it.each([
    ['zTXt', () => zTXt('parameters', PARAMETERS)],
    ['iTXt uncompressed', () => iTXt('parameters', PARAMETERS, false)],
    ['iTXt compressed', () => iTXt('parameters', PARAMETERS, true)],
  ])('A1111 parameters in %s give the same verdict as in tEXt', async (_kind, make) => {
    const r = await verify(withChunks(png, make()));
    expect(r.deepfake_score).toBe(asText.deepfake_score);
    expect(r.authenticity).toBe(asText.authenticity);
    expect(generatorFinding(r)).toBe(generatorFinding(asText));
    expect(r.warnings ?? []).not.toContainEqual(expect.stringMatching(/PNG text/));
  });

  it('a non-Latin-1 prompt in iTXt (as PIL writes it) is decoded as UTF-8 and detected', async () => {
    const bytes = withChunks(png, iTXt('parameters', UNICODE_PARAMETERS, true));
    const r = await verify(bytes);
    expect(r.deepfake_score).toBeGreaterThanOrEqual(0.9);
    expect(generatorFinding(r)).toContain('湖の上のアヒル, café ☕');
    expect((await readMetadataDetails(bytes)).text.parameters).toBe(UNICODE_PARAMETERS);
  });

  it('a zTXt bomb is cut off at 1 MiB by zlib itself: skipped with a warning, no crash, nothing invented', async () => {
    // 64 MiB of A1111-looking text deflates to a file about 200 times smaller.
    const bomb = Buffer.alloc(64 << 20, 'Steps: 20, Sampler: Euler a, ');
    const bytes = withChunks(png, zTXt('parameters', bomb));
    expect(bytes.length * 100).toBeLessThan(bomb.length);
    const read = readPngText(bytes);
    expect(read.text.parameters).toBeUndefined();
    expect(read.warnings).toEqual([expect.stringMatching(/zTXt chunk at byte \d+ \("parameters"\) skipped: it inflates past 1 MiB/)]);
    expect(read.unread).toEqual(['parameters']);
    const r = await verify(bytes);
    expect(r.warnings).toContainEqual(expect.stringMatching(/inflates past 1 MiB/));
    expect(r.deepfake_score).toBe(plain.deepfake_score);
    // Not "looked and found nothing": the AI-metadata check could not read that chunk, so the
    // analysis is incomplete and trust is capped like unchecked pixels.
    expect(plain.authenticity).toBe('likely_authentic');
    expect(r.authenticity).toBe('suspicious');
    expect(r.trust_score).toBeLessThanOrEqual(0.4);
    expect(r.warnings![0]).toMatch(/^Not checked: the PNG text chunk "parameters" could not be read, so AI-generator settings there were not checked; trust is capped at 0\.4/);
  });

  it('a chunk with a wrong CRC is read with a warning (as exiftool reads it); a corrupt "parameters" stream makes the analysis incomplete', async () => {
    const damaged = chunk('tEXt', Buffer.concat([Buffer.from('parameters'), nul, Buffer.from(PARAMETERS, 'latin1')]), 0x12345678);
    const r = await verify(withChunks(png, damaged));
    expect(r.deepfake_score).toBe(asText.deepfake_score);
    expect(r.warnings).toContainEqual(expect.stringMatching(/tEXt chunk at byte \d+ \("parameters"\) is damaged: its CRC does not match \(read anyway\)/));
    const corrupt = chunk('zTXt', Buffer.concat([Buffer.from('parameters'), nul, Buffer.from([0]), deflateSync(PARAMETERS).subarray(0, 40)]));
    const c = await verify(withChunks(png, corrupt));
    expect(c.deepfake_score).toBe(plain.deepfake_score);
    expect(c.authenticity).toBe('suspicious');
    expect(c.warnings![0]).toMatch(/^Not checked: the PNG text chunk "parameters" could not be read/);
    expect(c.warnings).toContainEqual(expect.stringMatching(/\("parameters"\) skipped: its zlib stream is corrupt/));
    // A skipped chunk under a key no detector reads only warns.
    const other = await verify(withChunks(png, chunk('zTXt', Buffer.concat([Buffer.from('date:create'), nul, Buffer.from([0]), Buffer.from('not zlib')]))));
    expect(other.authenticity).toBe(plain.authenticity);
    expect(other.trust_score).toBe(plain.trust_score);
    expect(other.warnings).toContainEqual(expect.stringMatching(/\("date:create"\) skipped: its zlib stream is corrupt/));
  });

  it('all chunks together inflate to at most 4 MiB: the chunk past that is skipped with a warning', () => {
    const big = (i: number): Buffer => zTXt(`Comment${i}`, Buffer.alloc(MAX_CHUNK_TEXT_BYTES - 10, 'x'));
    const read = readPngText(withChunks(png, big(1), big(2), big(3), big(4), big(5), tEXt('parameters', PARAMETERS)));
    expect(Object.keys(read.text)).toEqual(['Comment1', 'Comment2', 'Comment3', 'Comment4', 'parameters']);
    expect(read.unread).toEqual(['Comment5']);
    expect(read.warnings).toEqual([expect.stringMatching(/"Comment5"\) skipped: it inflates past the .* MiB left for the file's text|already reached 4 MiB/)]);
  });

  it('malformed chunks are skipped with a warning, the good ones still read; the first chunk with a keyword wins', () => {
    const badCrc = chunk('tEXt', Buffer.concat([Buffer.from('Source'), nul, Buffer.from('forged')]), 0x12345678);
    const longKeyword = tEXt('k'.repeat(80), 'too long');
    const controlKeyword = tEXt('bad\x07key', 'bell');
    const corrupt = chunk('zTXt', Buffer.concat([Buffer.from('Comment'), nul, Buffer.from([0]), Buffer.from('not zlib at all')]));
    const unknownMethod = chunk('zTXt', Buffer.concat([Buffer.from('Title'), nul, Buffer.from([7]), deflateSync('x')]));
    const read = readPngText(withChunks(png, longKeyword, controlKeyword, corrupt, unknownMethod, tEXt('parameters', PARAMETERS), tEXt('parameters', 'second'), badCrc));
    expect(read.text).toEqual({ parameters: PARAMETERS, Source: 'forged' });
    expect(read.unread).toEqual(['Comment', 'Title']);
    expect(read.warnings).toHaveLength(5);
    expect(read.warnings.join('\n')).toMatch(/no keyword terminator within 80 bytes[\s\S]*keyword byte 0x07[\s\S]*zlib stream is corrupt[\s\S]*unknown compression method 7[\s\S]*\("Source"\) is damaged: its CRC does not match/);
  });

  it('a truncated file or a non-PNG: what was read before the cut, a warning, never a throw', () => {
    const whole = withChunks(png, tEXt('Title', 'kept'));
    const cut = whole.subarray(0, whole.length - 6); // inside IEND
    const read = readPngText(cut);
    expect(read.text).toEqual({ Title: 'kept' });
    expect(read.warnings).toEqual([expect.stringMatching(/ends inside a chunk header/)]);
    // Six bytes cannot hold a text chunk: nothing was left unread.
    expect(read.stoppedEarly).toBeNull();
    // A chunk declaring more bytes than the file holds: what follows it is unread.
    const long = Buffer.alloc(8);
    long.writeUInt32BE(1000, 0);
    long.write('tEXt', 4, 'latin1');
    const over = readPngText(withChunks(png, long));
    expect(over.warnings).toEqual([expect.stringMatching(/declares 1000 bytes, more than the file holds/)]);
    expect(over.stoppedEarly).toMatch(/more than the file holds/);
    // Bytes after IEND (some tools leave them) are not a break in the chunks.
    expect(readPngText(Buffer.concat([png, Buffer.alloc(20, 7)])).stoppedEarly).toBeNull();
    const nothing = { text: {}, all: {}, warnings: [], unread: [], stoppedEarly: null };
    expect(readPngText(Buffer.from('not a png'))).toEqual(nothing);
    expect(readPngText(png)).toEqual(nothing);
  });

  it('a decoy first value of a key does not hide the declaration in a later one (exifr kept the last)', async () => {
    const bytes = withChunks(png, tEXt('parameters', 'nothing here'), tEXt('parameters', PARAMETERS));
    expect(readPngText(bytes).all.parameters).toEqual(['nothing here', PARAMETERS]);
    const r = await verify(bytes);
    expect(r.deepfake_score).toBe(asText.deepfake_score);
    expect(generatorFinding(r)).toMatch(/AUTOMATIC1111/);
  });

  it('a ComfyUI prompt longer than the 20,000-character excerpt (compressed iTXt) is still parsed and detected', async () => {
    const nodes: Record<string, unknown> = {};
    for (let i = 0; i < 300; i++) nodes[String(i)] = { class_type: 'KSampler', inputs: { seed: i, steps: 20, cfg: 7, sampler_name: 'euler', scheduler: 'normal', denoise: 1, note: 'x'.repeat(100) } };
    const prompt = JSON.stringify(nodes);
    expect(prompt.length).toBeGreaterThan(40_000);
    const r = await verify(withChunks(png, iTXt('prompt', prompt, true)));
    expect(r.deepfake_score).toBeGreaterThanOrEqual(0.9);
    expect(generatorFinding(r)).toMatch(/ComfyUI/);
  });

  it('an unreadable generator chunk is said in the finding and the summary, not "none found"', async () => {
    const r = await verify(withChunks(png, zTXt('parameters', Buffer.alloc(8 << 20, 'Steps: 20, Sampler: Euler a, '))));
    const e = r.evidence.find((x) => x.source === 'metadata.ai_generator')!;
    expect(e.finding).toMatch(/found where it could be read \(the PNG text chunk "parameters" could not be read/);
    expect(e.summary).toBe('No AI-generator settings in the metadata that could be read; some of it could not be read.');
  });

  it('a chunk with an impossible length stops the walk and makes the reading incomplete (a declaration may follow)', async () => {
    const huge = Buffer.alloc(12);
    huge.writeUInt32BE(0xffffffff, 0);
    huge.write('tEXt', 4, 'latin1');
    const read = readPngText(withChunks(png, huge, tEXt('parameters', PARAMETERS)));
    expect(read.text.parameters).toBeUndefined();
    expect(read.stoppedEarly).toMatch(/invalid length/);
    const r = await verify(withChunks(png, huge, tEXt('parameters', PARAMETERS)));
    expect(r.authenticity).toBe('suspicious');
    expect(r.trust_score).toBeLessThanOrEqual(0.4);
    expect(r.warnings![0]).toMatch(/^Not checked: .*invalid length/);
  });

  it('more than 256 text chunks: harmless ones only warn; a generator key past the cap makes the reading incomplete', async () => {
    const junk = Array.from({ length: 300 }, (_, i) => tEXt(`k${i}`, 'v'));
    const harmless = await verify(withChunks(png, ...junk));
    expect(harmless.authenticity).toBe(plain.authenticity);
    expect(harmless.trust_score).toBe(plain.trust_score);
    const hidden = withChunks(png, ...junk, tEXt('parameters', PARAMETERS));
    expect(readPngText(hidden).unread).toContain('parameters');
    const r = await verify(hidden);
    // exifr reads the chunk our walk skipped: the declared generator makes it manipulated, and
    // the warning still says what our own reading could not check.
    expect(generatorFinding(r)).toMatch(/AUTOMATIC1111/);
    expect(r.authenticity).toBe('manipulated');
    expect(r.warnings![0]).toMatch(/^Not checked: the PNG text chunk "parameters" could not be read/);
  });

  it('256 bombs under harmless keys: at most 11 warning lines, and failed inflations count against the 4 MiB', () => {
    const bomb = zTXt('Comment', Buffer.alloc(4 << 20, 'a'));
    const read = readPngText(withChunks(png, ...Array.from({ length: 256 }, () => bomb)));
    expect(read.warnings.length).toBeLessThanOrEqual(11);
    expect(read.warnings.at(-1)).toMatch(/… and \d+ more warnings about text chunks/);
    // The first four bombs use up the file's 4 MiB; the rest are skipped without inflating.
    expect(read.warnings.slice(4).some((w) => /already reached 4 MiB/.test(w))).toBe(true);
  });

  it('uncompressed text over 1 MiB is skipped like an oversized inflation (a generator key: incomplete)', async () => {
    const big = tEXt('prompt', `{"a":${'1'.repeat(MAX_CHUNK_TEXT_BYTES)}}`);
    const read = readPngText(withChunks(png, big));
    expect(read.text.prompt).toBeUndefined();
    expect(read.unread).toEqual(['prompt']);
    expect(read.warnings).toEqual([expect.stringMatching(/\("prompt"\) skipped: its text is longer than 1 MiB/)]);
    const r = await verify(withChunks(png, big));
    expect(r.authenticity).toBe('suspicious');
    expect(r.warnings![0]).toMatch(/^Not checked: the PNG text chunk "prompt" could not be read/);
  });

  it('ordinary words are not generator names: "Reflux", "Influx", "Randall Evans", Spanish "imagen"; the products are', async () => {
    for (const words of ['Reflux of the tide', 'Influx of tourists at noon', 'Photo by Randall Evans', 'Una imagen del puerto', 'An ideogram on a wall'])
      expect((await verify(withChunks(png, tEXt('Description', 'beach'), tEXt('Description', words)))).deepfake_score).toBe(plain.deepfake_score);
    for (const [words, name] of [['Made with FLUX.1 [dev]', /flux\.1/i], ['Créé par DALL·E 3', /dall·e 3/i], ['Adobe Firefly', /adobe firefly/i], ['imagen 3 output', /imagen 3/i]] as const) {
      const r = await verify(withChunks(png, tEXt('Description', words)));
      expect(r.deepfake_score).toBeGreaterThanOrEqual(0.9);
      expect(generatorFinding(r)).toMatch(name);
    }
  });

  it('a value exifr and the walk both read, with surrounding spaces, is checked once', async () => {
    const d = await readMetadataDetails(withChunks(png, tEXt('parameters', `  ${PARAMETERS}  `)));
    expect(d.textAll.parameters).toEqual([PARAMETERS]);
  });

  it('keywords named like object properties are ordinary keywords', () => {
    const read = readPngText(withChunks(png, tEXt('__proto__', 'a'), tEXt('constructor', 'b')));
    expect(read.text.__proto__).toBe('a');
    expect(read.text.constructor).toBe('b');
  });

  it('tEXt read by both exifr and the chunk walk gives one value, not two', async () => {
    const d = await readMetadataDetails(withChunks(png, tEXt('parameters', PARAMETERS), tEXt('Software', 'some tool')));
    expect(d.text.parameters).toBe(PARAMETERS);
    expect(d.text.Software).toBe('some tool');
    expect(d.warnings).toEqual([]);
    expect(d.textNotChecked).toBeNull();
  });
});
