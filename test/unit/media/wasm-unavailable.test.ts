/**
 * When a WebAssembly instance cannot be made (V8 reserves ~10 GB of address space per wasm memory,
 * which `ulimit -v` can refuse: "WebAssembly.Instance(): Out of memory"), the pixel passes fall
 * back to their JavaScript references, whose results are identical — never an internal error.
 */
import { afterEach, describe, expect, it, vi } from 'vitest';
import { gridStats } from '../../../src/engine/media/forensics/jpeg-grid.js';
import { byWebAssembly, lumaTileSums } from '../../../src/engine/media/forensics/luma-pass.js';
import { noiseStats } from '../../../src/engine/media/forensics/noise.js';
import { spectrumPower } from '../../../src/engine/media/forensics/spectrum.js';
import type { LumaPlane } from '../../../src/engine/media/forensics/types.js';

function plane(width: number, height: number): LumaPlane {
  let s = width * 31 + height;
  const data = new Uint8Array(width * height);
  for (let i = 0; i < data.length; i++) {
    s = (s * 1103515245 + 12345) & 0x7fffffff;
    data[i] = Math.min(255, Math.round(((i % width) / width) * 180 + (s / 0x7fffffff) * 60 + (i % 8 === 0 ? 10 : 0)));
  }
  return { data, width, height, left: 0, top: 0 };
}

afterEach(() => vi.restoreAllMocks());

describe('no WebAssembly instance available', () => {
  it('the tile pass, grid and noise statistics and the spectrum are those of the JavaScript path', () => {
    const p = plane(640, 480);
    const withWasm = lumaTileSums(p);
    expect(byWebAssembly(withWasm)).toBe(true);
    const before = { grid: gridStats(p, false, withWasm), noise: noiseStats(p, withWasm), spectrum: [...spectrumPower(p)!] };

    // A function, not an arrow: it is called with `new`.
    vi.spyOn(WebAssembly, 'Instance').mockImplementation(function () {
      throw new RangeError('WebAssembly.Instance(): Out of memory: Cannot allocate Wasm memory for new instance');
    });
    const withoutWasm = lumaTileSums(p);
    expect(byWebAssembly(withoutWasm)).toBe(false);
    expect({ grid: gridStats(p, false, withoutWasm), noise: noiseStats(p, withoutWasm), spectrum: [...spectrumPower(p)!] }).toEqual(before);
  });
});
