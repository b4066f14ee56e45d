/**
 * One page's text laid out as pdf-parse 2's `getText` does with its defaults: a newline when the
 * baseline jumps more than a line, a tab between distant items on one line. It is the single
 * layout both text readers use (pdfjs-reader.ts over pdf.js's text items, simple-reader.ts over
 * its own), so the AI-text detector, calibrated on exactly this text, sees the same bytes from
 * either. Pure: items and the viewport transform in, text out.
 */

/** What the layout reads of one text item (pdf.js `TextItem`'s fields of the same names). */
export interface LayoutItem {
  str: string;
  transform: ArrayLike<number>;
  width: number;
  height: number;
  hasEOL: boolean;
}

/** pdf-parse 2 `ParseParameters` defaults that shape `getText` output. */
const LINE_THRESHOLD = 4.6;
const CELL_THRESHOLD = 7;
const CELL_SEPARATOR = '\t';

/**
 * The transform of pdf.js's `page.getViewport({ scale: 1 })` (PageViewport, no offsets, not
 * flipped), computed in the same order so every float is the same: `view` is the page's
 * MediaBox ∩ CropBox, `rotate` a multiple of 90, `userUnit` the page's /UserUnit (1 when absent).
 */
export function viewportTransform(view: readonly number[], rotate: number, userUnit: number): number[] {
  const scale = 1 * userUnit;
  const centerX = (view[2]! + view[0]!) / 2;
  const centerY = (view[3]! + view[1]!) / 2;
  let rotation = rotate % 360;
  if (rotation < 0) rotation += 360;
  let a: number, b: number, c: number, d: number;
  if (rotation === 180) [a, b, c, d] = [-1, 0, 0, 1];
  else if (rotation === 90) [a, b, c, d] = [0, 1, 1, 0];
  else if (rotation === 270) [a, b, c, d] = [0, -1, -1, 0];
  else if (rotation === 0) [a, b, c, d] = [1, 0, 0, -1];
  else throw new Error('viewport: rotation must be a multiple of 90 degrees');
  let offsetCanvasX: number, offsetCanvasY: number;
  if (a === 0) {
    offsetCanvasX = Math.abs(centerY - view[1]!) * scale + 0;
    offsetCanvasY = Math.abs(centerX - view[0]!) * scale + 0;
  } else {
    offsetCanvasX = Math.abs(centerX - view[0]!) * scale + 0;
    offsetCanvasY = Math.abs(centerY - view[1]!) * scale + 0;
  }
  return [a * scale, b * scale, c * scale, d * scale, offsetCanvasX - a * scale * centerX - c * scale * centerY, offsetCanvasY - b * scale * centerX - d * scale * centerY];
}

/** `transform` is the viewport's (pdf.js `viewport.transform`, or viewportTransform above). */
export function layoutPageText(items: Iterable<LayoutItem>, transform: ArrayLike<number>): string {
  const m0 = transform[0]!, m1 = transform[1]!, m2 = transform[2]!, m3 = transform[3]!, m4 = transform[4]!, m5 = transform[5]!;
  const buf: string[] = [];
  let lastX: number | undefined;
  let lastY: number | undefined;
  let lineHeight = 0;
  for (const item of items) {
    let str = item.str;
    // pdf.js's convertToViewportPoint (Util.applyTransform), term for term.
    const px = item.transform[4]!, py = item.transform[5]!;
    const x = px * m0 + py * m2 + m4;
    const y = px * m1 + py * m3 + m5;
    if (lastY !== undefined && Math.abs(lastY - y) > LINE_THRESHOLD) {
      const lastItem = buf.length ? buf[buf.length - 1] : undefined;
      const startsLine = str.startsWith('\n') || (str.trim() === '' && item.hasEOL);
      if (lastItem?.endsWith('\n') === false && !startsLine && Math.abs(lastY - y) - 1 > lineHeight) {
        buf.push('\n');
        lineHeight = 0;
      }
    }
    if (lastY !== undefined && Math.abs(lastY - y) < LINE_THRESHOLD && lastX !== undefined && Math.abs(lastX - x) > CELL_THRESHOLD) str = `${CELL_SEPARATOR}${str}`;
    buf.push(str);
    lastX = x + item.width;
    lastY = y;
    lineHeight = Math.max(lineHeight, item.height);
    if (item.hasEOL) buf.push('\n');
    if (item.hasEOL || str.endsWith('\n')) lineHeight = 0;
  }
  return buf.join('');
}
