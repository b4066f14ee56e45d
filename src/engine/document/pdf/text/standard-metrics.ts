/**
 * Glyph widths of the standard 14 fonts by glyph name, as pdf.js 5.4.296's `getBaseFontMetrics`
 * gives them for a non-embedded standard font: Adobe's core-14 AFM widths
 * (@pdf-lib/standard-fonts), and the four Couriers as one default width of 600 with no table (pdf.js
 * keeps them as a number). The widths are @pdf-lib/standard-fonts' tables, generated into
 * standard-font-data.ts (scripts/standard-font-data.mjs) so nothing is unpacked at run time.
 */
import { GLYPH_NAMES, GLYPH_WIDTHS } from './standard-font-data.js';

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
      const w = GLYPH_WIDTHS[name];
      // Symbol and ZapfDingbats have no table here; fonts.ts never asks for them.
      if (!w) throw new Error(`no metrics for ${name}`);
      m = { defaultWidth: 0, widths: new Map(GLYPH_NAMES.map((n, i) => [n, w[i]!])) };
    }
    cache.set(name, m);
  }
  return m;
}
