/**
 * Video through the CLI (issue 30): with ffmpeg on PATH the frames are read; with a PATH that has
 * no ffmpeg the result, JSON and human, says the pixels were not analysed. Skipped with a message
 * where ffmpeg is not installed (the clip is built with it).
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { newHome, verity } from './run-cli.js';

const ffmpeg = ((): string | null => {
  try {
    return execFileSync('sh', ['-c', 'command -v ffmpeg && command -v ffprobe'], { encoding: 'utf8' }).split('\n')[0]!.trim() || null;
  } catch {
    return null;
  }
})();
const dir = mkdtempSync(join(tmpdir(), 'verity-e2e-video-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
const clip = join(dir, 'clip.mp4');

(ffmpeg ? describe : describe.skip)(`verity verify media CLIP${ffmpeg ? '' : ' — SKIPPED: ffmpeg/ffprobe not found on PATH'}`, () => {
  it('with ffmpeg: frames read; with PATH emptied of ffmpeg: "pixels not analysed", metadata reading kept', async () => {
    execFileSync(ffmpeg!, ['-v', 'error', '-y', '-f', 'lavfi', '-i', 'testsrc2=s=192x128:r=25:d=3', '-vf', 'noise=alls=12:allf=t', '-c:v', 'libx264', '-preset', 'veryfast', '-pix_fmt', 'yuv420p', clip]);
    const withDecoder = await verity(['verify', 'media', clip, '--json']);
    expect(withDecoder.code, withDecoder.stderr).toBe(0);
    const r = JSON.parse(withDecoder.stdout) as { video: { pixels_analysed: boolean; frames_decoded: number }; warnings?: string[] };
    expect(r.video.pixels_analysed).toBe(true);
    expect(r.video.frames_decoded).toBe(75);

    // Only node's own folder on PATH (no ffmpeg there): the decoder is not found.
    const noDecoderPath = { PATH: dirname(process.execPath) === dirname(ffmpeg!) ? '/nonexistent' : dirname(process.execPath) };
    const bare = await verity(['verify', 'media', clip, '--json'], { env: noDecoderPath });
    expect(bare.code, bare.stderr).toBe(0);
    const b = JSON.parse(bare.stdout) as { video: { pixels_analysed: boolean; decoder: string | null }; warnings: string[]; dimension_producers: { llm_analysis: string } };
    expect(b.video).toMatchObject({ pixels_analysed: false, decoder: null });
    expect(b.warnings.join(' ')).toMatch(/Video pixels not analysed: no video decoder \(ffmpeg and ffprobe\) was found on PATH/);
    expect(b.dimension_producers.llm_analysis).toBe('metadata only (pixels not analysed)');
    const human = await verity(['verify', 'media', clip], { env: noDecoderPath });
    expect(human.stdout + human.stderr).toMatch(/pixels not analysed/i);

    // The configuration switch: `media.ffmpeg none` reaches the engine.
    const home = newHome();
    expect((await verity(['config', 'set', 'media.ffmpeg', 'none'], { home })).code).toBe(0);
    const off = JSON.parse((await verity(['verify', 'media', clip, '--json'], { home })).stdout) as { video: { pixels_analysed: boolean } };
    expect(off.video.pixels_analysed).toBe(false);
  }, 60_000);
});
