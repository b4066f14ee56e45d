/**
 * Video, frame by frame (issue 30; docs/media.md "Video frames"). With `ffmpeg`/`ffprobe` (ffmpeg.ts):
 *
 * 1. ffprobe reads the container (streams, encoder and handler names) and the video packets
 *    (presentation times, keyframe flags, sizes) without decoding.
 * 2. ONE ffmpeg run decodes the video track once and writes two raw grey streams: every frame at
 *    ≤ 256 px wide (temporal signals) on stdout, and a bounded sample of frames (keyframes plus an
 *    even spread, at most MAX_SAMPLES, at most SAMPLE_PIXELS each) on a second pipe, for the
 *    image forensics the engine already has.
 * 3. Signals, each naming the frames or time range it is about:
 *    - `temporal.duplicated_frames`: runs of identical frames in a moving clip (a freeze that hides
 *      a cut, or frames repeated to cover removed ones);
 *    - `temporal.timestamps`: presentation-time gaps (dropped or removed frames) and reversals;
 *    - `temporal.splice`: a segment between two scene cuts whose noise level or blockiness differs
 *      from the footage on both sides, which agree with each other (another recording inserted);
 *      a single change of source is named but stays weak (edited programmes do that);
 *    - `temporal.scene_cuts`: cuts, and whether each falls on a keyframe;
 *    - `forensics.video_frames`: the noise-residual analyzer per sampled frame, and whether its
 *      findings agree across neighbouring frames (a region that stays counts at the image
 *      analyzer's level; one frame alone is discounted as texture);
 *    - `forensics.spectrum` (deepfake checks on): the spectral check on a few frames, averaged.
 * Each is a heuristic with innocent explanations: none alone makes a file `manipulated` (score.ts).
 */
import type { Signal } from './forensics/types.js';
import { lumaTileSums } from './forensics/luma-pass.js';
import { noiseSignal, noiseStats } from './forensics/noise.js';
import { spectrumSignal } from './forensics/spectrum.js';
import { median } from './forensics/tiles.js';
import { DecoderError, inputArgs, runDecoder, tempInput, type Decoder } from './ffmpeg.js';
import { noisyOr, round3 } from '../scoring.js';

/** Seconds, fps and σ to 3 decimals (round3 clamps to 0..1: it is for scores). */
const r3 = (x: number): number => Math.round(x * 1000) / 1000;

/** Largest frame the decoder is asked to decode (8K UHD); larger is refused like an oversized image. */
export const MAX_FRAME_PIXELS = 7680 * 4320;
/** Seconds of video analysed; past it the rest is named as not checked. */
export const MAX_ANALYSED_S = 300;
/** Frames decoded for the temporal signals, at most (5 minutes at 30 fps). */
export const MAX_FRAMES = 9000;
/** Sampled frames for the image forensics, and keyframes among them. */
export const MAX_SAMPLES = 24;
const MAX_KEY_SAMPLES = 8;
/** Pixels of one sampled frame (1080p); larger frames are scaled down to it. */
export const SAMPLE_PIXELS = 1920 * 1088;
/** Width of the small frames the temporal signals read. */
const LOW_WIDTH = 256;
/** Frames the spectral (AI) check reads. */
const SPECTRUM_FRAMES = 4;

export interface FrameSample {
  index: number;
  time_s: number;
  keyframe: boolean;
  /** How much this frame stands out (0..1): its own forensic finding and any flagged range it lies in. */
  score: number;
  noise_sigma: number | null;
}

export interface FlaggedRange {
  start_s: number;
  end_s: number;
  first_frame: number;
  last_frame: number;
  analyzer: string;
  probability: number;
}

export interface VideoFramesResult {
  signals: Signal[];
  decoder: string;
  width: number;
  height: number;
  frames_total: number;
  frames_decoded: number;
  duration_s: number | null;
  fps: number | null;
  keyframes: number;
  sampled: FrameSample[];
  ranges: FlaggedRange[];
  warnings: string[];
  /** What was not analysed (a long clip's rest), or null. */
  partial: string | null;
  /** Container facts ffprobe gave (encoder and handler names), for the container signals. */
  container: { encoder: string | null; handlers: string[]; stream_encoders: string[]; streams: Array<{ type: string; handler: string | null }> };
}

interface Packet {
  pts: number;
  key: boolean;
  size: number;
}

