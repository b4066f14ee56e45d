/**
 * Glyph widths of the standard 14 fonts by glyph name, as pdf.js 5.4.296's `getBaseFontMetrics`
 * gives them for a non-embedded standard font: Adobe's core-14 AFM widths
 * (@pdf-lib/standard-fonts), and the four Couriers as one default width of 600 with no table (pdf.js
 * keeps them as a number). Loaded per font on first use (each table is ~3 ms to unpack).
 */
import { Font } from '@pdf-lib/standard-fonts';

export const STANDARD_FONTS = new Set([
  'Courier', 'Courier-Bold', 'Courier-Oblique', 'Courier-BoldOblique',
  'Helvetica', 'Helvetica-Bold', 'Helvetica-Oblique', 'Helvetica-BoldOblique',
  'Times-Roman', 'Times-Bold', 'Times-Italic', 'Times-BoldItalic',
  'Symbol', 'ZapfDingbats',
]);

export interface BaseFontMetrics {
  defaultWidth: number;
  widths: ReadonlyMap<string, number>;
}

const cache = new Map<string, BaseFontMetrics>();

/** Metrics of one of the 14 names exactly (callers check STANDARD_FONTS first). */
export function standardFontMetrics(name: string): BaseFontMetrics {
  let m = cache.get(name);
  if (!m) {
    if (name.startsWith('Courier')) m = { defaultWidth: 600, widths: new Map() };
    else {
      const f = Font.load(name as Parameters<typeof Font.load>[0]);
      m = { defaultWidth: 0, widths: new Map(f.CharMetrics.map((c) => [c.N, c.WX])) };
    }
    cache.set(name, m);
  }
  return m;
}
