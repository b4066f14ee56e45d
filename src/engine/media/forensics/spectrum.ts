/**
 * Frequency-domain check for upsampling artifacts (on |first difference| along rows and columns). Generators upsample with transposed
 * convolutions or interpolation, which leaves periodic correlations: peaks at period 2 or 4 in the
 * spectrum of the high-pass residual (Durall, Keuper & Keuper 2020, "Watch your up-convolution";
 * Frank et al. 2020, "Leveraging frequency analysis for deep fake image recognition"; Zhang, Karaman
 * & Chang 2019). Ordinary resizing makes the same periodicities (Popescu & Farid 2005), so this is
 * a weak, documented signal. JPEG's 8-pixel grid has harmonics at the same frequencies; peaks are
 * therefore counted only when they exceed the grid's own fundamental (period 8).
 */
import { WASM_BASE64 } from './spectrum-wasm.js';
import { strideOf, type LumaPlane, type Signal } from './types.js';

const N = 256;

/**
 * Twiddle factors of every stage of the N-point FFT, computed once: cos/sin of the same angles
 * the butterflies used to compute per call (ang·k with ang = −2π/len), so values are identical.
 * Stage `len` starts at offset len/2 − 1 (lengths 2, 4, … N: N − 1 entries in all).
 */
const TW_RE = new Float64Array(N);
const TW_IM = new Float64Array(N);
for (let len = 2; len <= N; len <<= 1) {
  const ang = (-2 * Math.PI) / len;
  for (let k = 0; k < len / 2; k++) {
    TW_RE[len / 2 - 1 + k] = Math.cos(ang * k);
    TW_IM[len / 2 - 1 + k] = Math.sin(ang * k);
  }
}

/** In-place radix-2 FFT of length N. */
function fft(re: Float64Array, im: Float64Array): void {
  const n = re.length;
  for (let i = 1, j = 0; i < n; i++) {
    let bit = n >> 1;
    for (; j & bit; bit >>= 1) j ^= bit;
    j ^= bit;
    if (i < j) {
      const tr = re[i]!;
      re[i] = re[j]!;
      re[j] = tr;
      const ti = im[i]!;
      im[i] = im[j]!;
      im[j] = ti;
    }
  }
  for (let len = 2; len <= n; len <<= 1) {
    const half = len >> 1;
    const tw = half - 1;
    for (let i = 0; i < n; i += len)
      for (let k = 0; k < half; k++) {
        const wr = TW_RE[tw + k]!;
        const wi = TW_IM[tw + k]!;
        const a = i + k;
        const b = a + half;
        const xr = re[b]! * wr - im[b]! * wi;
        const xi = re[b]! * wi + im[b]! * wr;
        re[b] = re[a]! - xr;
        im[b] = im[a]! - xi;
        re[a] = re[a]! + xr;
        im[a] = im[a]! + xi;
      }
  }
}

/** Peak height at bin k relative to the median of bins k±2..k±8 inside (0, N/2]. */
function peakRatio(p: Float64Array, k: number): number {
  const around: number[] = [];
  for (let d = 2; d <= 8; d++) {
    if (k - d > 0) around.push(p[k - d]!);
    if (k + d <= N / 2) around.push(p[k + d]!);
  }
  around.sort((a, b) => a - b);
  const base = around[around.length >> 1] ?? 0;
  return base > 0 ? p[k]! / base : 1;
}

export interface SpectrumStats {
  period2: number;
  period4: number;
  period8: number;
}

/**
 * Adds the power spectrum of one line's residual to `power`. A function of its own (not inline in
 * spectrumStats) so V8 optimises it whole after a few of its 256 calls: an inner loop optimised by
 * on-stack replacement was thrown away on leaving it (code after it had no type feedback yet).
 */
function addLinePower(data: Uint8Array, start: number, step: number, re: Float64Array, im: Float64Array, power: Float64Array): void {
  for (let i = 0; i < N; i++) {
    const c = data[start + (i < N - 1 ? i + 1 : i) * step]!;
    // Magnitude of the first-difference residual: interpolation makes its variance periodic
    // (Popescu & Farid 2005; Kirchner 2008), which shows as a spectral line.
    const d = c - data[start + i * step]!;
    re[i] = d < 0 ? -d : d;
    im[i] = 0;
  }
  let mean = 0;
  for (let i = 0; i < N; i++) mean += re[i]!;
  mean /= N;
  for (let i = 0; i < N; i++) re[i] = re[i]! - mean;
  fft(re, im);
  for (let k = 0; k <= N / 2; k++) power[k] = power[k]! + re[k]! * re[k]! + im[k]! * im[k]!;
}