const fmt = (s: number): string => `${s.toFixed(2)} s`;
const range = (a: number, b: number): string => (Math.abs(a - b) < 0.005 ? fmt(a) : `${a.toFixed(2)}–${b.toFixed(2)} s`);

/** Immerkær's noise σ over a grey frame (no tiling: a whole-frame level, for comparing segments). */
function frameSigma(d: Uint8Array, w: number, h: number): number {
  let sum = 0;
  let n = 0;
  for (let y = 1; y < h - 1; y += 1) {
    const r0 = (y - 1) * w;
    const r1 = y * w;
    const r2 = (y + 1) * w;
    for (let x = 1; x < w - 1; x++) {
      const v = d[r0 + x - 1]! - 2 * d[r0 + x]! + d[r0 + x + 1]! - 2 * d[r1 + x - 1]! + 4 * d[r1 + x]! - 2 * d[r1 + x + 1]! + d[r2 + x - 1]! - 2 * d[r2 + x]! + d[r2 + x + 1]!;
      const a = v < 0 ? -v : v;
      // Strong edges are scene structure, not noise.
      if (a < 48) {
        sum += a;
        n++;
      }
    }
  }
  return n ? (Math.sqrt(Math.PI / 2) / 6) * (sum / n) : 0;
}

/** Mean absolute difference of two equal-size grey frames. */
function meanAbsDiff(a: Uint8Array, b: Uint8Array): number {
  let s = 0;
  for (let i = 0; i < a.length; i++) {
    const v = a[i]! - b[i]!;
    s += v < 0 ? -v : v;
  }
  return s / Math.max(1, a.length);
}

/**
 * Blockiness: the mean step across 8-pixel column boundaries over the mean step elsewhere. A
 * segment compressed twice (recorded, compressed, then inserted and compressed again) keeps the
 * first encoder's block edges: its ratio stands apart from the footage around it.
 */
function blockiness(d: Uint8Array, w: number, h: number): number {
  let edge = 0;
  let ne = 0;
  let inner = 0;
  let ni = 0;
  for (let y = 0; y < h; y += 2) {
    const r = y * w;
    for (let x = 0; x < w - 1; x++) {
      const v = d[r + x + 1]! - d[r + x]!;
      const a = v < 0 ? -v : v;
      if (a > 40) continue;
      if ((x & 7) === 7) {
        edge += a;
        ne++;
      } else {
        inner += a;
        ni++;
      }
    }
  }
  return ne && ni && inner > 0 ? edge / ne / (inner / ni) : 1;
}

/** Keyframes (evenly chosen, at most MAX_KEY_SAMPLES) plus an even spread, at most MAX_SAMPLES in all. */
export function chooseSamples(count: number, keyframes: number[]): number[] {
  const out = new Set<number>();
  const keys = keyframes.filter((k) => k < count);
  const kStep = Math.max(1, keys.length / MAX_KEY_SAMPLES);
  for (let i = 0; i < keys.length && out.size < MAX_KEY_SAMPLES; i += kStep) out.add(keys[Math.floor(i)]!);
  const rest = Math.min(count, MAX_SAMPLES) - out.size;
  for (let i = 0; i < rest * 2 && out.size < Math.min(count, MAX_SAMPLES); i++) {
    // Centres of `rest` equal slices, then the slices' starts if some coincided with keyframes.
    const slice = count / Math.max(1, rest);
    const at = i < rest ? Math.floor(slice * i + slice / 2) : Math.floor(slice * (i - rest));
    out.add(Math.min(count - 1, at));
  }
  return [...out].sort((a, b) => a - b);
}

function parsePackets(csv: string, limitS: number): Packet[] {
  const out: Packet[] = [];
  for (const line of csv.split('\n')) {
    const [pts, , size, flags] = line.split(',');
    const t = Number(pts);
    if (!line || !Number.isFinite(t)) continue;
    if (t > limitS) continue;
    out.push({ pts: t, key: (flags ?? '').startsWith('K'), size: Number(size) || 0 });
    if (out.length > MAX_FRAMES * 2) break;
  }
  return out.sort((a, b) => a.pts - b.pts).slice(0, MAX_FRAMES);
}

