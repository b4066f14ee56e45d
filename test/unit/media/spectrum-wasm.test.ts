/**
 * The upsampling spectrum (forensics/spectrum.ts) runs compiled from spectrum.wat; its power
 * spectrum must be bit-identical to the JavaScript reference on any plane, so every peak ratio and
 * every result stays what it was.
 */
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import sharp from 'sharp';
import { describe, expect, it } from 'vitest';
import { wasmModuleSource } from '../../../scripts/build-wasm.mjs';
import { spectrumPower, spectrumStats } from '../../../src/engine/media/forensics/spectrum.js';
import type { LumaPlane } from '../../../src/engine/media/forensics/types.js';
import { scene } from './helpers.js';

function noisePlane(width: number, height: number, seed: number): LumaPlane {
  let s = seed;
  const rnd = (): number => (s = (s * 1103515245 + 12345) & 0x7fffffff) / 0x7fffffff;
  const data = new Uint8Array(width * height);
  for (let i = 0; i < data.length; i++) data[i] = Math.min(255, Math.round(((i % width) / width) * 200 + rnd() * 50));
  return { data, width, height, left: 0, top: 0 };
}

const bits = (a: Float64Array): string => Buffer.from(a.buffer, a.byteOffset, a.byteLength).toString('hex');

describe('upsampling spectrum in WebAssembly', () => {
  it.each([
    [258, 258],
    [301, 777],
    [1024, 683],
  ])('the power spectrum of a %i×%i plane is bit-identical to the JavaScript one', (w, h) => {
    const p = noisePlane(w, h, w + h);
    const wasm = spectrumPower(p)!;
    const js = spectrumPower(p, true)!;
    expect(wasm).toHaveLength(129);
    expect(bits(wasm)).toBe(bits(js));
  });

  it('a photo enlarged 2× (a resampled residual): the same spectrum', async () => {
    const small = await sharp(scene(300, 220, 4), { raw: { width: 300, height: 220, channels: 3 } }).resize(600, 440, { kernel: 'linear' }).extractChannel(1).raw().toBuffer();
    const p: LumaPlane = { data: new Uint8Array(small), width: 600, height: 440, left: 0, top: 0 };
    expect(bits(spectrumPower(p)!)).toBe(bits(spectrumPower(p, true)!));
    const s = spectrumStats(p)!;
    expect(Number.isFinite(s.period2) && Number.isFinite(s.period4) && Number.isFinite(s.period8)).toBe(true);
  });

  it('planes too small for the window have no spectrum', () => {
    expect(spectrumPower(noisePlane(257, 400, 1))).toBeNull();
  });

  it('the committed WebAssembly (spectrum-wasm.ts) is the compiled form of spectrum.wat', async () => {
    const root = new URL('../../../', import.meta.url);
    const committed = readFileSync(new URL('src/engine/media/forensics/spectrum-wasm.ts', root), 'utf8');
    expect(await wasmModuleSource(fileURLToPath(new URL('src/engine/media/forensics/spectrum.wat', root)))).toBe(committed);
  });
});
