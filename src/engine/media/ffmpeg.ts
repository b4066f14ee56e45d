/**
 * The video decoder: `ffmpeg` and `ffprobe` found on the system PATH (Debian's `ffmpeg` package in
 * CI), run as child processes. Why (docs/media.md "Video frames"): FFmpeg is the maintained
 * reference decoder for every codec a phone or camera writes (H.264, HEVC, AV1, ProRes), gets
 * security fixes through the distribution, and runs in its own process, so a crafted file cannot
 * corrupt this one and is killed outright at the time limit. The npm packages that ship a binary
 * (ffmpeg-static and the like) pin an old build that is not patched by the system's updates.
 *
 * Every run is bounded: the input is a private temporary file named on the command line with the
 * `file:` protocol and `-protocol_whitelist file` (no network, no other protocol a container could
 * name), the ISO BMFF demuxer is forced (`-f mov`: no playlist or concat demuxer that would open
 * other files), filter graphs are ours only, stdout is capped, and the process is killed at its
 * time limit or when the request is aborted.
 */
import { spawn } from 'node:child_process';
import { accessSync, constants } from 'node:fs';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { delimiter, dirname, join } from 'node:path';
import type { EngineConfig } from '../types.js';

export interface Decoder {
  ffmpeg: string;
  ffprobe: string;
}

const executable = (p: string): boolean => {
  try {
    accessSync(p, constants.X_OK);
    return true;
  } catch {
    return false;
  }
};

function onPath(name: string): string | null {
  for (const dir of (process.env.PATH ?? '').split(delimiter)) {
    if (!dir) continue;
    const p = join(dir, name);
    if (executable(p)) return p;
  }
  return null;
}

/**
 * `media.ffmpeg` in the configuration: a path to `ffmpeg` (its `ffprobe` is looked for beside it,
 * then on PATH), or `none` to switch video frame decoding off. Unset: both from PATH. Null when
 * either is missing: the video is then read from its container only and the result says so.
 */
export function findDecoder(config: EngineConfig): Decoder | null {
  const configured = config.media?.ffmpeg?.trim();
  if (configured === 'none') return null;
  if (configured) {
    if (!executable(configured)) return null;
    const beside = join(dirname(configured), 'ffprobe');
    const ffprobe = executable(beside) ? beside : onPath('ffprobe');
    return ffprobe ? { ffmpeg: configured, ffprobe } : null;
  }
  const ffmpeg = onPath('ffmpeg');
  const ffprobe = onPath('ffprobe');
  return ffmpeg && ffprobe ? { ffmpeg, ffprobe } : null;
}

/** The input as a private temporary file (mode 0600 in a 0700 folder), removed by `dispose`. */
export async function tempInput(bytes: Buffer): Promise<{ path: string; dispose: () => Promise<void> }> {
  const dir = await mkdtemp(join(tmpdir(), 'verity-video-'));
  const path = join(dir, 'input.mp4');
  await writeFile(path, bytes, { mode: 0o600 });
  return { path, dispose: () => rm(dir, { recursive: true, force: true }) };
}

/** Options every run gets before its input: quiet, no stdin, local files only, the BMFF demuxer. */
export const inputArgs = (path: string): string[] => ['-protocol_whitelist', 'file', '-f', 'mov', '-i', `file:${path}`];

export interface RunOptions {
  timeoutMs: number;
  signal?: AbortSignal;
  /** Largest stdout accepted; past it the process is killed and the run fails. */
  maxStdout?: number;
  /** Called with each chunk of an extra output pipe (fd 3), when the command writes one. */
  onPipe3?: (chunk: Buffer) => void;
  /** Called with each stdout chunk instead of collecting it. */
  onStdout?: (chunk: Buffer) => void;
}

export class DecoderError extends Error {
  constructor(message: string, readonly reason: 'timeout' | 'aborted' | 'failed' | 'too_much_output') {
    super(message);
  }
}

/** Runs one decoder command; resolves with stdout (unless streamed) and the stderr tail. */
export function runDecoder(file: string, args: string[], o: RunOptions): Promise<{ stdout: Buffer; stderr: string }> {
  return new Promise((resolve, reject) => {
    if (o.signal?.aborted) return reject(new DecoderError('aborted before the decoder started', 'aborted'));
    const child = spawn(file, args, {
      stdio: ['ignore', 'pipe', 'pipe', o.onPipe3 ? 'pipe' : 'ignore'],
      // No inherited configuration: ffmpeg reads none from the environment that matters here,
      // and a proxy variable must not reach a build with network protocols compiled in.
      env: { PATH: process.env.PATH ?? '', LC_ALL: 'C' },
      windowsHide: true,
    });
    const chunks: Buffer[] = [];
    let size = 0;
    let stderr = '';
    let failure: DecoderError | null = null;
    const kill = (err: DecoderError): void => {
      failure ??= err;
      child.kill('SIGKILL');
    };
    const timer = setTimeout(() => kill(new DecoderError(`the decoder did not finish within ${Math.round(o.timeoutMs / 1000)} s`, 'timeout')), o.timeoutMs);
    timer.unref?.();
    const onAbort = (): void => kill(new DecoderError('the analysis was stopped', 'aborted'));
    o.signal?.addEventListener('abort', onAbort, { once: true });
    child.stdout!.on('data', (c: Buffer) => {
      size += c.length;
      if (o.maxStdout !== undefined && size > o.maxStdout) return kill(new DecoderError(`the decoder wrote more than ${o.maxStdout} bytes`, 'too_much_output'));
      if (o.onStdout) {
        try {
          o.onStdout(c);
        } catch (err) {
          kill(new DecoderError(err instanceof Error ? err.message : String(err), 'failed'));
        }
      } else chunks.push(c);
    });
    child.stderr!.on('data', (c: Buffer) => {
      stderr = (stderr + c.toString('utf8')).slice(-4000);
    });
    const pipe3 = child.stdio[3];
    if (o.onPipe3 && pipe3 && 'on' in pipe3)
      (pipe3 as NodeJS.ReadableStream).on('data', (c: Buffer) => {
        try {
          o.onPipe3!(c);
        } catch (err) {
          kill(new DecoderError(err instanceof Error ? err.message : String(err), 'failed'));
        }
      });
    child.on('error', (err) => kill(new DecoderError(`the decoder could not start: ${err.message}`, 'failed')));
    child.on('close', (code) => {
      clearTimeout(timer);
      o.signal?.removeEventListener('abort', onAbort);
      if (failure) return reject(failure);
      if (code !== 0) return reject(new DecoderError(`the decoder failed (exit ${code}): ${stderr.trim().split('\n').slice(-2).join(' ').slice(0, 300) || 'no message'}`, 'failed'));
      resolve({ stdout: Buffer.concat(chunks), stderr });
    });
  });
}