const num = (v: unknown): number | null => {
  const n = typeof v === 'number' ? v : typeof v === 'string' ? Number(v) : NaN;
  return Number.isFinite(n) ? n : null;
};
const rate = (v: unknown): number | null => {
  if (typeof v !== 'string') return null;
  const [a, b] = v.split('/').map(Number);
  return a && b ? r3(a / b) : null;
};

export interface VideoFramesOptions {
  signal: AbortSignal;
  /** Milliseconds the decoder runs may take in all. */
  timeoutMs: number;
  checkDeepfakes: boolean;
}

/** Decodes and reads the frames; throws DecoderError when the decoder cannot read the file. */
export async function analyzeVideoFrames(bytes: Buffer, decoder: Decoder, o: VideoFramesOptions): Promise<VideoFramesResult> {
  const started = Date.now();
  const left = (): number => Math.max(1000, o.timeoutMs - (Date.now() - started));
  const input = await tempInput(bytes);
  try {
    const probeArgs = ['-v', 'error', '-hide_banner', ...inputArgs(input.path)];
    const [meta, pk] = await Promise.all([
      runDecoder(decoder.ffprobe, [...probeArgs, '-show_program_version', '-show_format', '-show_streams', '-of', 'json'], { timeoutMs: left(), signal: o.signal, maxStdout: 4 << 20 }),
      runDecoder(decoder.ffprobe, [...probeArgs, '-select_streams', 'v:0', '-read_intervals', `%+${MAX_ANALYSED_S}`, '-show_entries', 'packet=pts_time,dts_time,size,flags', '-of', 'csv=p=0'], { timeoutMs: left(), signal: o.signal, maxStdout: 32 << 20 }),
    ]);
    let parsed: unknown;
    try {
      parsed = JSON.parse(meta.stdout.toString('utf8'));
    } catch {
      throw new DecoderError('the decoder\'s description of the file could not be read', 'failed');
    }
    const info = parsed as {
      program_version?: { version?: string };
      format?: { duration?: string; tags?: Record<string, string> };
      streams?: Array<{ codec_type?: string; width?: number; height?: number; avg_frame_rate?: string; r_frame_rate?: string; nb_frames?: string; tags?: Record<string, string> }>;
    };
    const streams = info.streams ?? [];
    const video = streams.find((s) => s.codec_type === 'video');
    if (!video || !video.width || !video.height) throw new DecoderError('the decoder found no video track it can read', 'failed');
    const W = video.width;
    const H = video.height;
    if (W * H > MAX_FRAME_PIXELS) throw new DecoderError(`frames of ${W}×${H} pixels are over the ${MAX_FRAME_PIXELS / 1e6} megapixel limit`, 'failed');
    const duration = num(info.format?.duration);
    const packets = parsePackets(pk.stdout.toString('utf8'), MAX_ANALYSED_S);
    if (packets.length < 2) throw new DecoderError('the video track has fewer than two frames', 'failed');
    const warnings: string[] = [];
    const total = Math.max(packets.length, Number(video.nb_frames) || 0);
    const partial = (duration !== null && duration > MAX_ANALYSED_S + 0.5) || total > MAX_FRAMES
      ? `only the first ${Math.min(MAX_ANALYSED_S, packets[packets.length - 1]!.pts).toFixed(0)} s (${packets.length} frames) of the video were decoded; the rest was not checked`
      : null;
    const keyIdx = packets.flatMap((p, i) => (p.key ? [i] : []));
    const samples = chooseSamples(packets.length, keyIdx);

    // Frame sizes: the small stream for every frame, the sample stream capped at SAMPLE_PIXELS.
    const even = (v: number): number => Math.max(2, Math.round(v / 2) * 2);
    const lw = even(Math.min(W, LOW_WIDTH));
    const lh = even((H * lw) / W);
    const k = Math.min(1, Math.sqrt(SAMPLE_PIXELS / (W * H)));
    const hw = even(W * k);
    const hh = even(H * k);
    const select = samples.map((n) => `eq(n,${n})`).join('+');
    const graph = `[0:v:0]split=2[a][b];[a]scale=${lw}:${lh}:flags=area,format=gray[lo];[b]select='${select}',scale=${hw}:${hh}:flags=area,format=gray[hi]`;

    const lowSize = lw * lh;
    const highSize = hw * hh;
    let lowBuf: Buffer = Buffer.alloc(0);
    let prev: Uint8Array | null = null;
    const diffs: number[] = [];
    const lowSigma: number[] = [];
    let highBuf: Buffer = Buffer.alloc(0);
    const high: Array<{ index: number; sigma: number; block: number; noise: Signal | null; spectrum: Signal | null }> = [];
    const onLow = (c: Buffer): void => {
      lowBuf = lowBuf.length ? Buffer.concat([lowBuf, c]) : c;
      while (lowBuf.length >= lowSize && diffs.length < packets.length) {
        const f = new Uint8Array(lowBuf.subarray(0, lowSize));
        lowBuf = lowBuf.subarray(lowSize);
        diffs.push(prev ? meanAbsDiff(f, prev) : NaN);
        lowSigma.push(frameSigma(f, lw, lh));
        prev = f;
      }
      if (diffs.length >= packets.length) lowBuf = Buffer.alloc(0);
    };
    const onHigh = (c: Buffer): void => {
      highBuf = highBuf.length ? Buffer.concat([highBuf, c]) : c;
      while (highBuf.length >= highSize && high.length < samples.length) {
        const data = new Uint8Array(highBuf.subarray(0, highSize));
        highBuf = highBuf.subarray(highSize);
        const plane = { data, width: hw, height: hh, left: 0, top: 0 };
        const sums = lumaTileSums(plane);
        const stats = noiseStats(plane, sums);
        const i = high.length;
        high.push({
          index: samples[i]!,
          sigma: stats.tiles ? stats.medianSigma : frameSigma(data, hw, hh),
          block: blockiness(data, hw, hh),
          noise: noiseSignal(plane, sums),
          spectrum: o.checkDeepfakes && i % Math.max(1, Math.floor(samples.length / SPECTRUM_FRAMES)) === 0 ? spectrumSignal(plane) : null,
        });
      }
      if (high.length >= samples.length) highBuf = Buffer.alloc(0);
    };
    await runDecoder(
      decoder.ffmpeg,
      [
        '-nostdin', '-hide_banner', '-loglevel', 'error', '-threads', '2', '-noautorotate',
        '-t', String(MAX_ANALYSED_S), ...inputArgs(input.path),
        '-filter_complex', graph,
        '-map', '[lo]', '-frames:v', String(packets.length), '-fps_mode', 'passthrough', '-f', 'rawvideo', 'pipe:1',
        '-map', '[hi]', '-fps_mode', 'passthrough', '-f', 'rawvideo', 'pipe:3',
      ],
      { timeoutMs: left(), signal: o.signal, onStdout: onLow, onPipe3: onHigh, maxStdout: (packets.length + 2) * lowSize },
    );
    if (diffs.length < packets.length * 0.9)
      warnings.push(`The decoder returned ${diffs.length} of ${packets.length} frames: the rest could not be decoded`);

    const signals: Signal[] = [];
    const ranges: FlaggedRange[] = [];
    const n = diffs.length;
    const t = (i: number): number => packets[Math.min(i, packets.length - 1)]!.pts - packets[0]!.pts;
    const flag = (r: FlaggedRange): void => void ranges.push(r);
    const moving = diffs.slice(1).filter((d) => Number.isFinite(d));
    const md = median(moving);

    // Duplicated frames: identical to the previous frame in a clip that otherwise moves.
    const dupEps = Math.max(0.12, 0.03 * md);
    const runs: Array<[number, number]> = [];
    if (md >= 0.8)
      for (let i = 1; i < n; i++) {
        if (!(diffs[i]! <= dupEps)) continue;
        const last = runs[runs.length - 1];
        if (last && last[1] === i - 1) last[1] = i;
        else runs.push([i, i]);
      }
    // A freeze is ≥ 3 repeats (4 identical frames): recorders repeat a late frame once or twice.
    const freezes = runs.filter(([a, b]) => b - a + 1 >= 3);
    const singles = runs.length - freezes.length;
    if (freezes.length) {
      const longest = Math.max(...freezes.map(([a, b]) => b - a + 1));
      const p = Math.min(0.7, 0.4 + 0.03 * longest);
      for (const [a, b] of freezes) flag({ start_s: t(a - 1), end_s: t(b), first_frame: a - 1, last_frame: b, analyzer: 'temporal.duplicated_frames', probability: p });
      signals.push({
        analyzer: 'temporal.duplicated_frames',
        kind: 'manipulation',
        probability: p,
        confidence: 0.6,
        finding: `Frames duplicated in a moving clip: ${freezes.slice(0, 6).map(([a, b]) => `${range(t(a - 1), t(b))} (frames ${a - 1}–${b}, ${b - a + 2} identical)`).join('; ')}${freezes.length > 6 ? `; and ${freezes.length - 6} more` : ''}. A frozen run hides a cut or stands in for removed frames (median motion ${md.toFixed(2)} grey levels per frame; a duplicate differs by ≤ ${dupEps.toFixed(2)})`,
        flag: 'image_manipulated',
      });
    } else if (singles > 0) {
      // Isolated single repeats: frame-rate conversion (24 → 25/30 fps) repeats frames on a cadence.
      signals.push({
        analyzer: 'temporal.duplicated_frames',
        kind: 'manipulation',
        probability: singles / Math.max(1, n) > 0.05 ? 0.05 : 0.1,
        confidence: 0.3,
        finding: `${singles} single repeated frame${singles > 1 ? 's' : ''} (e.g. at ${fmt(t(runs[0]![0]))}): usually a frame-rate conversion or an encoder's choice, not an edit`,
      });
    } else
      signals.push({ analyzer: 'temporal.duplicated_frames', kind: 'manipulation', probability: 0, confidence: 0.5, finding: md >= 0.8 ? `No duplicated frames among ${n} decoded (median motion ${md.toFixed(2)} grey levels per frame)` : `The clip hardly moves (median change ${md.toFixed(2)} grey levels per frame): duplicated frames cannot be told from a still scene` });

    // Timestamps: gaps (frames dropped or removed) and reversals.
    const dts = packets.slice(1).map((p, i) => p.pts - packets[i]!.pts);
    const mdt = median(dts.filter((d) => d > 0));
    // A gap of two or more missing frames (> 2.5 intervals) is frames removed; one missing frame
    // (1.8–2.5 intervals) is what recorders drop under load, named but weak.
    const gaps = dts.flatMap((d, i) => (mdt > 0 && d > 2.5 * mdt ? [i + 1] : []));
    const drops = dts.filter((d) => mdt > 0 && d > 1.8 * mdt && d <= 2.5 * mdt).length;
    const reversed = dts.filter((d) => d <= 0).length;
    if (!gaps.length && !reversed && drops)
      signals.push({ analyzer: 'temporal.timestamps', kind: 'manipulation', probability: 0.1, confidence: 0.4, finding: `${drops} single frame${drops > 1 ? 's' : ''} missing from the timeline (one frame interval skipped): what a recorder drops under load, not a cut` });
    else if (gaps.length || reversed) {
      const p = Math.min(0.6, 0.35 + 0.05 * gaps.length);
      for (const g of gaps.slice(0, 20)) flag({ start_s: t(g - 1), end_s: t(g), first_frame: g - 1, last_frame: g, analyzer: 'temporal.timestamps', probability: p });
      signals.push({
        analyzer: 'temporal.timestamps',
        kind: 'manipulation',
        probability: gaps.length ? p : 0.2,
        confidence: 0.5,
        finding: `${gaps.length ? `Presentation-time gaps where frames are missing: ${gaps.slice(0, 6).map((g) => `${range(t(g - 1), t(g))} (${Math.round(dts[g - 1]! / mdt) - 1} frame${Math.round(dts[g - 1]! / mdt) - 1 === 1 ? '' : 's'} at ${(1 / mdt).toFixed(2)} fps)`).join('; ')}${gaps.length > 6 ? `; and ${gaps.length - 6} more` : ''}` : ''}${gaps.length && reversed ? '; ' : ''}${reversed ? `${reversed} frame${reversed > 1 ? 's' : ''} with a repeated or earlier presentation time` : ''}: frames removed, dropped by the recorder, or timestamps rewritten`,
      });
    } else
      signals.push({ analyzer: 'temporal.timestamps', kind: 'manipulation', probability: 0, confidence: 0.5, finding: `Presentation times are regular: ${packets.length} frames at ${mdt > 0 ? (1 / mdt).toFixed(2) : '?'} fps, no gaps or reversals` });

    // Scene cuts: a frame much further from its predecessor than the motion around it.
    const cuts: number[] = [];
    for (let i = 1; i < n; i++) {
      const d = diffs[i]!;
      if (!(d > 12)) continue;
      const around: number[] = [];
      for (let j = Math.max(1, i - 12); j < Math.min(n, i + 13); j++) if (j !== i && Number.isFinite(diffs[j]!)) around.push(diffs[j]!);
      if (d > 5 * Math.max(1, median(around))) cuts.push(i);
    }
    const offKey = cuts.filter((c) => !packets[c]?.key);
    signals.push({
      analyzer: 'temporal.scene_cuts',
      kind: 'manipulation',
      probability: cuts.length ? 0.1 : 0,
      confidence: 0.3,
      finding: cuts.length
        ? `${cuts.length} scene cut${cuts.length > 1 ? 's' : ''} at ${cuts.slice(0, 8).map((c) => `${fmt(t(c))} (frame ${c}${packets[c]?.key ? ', a keyframe' : ', not on a keyframe'})`).join(', ')}${cuts.length > 8 ? ', …' : ''}: a camera original is one take; cuts mean editing${offKey.length ? ' (a cut inside a group of pictures was encoded after the edit)' : ''}`
        : 'No scene cuts: one continuous take',
    });

    // Segments between cuts: noise level and blockiness, from the sampled frames (else the small ones).
    const bounds = [0, ...cuts, n];
    const segs = bounds.slice(1).map((end, i) => {
      const start = bounds[i]!;
      const hs = high.filter((h) => h.index >= start && h.index < end);
      return {
        start,
        end,
        sigma: hs.length ? median(hs.map((h) => h.sigma)) : median(lowSigma.slice(start, end)),
        fromSamples: hs.length > 0,
        block: hs.length ? median(hs.map((h) => h.block)) : null,
        lowSigma: median(lowSigma.slice(start, end)),
      };
    });
    const ratio = (a: number, b: number): number => Math.abs(Math.log((a + 0.05) / (b + 0.05)));
    const spliced: string[] = [];
    let spliceP = 0;
    for (let i = 1; i + 1 < segs.length; i++) {
      const [a, s, b] = [segs[i - 1]!, segs[i]!, segs[i + 1]!];
      if (s.end - s.start < 3) continue;
      const useHigh = a.fromSamples && s.fromSamples && b.fromSamples;
      const val = (x: typeof s): number => (useHigh ? x.sigma : x.lowSigma);
      const noiseOdd = ratio(val(s), val(a)) > Math.log(1.5) && ratio(val(s), val(b)) > Math.log(1.5) && Math.sign(val(s) - val(a)) === Math.sign(val(s) - val(b)) && ratio(val(a), val(b)) < Math.log(1.3);
      const blockOdd = s.block !== null && a.block !== null && b.block !== null
        && ratio(s.block, a.block) > Math.log(1.25) && ratio(s.block, b.block) > Math.log(1.25) && ratio(a.block, b.block) < Math.log(1.1);
      if (!noiseOdd && !blockOdd) continue;
      // Blockiness alone also follows scene content (edges that fall on 8-pixel columns): weak.
      const p = noiseOdd && blockOdd ? 0.7 : noiseOdd ? 0.6 : 0.25;
      spliceP = Math.max(spliceP, p);
      flag({ start_s: t(s.start), end_s: t(s.end - 1), first_frame: s.start, last_frame: s.end - 1, analyzer: 'temporal.splice', probability: p });
      spliced.push(`${range(t(s.start), t(s.end - 1))} (frames ${s.start}–${s.end - 1})${noiseOdd ? `: noise σ ${val(s).toFixed(2)} against ${val(a).toFixed(2)} before and ${val(b).toFixed(2)} after` : ''}${blockOdd ? `${noiseOdd ? ';' : ':'} blockiness ${s.block!.toFixed(2)} against ${a.block!.toFixed(2)} and ${b.block!.toFixed(2)} (the block edges of an earlier compression, or another source)` : ''}`);
    }
    if (spliced.length)
      signals.push({
        analyzer: 'temporal.splice',
        kind: 'manipulation',
        probability: spliceP,
        confidence: 0.55,
        finding: `Footage from another recording inserted: ${spliced.join('; ')}. The footage on both sides agrees with itself and not with the segment between the cuts (a cutaway in an edited programme does this too)`,
        flag: 'image_manipulated',
      });
    else if (segs.length === 2) {
      const [a, b] = [segs[0]!, segs[1]!];
      const changed = ratio(a.sigma, b.sigma) > Math.log(1.5);
      signals.push({
        analyzer: 'temporal.splice',
        kind: 'manipulation',
        probability: changed ? 0.2 : 0.05,
        confidence: 0.35,
        finding: changed ? `The noise level changes at the cut at ${fmt(t(b.start))} (σ ${a.sigma.toFixed(2)} → ${b.sigma.toFixed(2)}): the two parts come from different recordings or settings` : `The two parts on either side of the cut at ${fmt(t(b.start))} have a similar noise level (σ ${a.sigma.toFixed(2)}, ${b.sigma.toFixed(2)})`,
      });
    } else
      signals.push({ analyzer: 'temporal.splice', kind: 'manipulation', probability: 0, confidence: 0.4, finding: segs.length > 2 ? `${segs.length} segments between cuts; none differs in noise or blockiness from the footage on both sides` : `One segment: noise σ ${segs[0]!.sigma.toFixed(2)}${segs[0]!.block !== null ? `, blockiness ${segs[0]!.block.toFixed(2)}` : ''} throughout` });

    // Per-frame image forensics, and their agreement over time: a region that persists across
    // neighbouring samples that are different frames (not duplicates of one another) is an object
    // in the scene's pixels; one frame alone is texture or noise.
    const distinct = (a: number, b: number): boolean => {
      for (let i = Math.min(a, b) + 1; i <= Math.max(a, b) && i < n; i++) if (diffs[i]! > dupEps) return true;
      return false;
    };
    const hits = high.map((h) => !!h.noise && h.noise.probability > 0);
    const runOf: number[] = high.map(() => 0);
    for (let j = 0; j < high.length; ) {
      let e = j;
      while (hits[j] && e + 1 < high.length && hits[e + 1] && overlaps(high[e]!.noise!.region, high[e + 1]!.noise!.region) && distinct(high[e]!.index, high[e + 1]!.index)) e++;
      for (let q = j; q <= e; q++) runOf[q] = hits[q] ? e - j + 1 : 0;
      j = e + 1;
    }
    const fired = high.filter((_, j) => hits[j]);
    const agreeing = high.filter((_, j) => runOf[j]! >= 2);
    const longestRun = Math.max(0, ...runOf);
    const strongest = Math.max(0, ...fired.map((h) => h.noise!.probability));
    // As on a photo, a low-noise region is weak alone (a flat wall or sky does it, and persists in
    // a still shot just as a pasted object would): persistence keeps it at the image analyzer's
    // own level (≤ 0.25, below `suspicious`); a region in one frame only is discounted to a quarter.
    const frameP = longestRun >= 2 ? strongest : 0.25 * strongest;
    signals.push({
      analyzer: 'forensics.video_frames',
      kind: 'manipulation',
      probability: round3(frameP),
      confidence: 0.4,
      finding: `${high.length} sampled frames (${hw}×${hh}${hw !== W ? `, scaled from ${W}×${H}` : ''}) read by the noise-residual analyzer: ${fired.length ? `a low-noise region in ${fired.length} (${fired.slice(0, 6).map((h) => fmt(t(h.index))).join(', ')}${fired.length > 6 ? ', …' : ''}), ${agreeing.length ? `the same region in ${longestRun} neighbouring distinct frames (at ${agreeing.slice(0, 6).map((h) => fmt(t(h.index))).join(', ')}): it persists, as a pasted or masked object would` : 'never in two neighbouring distinct frames (scene texture, not an object that persists)'}` : 'no frame has a region whose noise stands apart'}`,
      ...(agreeing[0]?.noise?.region ? { region: agreeing[0].noise.region } : {}),
    });
    for (const h of agreeing) flag({ start_s: t(h.index), end_s: t(h.index), first_frame: h.index, last_frame: h.index, analyzer: 'forensics.video_frames', probability: frameP });
    const specs = high.flatMap((h) => (h.spectrum ? [h.spectrum] : []));
    if (specs.length) {
      const meanP = specs.reduce((s, x) => s + x.probability, 0) / specs.length;
      signals.push({ ...specs[0]!, probability: round3(meanP), finding: `Spectral check on ${specs.length} sampled frames, mean probability ${meanP.toFixed(2)}; first frame: ${specs[0]!.finding}` });
    }

    const sampled: FrameSample[] = high.map((h) => {
      const inRanges = ranges.filter((r) => h.index >= r.first_frame && h.index <= r.last_frame).map((r) => r.probability);
      const own = h.noise ? (agreeing.includes(h) ? frameP : 0.25 * h.noise.probability) : 0;
      return { index: h.index, time_s: r3(t(h.index)), keyframe: !!packets[h.index]?.key, score: round3(noisyOr([own, ...inRanges])), noise_sigma: r3(h.sigma) };
    });
    const fpsFromPackets = mdt > 0 ? r3(1 / mdt) : null;
    return {
      signals,
      decoder: `ffmpeg ${info.program_version?.version ?? '(version unknown)'}`,
      width: W,
      height: H,
      frames_total: total,
      frames_decoded: n,
      duration_s: duration,
      fps: rate(video.avg_frame_rate) ?? fpsFromPackets,
      keyframes: keyIdx.length,
      sampled,
      ranges: ranges.map((r) => ({ ...r, start_s: r3(r.start_s), end_s: r3(r.end_s), probability: round3(r.probability) })),
      warnings,
      partial,
      container: {
        encoder: info.format?.tags?.encoder ?? null,
        handlers: streams.map((s) => s.tags?.handler_name).filter((x): x is string => !!x),
        stream_encoders: streams.map((s) => s.tags?.encoder).filter((x): x is string => !!x),
        streams: streams.map((s) => ({ type: s.codec_type ?? 'unknown', handler: s.tags?.handler_name ?? null })),
      },
    };
  } finally {
    await input.dispose();
  }
}

