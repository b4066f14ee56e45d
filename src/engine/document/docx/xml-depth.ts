/**
 * How deeply an XML document nests its elements, measured by one linear scan without recursion
 * and without building a tree. The DOCX text reader (text.ts) walks elements recursively,
 * so a part nested thousands deep overflows the stack; such parts are measured first and not
 * handed to it.
 */

/** Elements may nest this deep; Word's own documents stay far below (tables in tables, content controls). */
export const MAX_XML_DEPTH = 1000;

/** Greatest element depth, stopping as soon as it passes `cap`. */
export function xmlDepth(xml: string, cap = MAX_XML_DEPTH): { depth: number; exceeded: boolean } {
  let depth = 0;
  let max = 0;
  let i = xml.indexOf('<');
  while (i >= 0 && i < xml.length) {
    const c = xml.charCodeAt(i + 1);
    if (c === 0x21 /* ! */) {
      // Comment, CDATA or declaration: skip to its end.
      const end = xml.startsWith('<!--', i) ? xml.indexOf('-->', i + 4) + 3 : xml.startsWith('<![CDATA[', i) ? xml.indexOf(']]>', i + 9) + 3 : xml.indexOf('>', i + 2) + 1;
      if (end <= 0) break;
      i = xml.indexOf('<', end);
      continue;
    }
    if (c === 0x3f /* ? */) {
      const end = xml.indexOf('?>', i + 2);
      if (end < 0) break;
      i = xml.indexOf('<', end + 2);
      continue;
    }
    // Find the tag's end, skipping quoted attribute values (which may hold '>').
    let j = i + 1;
    let quote = 0;
    for (; j < xml.length; j++) {
      const ch = xml.charCodeAt(j);
      if (quote) {
        if (ch === quote) quote = 0;
      } else if (ch === 0x22 || ch === 0x27) quote = ch;
      else if (ch === 0x3e /* > */) break;
    }
    if (j >= xml.length) break;
    if (c === 0x2f /* / */) depth = Math.max(0, depth - 1);
    else if (xml.charCodeAt(j - 1) !== 0x2f) {
      depth++;
      if (depth > max) {
        max = depth;
        if (max > cap) return { depth: max, exceeded: true };
      }
    }
    i = xml.indexOf('<', j + 1);
  }
  return { depth: max, exceeded: false };
}
