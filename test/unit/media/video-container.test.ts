/**
 * Container consistency of a video (issue 30, video-container.ts): editing tools named in encoder
 * and handler names, a movie header modified after its creation, a track created after the movie,
 * edit lists with several media segments; and the box fields they come from (video.ts), read from
 * a clip ffmpeg writes (skipped with a message without ffmpeg).
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { findDecoder } from '../../../src/engine/media/ffmpeg.js';
import { containerSignals } from '../../../src/engine/media/video-container.js';
import { readVideoMetadata, type VideoMetadata } from '../../../src/engine/media/video.js';

const base = (over: Partial<VideoMetadata> = {}): VideoMetadata => ({
  metadata: { width: 1920, height: 1080, format: 'mp4', exif: { make: 'Apple', model: 'iPhone 15', datetime_original: null, gps: null } },
  brand: 'qt',
  durationS: 10,
  software: null,
  truncated: null,
  hasMoov: true,
  createdAt: '2025-06-01T10:00:00Z',
  modifiedAt: '2025-06-01T10:00:00Z',
  tracks: [
    { handler: 'vide', createdAt: '2025-06-01T10:00:00Z', modifiedAt: '2025-06-01T10:00:00Z', edits: [[10_000, 0]] },
    { handler: 'soun', createdAt: '2025-06-01T10:00:00Z', modifiedAt: '2025-06-01T10:00:00Z', edits: [[10_000, 0]] },
  ],
  ...over,
});
const camera = { encoder: null, handlers: ['Core Media Video', 'Core Media Audio'], stream_encoders: ['H.264'] };
const p = (signals: ReturnType<typeof containerSignals>, analyzer: string): number | undefined => signals.find((s) => s.analyzer === analyzer)?.probability;

describe('container signals', () => {
  it('a phone original: no editing tool, consistent times, no added track, one edit', () => {
    const s = containerSignals(base(), camera);
    expect(p(s, 'metadata.video_tools')).toBe(0);
    expect(s.map((x) => x.analyzer).sort()).toEqual(['metadata.video_tools']);
  });
  it('an editor in the encoder or handler name (0.35, re-encoding group); FFmpeg\'s libraries weaker (0.15)', () => {
    const premiere = containerSignals(base(), { ...camera, handlers: ['Adobe Premiere Pro Video Handler'] });
    expect(p(premiere, 'metadata.video_tools')).toBe(0.35);
    expect(premiere[0]!.group).toBe('reencoding');
    expect(premiere[0]!.finding).toMatch(/Adobe Premiere Pro/);
    expect(p(containerSignals(base(), { ...camera, encoder: 'Lavf60.16.100' }), 'metadata.video_tools')).toBe(0.15);
    expect(p(containerSignals(base({ software: 'HandBrake 1.7.2' }), camera), 'metadata.video_tools')).toBe(0.35);
  });
  it('modified after creation (0.15, re-encoding); a track created an hour after the movie (0.35); several edit segments (0.2)', () => {
    const s = containerSignals(base({
      modifiedAt: '2025-06-03T09:00:00Z',
      tracks: [
        { handler: 'vide', createdAt: '2025-06-01T10:00:00Z', modifiedAt: null, edits: [[4000, 0], [3000, 9000], [3000, 5000]] },
        { handler: 'soun', createdAt: '2025-06-01T11:00:00Z', modifiedAt: null, edits: [[10_000, 0]] },
      ],
    }), camera);
    expect(p(s, 'metadata.video_times')).toBe(0.15);
    expect(s.find((x) => x.analyzer === 'metadata.video_times')!.group).toBe('reencoding');
    expect(p(s, 'metadata.video_tracks')).toBe(0.35);
    expect(s.find((x) => x.analyzer === 'metadata.video_tracks')!.finding).toMatch(/soun at 2025-06-01T11:00:00\.000Z/);
    expect(p(s, 'metadata.edit_list')).toBe(0.2);
    // An empty edit (−1: a start delay) plus one segment is what encoders write: not an edit.
    const delay = containerSignals(base({ tracks: [{ handler: 'vide', createdAt: null, modifiedAt: null, edits: [[40, -1], [10_000, 0]] }] }), camera);
    expect(p(delay, 'metadata.edit_list')).toBeUndefined();
  });
});

const decoder = findDecoder({});
(decoder ? describe : describe.skip)(`box fields of a real MP4${decoder ? '' : ' — SKIPPED: ffmpeg not found on PATH'}`, () => {
  it('mvhd/tkhd creation times, handler types and the edit list as ffmpeg writes them', () => {
    const dir = mkdtempSync(join(tmpdir(), 'verity-container-'));
    try {
      const out = join(dir, 'c.mp4');
      execFileSync(decoder!.ffmpeg, ['-v', 'error', '-y', '-f', 'lavfi', '-i', 'testsrc2=s=128x96:r=25:d=1', '-f', 'lavfi', '-i', 'sine=d=1', '-metadata', 'creation_time=2024-03-01T12:00:00Z', '-c:v', 'libx264', '-c:a', 'aac', '-shortest', out]);
      const vm = readVideoMetadata(readFileSync(out), 'mp4');
      expect(vm.createdAt).toBe('2024-03-01T12:00:00Z');
      expect(vm.tracks.map((t) => t.handler)).toEqual(['vide', 'soun']);
      expect(vm.tracks.every((t) => (t.edits?.length ?? 0) >= 1)).toBe(true);
      const s = containerSignals(vm, { encoder: 'Lavf59.27.100', handlers: ['VideoHandler', 'SoundHandler'], stream_encoders: [] });
      expect(s.map((x) => x.analyzer)).toEqual(['metadata.video_tools']);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