function overlaps(a: { x: number; y: number; width: number; height: number } | undefined, b: { x: number; y: number; width: number; height: number } | undefined): boolean {
  if (!a || !b) return false;
  return a.x < b.x + b.width && b.x < a.x + a.width && a.y < b.y + b.height && b.y < a.y + a.height;
}

/** Width of a frame-strip thumbnail in the report. */
export const THUMB_WIDTH = 160;

/**
 * Small RGB frames of a video at the given frame indices (display order), for the report's frame
 * strip: one bounded ffmpeg run. The indices come from a result file (untrusted): at most
 * MAX_SAMPLES * 2 of them, whole numbers below MAX_FRAMES. Null when there is no decoder or it fails.
 */
export async function frameThumbnails(
  bytes: Buffer,
  decoder: Decoder,
  indices: number[],
  o: { timeoutMs: number; signal?: AbortSignal },
): Promise<{ width: number; height: number; frames: Map<number, Buffer> } | null> {
  const wanted = [...new Set(indices.filter((i) => Number.isInteger(i) && i >= 0 && i < MAX_FRAMES))].sort((a, b) => a - b).slice(0, MAX_SAMPLES * 2);
  if (!wanted.length) return null;
  const input = await tempInput(bytes);
  try {
    const meta = await runDecoder(decoder.ffprobe, ['-v', 'error', ...inputArgs(input.path), '-select_streams', 'v:0', '-show_entries', 'stream=width,height', '-of', 'csv=p=0'], { timeoutMs: o.timeoutMs, signal: o.signal, maxStdout: 4096 });
    const [W, H] = meta.stdout.toString('utf8').trim().split(',').map(Number);
    if (!W || !H || W * H > MAX_FRAME_PIXELS) return null;
    const w = THUMB_WIDTH;
    const h = Math.max(2, Math.round((H * w) / W / 2) * 2);
    const out = await runDecoder(
      decoder.ffmpeg,
      ['-nostdin', '-hide_banner', '-loglevel', 'error', '-threads', '2', '-noautorotate', '-t', String(MAX_ANALYSED_S), ...inputArgs(input.path),
        '-vf', `select='${wanted.map((n) => `eq(n,${n})`).join('+')}',scale=${w}:${h}:flags=area,format=rgb24`, '-fps_mode', 'passthrough', '-f', 'rawvideo', 'pipe:1'],
      { timeoutMs: o.timeoutMs, signal: o.signal, maxStdout: wanted.length * w * h * 3 },
    );
    const frames = new Map<number, Buffer>();
    for (let i = 0; i < wanted.length && (i + 1) * w * h * 3 <= out.stdout.length; i++) frames.set(wanted[i]!, out.stdout.subarray(i * w * h * 3, (i + 1) * w * h * 3));
    return { width: w, height: h, frames };
  } catch (err) {
    if (err instanceof DecoderError) return null;
    throw err;
  } finally {
    await input.dispose();
  }
}
