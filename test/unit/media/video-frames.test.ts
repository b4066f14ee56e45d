/**
 * Video, frame by frame (issue 30): clips built here with ffmpeg's own sources and encoder
 * (testsrc2 with temporal noise as "the recording", testsrc without noise as "another recording"),
 * 320×240 so the suite stays fast. Skipped, visibly, where ffmpeg is not installed.
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MediaRequest } from '../../../src/api/requests.js';
import type { MediaResult } from '../../../src/api/results.js';
import { DecoderError, findDecoder, runDecoder } from '../../../src/engine/media/ffmpeg.js';
import { chooseSamples } from '../../../src/engine/media/video-frames.js';
import { NO_DECODER_WARNING, verifyMedia } from '../../../src/engine/media/verify.js';
import type { EngineConfig } from '../../../src/engine/types.js';
import { readResult, renderReport } from '../../../src/report/index.js';
import { makePorts } from './helpers.js';

const decoder = findDecoder({});
const RECORDING = 'testsrc2=s=320x240:r=25:d=10';
const NOISE = 'noise=alls=14:allf=t';
const ENCODE = ['-c:v', 'libx264', '-preset', 'veryfast', '-crf', '26', '-g', '50', '-pix_fmt', 'yuv420p'];

let dir = '';
const clip = (name: string, args: string[]): Buffer => {
  const out = join(dir, `${name}.mp4`);
  execFileSync(decoder!.ffmpeg, ['-v', 'error', '-y', ...args, ...ENCODE, out]);
  return readFileSync(out);
};
const verify = (bytes: Buffer, config: EngineConfig = {}): Promise<MediaResult> =>
  verifyMedia(MediaRequest.parse({ file: bytes.toString('base64') }), makePorts(config), {}) as Promise<MediaResult>;
const finding = (r: MediaResult, source: string): string => r.evidence.find((e) => e.source === source)?.finding ?? '';

const suite = decoder ? describe : describe.skip;
if (!decoder) describe.skip('video frames — SKIPPED: ffmpeg/ffprobe not found on PATH (Debian: apt-get install ffmpeg)', () => it('needs ffmpeg', () => undefined));

suite('video frames (ffmpeg on PATH)', () => {
  const clips: Record<string, Buffer> = {};
  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), 'verity-video-test-'));
    clips.clean = clip('clean', ['-f', 'lavfi', '-i', RECORDING, '-vf', NOISE]);
    // Seconds 4–6 replaced by 2 s of another recording, encoded in one pass with the rest.
    clips.spliced = clip('spliced', [
      '-f', 'lavfi', '-i', RECORDING, '-f', 'lavfi', '-i', 'testsrc=s=320x240:r=25:d=2',
      '-filter_complex', `[0:v]${NOISE},split=2[a][b];[a]trim=0:4,setpts=PTS-STARTPTS[a1];[b]trim=6:10,setpts=PTS-STARTPTS[a2];[1:v]setpts=PTS-STARTPTS[s];[a1][s][a2]concat=n=3:v=1:a=0[v]`,
      '-map', '[v]',
    ]);
    // Frame 120 (4.80 s) repeated 20 times, the clip re-timed to 25 fps and cut back to 10 s.
    // Frames 100–111 (4.00–4.44 s) cut out, the timestamps left as they were (a gap, not a re-timing).
    clips.gap = clip('gap', ['-f', 'lavfi', '-i', RECORDING, '-vf', `${NOISE},select='not(between(n\\,100\\,111))'`, '-fps_mode', 'passthrough']);
    clips.duplicated = clip('duplicated', ['-f', 'lavfi', '-i', RECORDING, '-vf', `${NOISE},loop=loop=20:size=1:start=120,setpts=N/25/TB,trim=duration=10`]);
  }, 120_000);
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('a clean clip: pixels analysed, every frame decoded, not suspicious', async () => {
    const r = await verify(clips.clean!);
    expect(r.video?.pixels_analysed).toBe(true);
    expect(r.video?.decoder).toMatch(/^ffmpeg /);
    expect(r.video?.frames_decoded).toBe(250);
    expect(r.video?.sampled.length).toBeGreaterThanOrEqual(12);
    expect(r.video?.sampled.length).toBeLessThanOrEqual(24);
    expect(r.video?.ranges).toEqual([]);
    expect(['likely_authentic', 'authentic']).toContain(r.authenticity);
    expect(r.dimension_producers?.llm_analysis).toBe('pixel forensics and metadata');
    expect(finding(r, 'temporal.splice')).toMatch(/^One segment/);
    expect(finding(r, 'temporal.duplicated_frames')).toMatch(/^No duplicated frames among 250/);
    expect(finding(r, 'metadata.video_tools')).toMatch(/FFmpeg's libraries/);
  }, 60_000);

  it('2 s of another recording spliced in at 4 s: suspicious, naming 4.00–5.96 s', async () => {
    const r = await verify(clips.spliced!);
    expect(['suspicious', 'manipulated']).toContain(r.authenticity);
    expect(r.evidence[0]!.finding).toMatch(/stands out: 4\.00–5\.96 s \(frames 100–149, temporal\.splice\)/);
    expect(finding(r, 'temporal.splice')).toMatch(/^Footage from another recording inserted: 4\.00–5\.96 s/);
    expect(finding(r, 'temporal.scene_cuts')).toMatch(/2 scene cuts at 4\.00 s .*6\.00 s/);
    const inside = r.video!.sampled.filter((s) => s.time_s >= 4 && s.time_s < 6);
    const outside = r.video!.sampled.filter((s) => s.time_s < 4 || s.time_s >= 6);
    expect(inside.length).toBeGreaterThan(0);
    expect(Math.min(...inside.map((s) => s.score))).toBeGreaterThan(Math.max(...outside.map((s) => s.score)));
  }, 60_000);

  it('the HTML report shows the sampled frames with their scores, the spliced ones outlined, and the range', async () => {
    const r = await verify(clips.spliced!);
    // Through a saved result, as `verity report` reads one.
    const saved = readResult(JSON.parse(JSON.stringify({ ...r, id: 'vrf_med_test1', latency_ms: 1, credits_used: 1 })));
    const page = await renderReport({ kind: 'media', result: saved.result, input: clips.spliced!, now: new Date('2026-01-15T12:00:00Z'), version: 't' });
    expect(page).toContain('<h2 id="h-frames">Video frames</h2>');
    const frames = [...page.matchAll(/<figure class="frame( hot)?"><img src="data:image\/jpeg;base64,[^"]+" alt="Frame (\d+) at ([\d.]+) s">/g)];
    expect(frames.length).toBe(r.video!.sampled.length);
    for (const [, hot, , t] of frames) expect(!!hot, `frame at ${t} s`).toBe(Number(t) >= 4 && Number(t) < 6);
    expect(page).toMatch(/<strong>4\.00–5\.96 s<\/strong> \(frames 100–149\): temporal\.splice/);
    // Without the input file: the scores, no pictures.
    const bare = await renderReport({ kind: 'media', result: saved.result, now: new Date('2026-01-15T12:00:00Z'), version: 't' });
    expect(bare).not.toContain('data:image/jpeg');
    expect(bare).toContain('Frame pictures are shown when the report is made with the input file');
  }, 60_000);

  it('frames duplicated (a 21-frame freeze at 4.76 s): suspicious, naming the range', async () => {
    const r = await verify(clips.duplicated!);
    expect(['suspicious', 'manipulated']).toContain(r.authenticity);
    // The loop filter repeats the frame shown at 4.76 s (frame 119): 21 identical frames to 5.56 s.
    expect(finding(r, 'temporal.duplicated_frames')).toMatch(/^Frames duplicated in a moving clip: 4\.76–5\.56 s \(frames 119–139, 21 identical\)/);
    expect(r.evidence[0]!.finding).toMatch(/stands out: 4\.76–5\.56 s/);
  }, 60_000);

  it('frames removed with their timestamps left (a 0.52 s gap at 3.96 s): suspicious, naming the gap', async () => {
    const r = await verify(clips.gap!);
    expect(['suspicious', 'manipulated']).toContain(r.authenticity);
    expect(finding(r, 'temporal.timestamps')).toMatch(/^Presentation-time gaps where frames are missing: 3\.96–4\.48 s \(12 frames at 25\.00 fps\)/);
    expect(r.evidence[0]!.finding).toMatch(/stands out: 3\.96–4\.48 s \(frames 99–100, temporal\.timestamps\)/);
  }, 60_000);

  it('no decoder (media.ffmpeg none): says pixels were not analysed, keeps the metadata reading, no pixel score', async () => {
    const r = await verify(clips.spliced!, { media: { ffmpeg: 'none' } });
    expect(r.warnings).toContain(NO_DECODER_WARNING);
    expect(r.video).toMatchObject({ decoder: null, pixels_analysed: false, sampled: [], ranges: [] });
    expect(r.dimension_producers?.llm_analysis).toBe('metadata only (pixels not analysed)');
    expect(r.dimensions.llm_analysis).toBeLessThanOrEqual(0.5);
    expect(finding(r, 'forensics.video_frames')).toMatch(/^Pixels not analysed/);
    expect(r.evidence.some((e) => e.source.startsWith('temporal.'))).toBe(false);
    // A path that is not an executable counts as no decoder too.
    const missing = await verify(clips.clean!, { media: { ffmpeg: join(dir, 'no-such-ffmpeg') } });
    expect(missing.video?.pixels_analysed).toBe(false);
  }, 60_000);

  it('a file the decoder cannot read is a partial result, never a pixel score', async () => {
    // An MP4 whose sample data is zeroed: the container parses, the frames do not decode.
    const broken = Buffer.from(clips.clean!);
    const mdat = broken.indexOf('mdat') - 4;
    broken.fill(0, mdat + 8 + 64, mdat + broken.readUInt32BE(mdat) - 64);
    const r = await verify(broken);
    expect(r.trust_score).toBeLessThanOrEqual(0.4);
    expect(['suspicious', 'manipulated']).toContain(r.authenticity);
  }, 60_000);

  it('the decoder is killed at its time limit and on abort', async () => {
    const endless = ['-nostdin', '-f', 'lavfi', '-i', 'testsrc2=s=320x240:r=25', '-f', 'null', '-'];
    await expect(runDecoder(decoder!.ffmpeg, endless, { timeoutMs: 500 })).rejects.toMatchObject({ reason: 'timeout' });
    const ac = new AbortController();
    const run = runDecoder(decoder!.ffmpeg, endless, { timeoutMs: 60_000, signal: ac.signal });
    setImmediate(() => ac.abort());
    await expect(run).rejects.toBeInstanceOf(DecoderError);
    await expect(run).rejects.toMatchObject({ reason: 'aborted' });
  }, 30_000);
});

describe('frame sample', () => {
  it('keyframes (at most 8) plus an even spread, at most 24, in order, within the clip', () => {
    const keys = Array.from({ length: 30 }, (_, i) => i * 10);
    const s = chooseSamples(300, keys);
    expect(s.length).toBe(24);
    expect(s.filter((i) => keys.includes(i)).length).toBeGreaterThanOrEqual(8);
    expect([...s].sort((a, b) => a - b)).toEqual(s);
    expect(Math.max(...s)).toBeLessThan(300);
    expect(chooseSamples(5, [0])).toEqual([0, 1, 2, 3, 4]);
  });
});