/** The JavaScript spectrum: rows (pass 0) then columns (pass 1) of the centred N×N window, every other line. */
function spectrumPowerJs(data: Uint8Array, width: number, x0: number, y0: number): Float64Array {
  const power = new Float64Array(N / 2 + 1);
  const re = new Float64Array(N);
  const im = new Float64Array(N);
  for (let pass = 0; pass < 2; pass++)
    for (let line = 0; line < N; line += 2) {
      // Rows (pass 0) or columns (pass 1) of the centred N×N window, read with a stride.
      const start = pass === 0 ? (y0 + line) * width + x0 : y0 * width + x0 + line;
      addLinePower(data, start, pass === 0 ? 1 : width, re, im, power);
    }
  return power;
}

/**
 * The same spectrum compiled from spectrum.wat (spectrum-wasm.ts), bit-identical: the same float64
 * operations in the same order on the same twiddle factors. A one-shot CLI process computes it
 * once, and V8 ran the JavaScript FFT there mostly in its interpreter (~10× its warm cost).
 * Null where WebAssembly cannot run (the JavaScript spectrum is then used).
 */
let wasmModule: WebAssembly.Module | null | undefined;
const WINDOW_AT = 0;
const POWER_AT = 69632;
const TW_RE_AT = 71680;
const TW_IM_AT = 73728;

function spectrumPowerWasm(data: Uint8Array, width: number, x0: number, y0: number): Float64Array | null {
  if (wasmModule === undefined) {
    try {
      wasmModule = new WebAssembly.Module(Buffer.from(WASM_BASE64, 'base64'));
    } catch {
      wasmModule = null;
    }
  }
  if (!wasmModule) return null;
  let exports: { memory: WebAssembly.Memory; spectrumPower: () => void };
  try {
    exports = new WebAssembly.Instance(wasmModule).exports as typeof exports;
  } catch {
    // No address space for a wasm memory (V8 reserves ~10 GB each; `ulimit -v` can refuse it):
    // the JavaScript reference gives the identical spectrum.
    return null;
  }
  const buffer = exports.memory.buffer;
  const heap = new Uint8Array(buffer);
  for (let r = 0; r < N; r++) heap.set(data.subarray((y0 + r) * width + x0, (y0 + r) * width + x0 + N), WINDOW_AT + r * N);
  new Float64Array(buffer, TW_RE_AT, N).set(TW_RE);
  new Float64Array(buffer, TW_IM_AT, N).set(TW_IM);
  exports.spectrumPower();
  return new Float64Array(buffer, POWER_AT, N / 2 + 1).slice();
}

/** The summed power spectrum of the centred window (129 bins), by WebAssembly or (`js`) by the JavaScript reference. */
export function spectrumPower(plane: LumaPlane, js = false): Float64Array | null {
  const { data, width, height } = plane;
  if (width < N + 2 || height < N + 2) return null;
  const x0 = Math.floor((width - N) / 2 / 8) * 8;
  const y0 = Math.floor((height - N) / 2 / 8) * 8;
  // The window's rows are read at the plane's row stride (a crop may be a view into a wider plane).
  const stride = strideOf(plane);
  return (js ? null : spectrumPowerWasm(data, stride, x0, y0)) ?? spectrumPowerJs(data, stride, x0, y0);
}

/** Mean power spectrum of the second-difference residual along rows and along columns. */
export function spectrumStats(plane: LumaPlane): SpectrumStats | null {
  const power = spectrumPower(plane);
  if (!power) return null;
  return { period2: peakRatio(power, N / 2), period4: peakRatio(power, N / 4), period8: peakRatio(power, N / 8) };
}

export function spectrumSignal(plane: LumaPlane): Signal | null {
  const s = spectrumStats(plane);
  if (!s) return null;
  const upsampling = Math.max(s.period2, s.period4);
  const nums = `peak ratios: period 2 ${s.period2.toFixed(1)}, period 4 ${s.period4.toFixed(1)}, period 8 (JPEG grid) ${s.period8.toFixed(1)}`;
  if (upsampling > 4 && upsampling > 1.5 * s.period8)
    return {
      analyzer: 'forensics.upsampling_spectrum',
      kind: 'synthetic',
      // Ordinary enlargement makes the same peaks: capped so it cannot reach deepfake ≥ 0.5 alone.
      probability: Math.min(0.3, 0.1 + 0.02 * upsampling),
      confidence: 0.3,
      finding: `Periodic spectral peaks of upsampling in the noise residual (${nums}): left by generative models' upsampling layers, but also by ordinary enlargement`,
    };
  return {
    analyzer: 'forensics.upsampling_spectrum',
    kind: 'synthetic',
    probability: 0,
    confidence: 0.25,
    finding: `No upsampling periodicity in the residual spectrum (${nums}); modern generators do not always leave one`,
  };
}
