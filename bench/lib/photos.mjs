// Camera-like JPEG photos for the batch benchmarks: sensor-like noise softened by the lens, camera
// EXIF, quality 90, each a little different so no two files are the same. 12 MP = 4000×3000.
//   node bench/lib/photos.mjs DIR COUNT [MEGAPIXELS] [START]   (also importable: writePhotos)
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import sharp from 'sharp';

const MAKES = [['Canon', 'Canon EOS R5'], ['NIKON CORPORATION', 'NIKON Z 6_2'], ['Apple', 'iPhone 14 Pro'], ['SONY', 'ILCE-7M4']];

/** The width and height of a 4:3 photo of about `mp` megapixels (3 → 2048×1536, 12 → 4000×3000). */
export function photoSize(mp) {
  if (mp === 3) return [2048, 1536];
  const h = Math.round(Math.sqrt((mp * 1e6 * 3) / 4));
  return [Math.round((h * 4) / 3), h];
}

/** Writes `count` photos IMG_<1000+i>.jpg into `dir`; returns their total bytes. */
export async function writePhotos(dir, count, mp = 3, start = 0) {
  mkdirSync(dir, { recursive: true });
  const [width, height] = photoSize(mp);
  let bytes = 0;
  for (let i = start; i < start + count; i++) {
    const [Make, Model] = MAKES[i % MAKES.length];
    const buf = await sharp({
      create: { width, height, channels: 3, background: { r: 60 + (i % 7) * 20, g: 110, b: 170 - (i % 5) * 15 }, noise: { type: 'gaussian', mean: 120, sigma: 28 } },
    })
      .blur(1.1)
      .withExif({ IFD0: { Make, Model, Software: 'Firmware 1.2' }, IFD2: { DateTimeOriginal: `2025:06:${String(1 + (i % 28)).padStart(2, '0')} 10:${String(i % 60).padStart(2, '0')}:00`, ExposureTime: '1/250', FNumber: '4' } })
      .jpeg({ quality: 90 })
      .toBuffer();
    bytes += buf.length;
    writeFileSync(join(dir, `IMG_${String(1000 + i)}.jpg`), buf);
  }
  return bytes;
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  const [dir, count, mp, start] = process.argv.slice(2);
  const bytes = await writePhotos(dir, Number(count), Number(mp ?? 3), Number(start ?? 0));
  console.log(`${count} photos, ${(bytes / 1048576).toFixed(1)} MB in ${dir}`);
}
