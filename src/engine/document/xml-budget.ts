/**
 * A budget for every XML text read from an untrusted file (DOCX parts, XML signatures, XMP, the
 * sandbox's docProps): one streaming pass of saxes without namespace processing, counting depth
 * and elements, before anything else looks at the text.
 *
 * Why a separate pass: saxes's namespace-aware mode resolves each element's prefix by walking the
 * stack of open elements (`SaxesParser.resolve`), so N nested elements cost O(N²) — a 2 kB DOCX
 * with 20,000 levels in `_rels/.rels` took 3.5–37 s. Without namespaces nothing walks the stack:
 * this pass is linear, stops at the first element past the depth or element limit, and whatever
 * parses the text afterwards (the namespace-aware reader, regular expressions, xmldom) only ever
 * sees well-formed XML no deeper than `maxDepth`, so its cost per element is bounded too.
 *
 * A DOCTYPE is refused: no part of an OOXML package or an XMP packet needs one, and a DTD is where
 * entity expansion ("billion laughs") and external entities live.
 */
import { SaxesParser } from 'saxes';
import { VerityError } from '../../api/errors.js';

export interface XmlLimits {
  /** Elements may nest this deep. Word's own documents stay far below (tables in tables, content controls). */
  maxDepth: number;
  /** Elements in one XML text: bounds the tree a reader builds (a 64 MB main document part holds ~1M). */
  maxElements: number;
}

export const XML_LIMITS: XmlLimits = { maxDepth: 256, maxElements: 2_000_000 };

/** What is wrong with an XML text (not well-formed, a DOCTYPE, past a limit), or undefined when it may be read. */
export function xmlProblem(xml: string, limits: XmlLimits = XML_LIMITS): string | undefined {
  const parser = new SaxesParser({ xmlns: false, position: true });
  let depth = 0;
  let elements = 0;
  let problem: string | undefined;
  // Thrown from a handler, it stops saxes at once (the rest of the text is never scanned).
  const stop = (why: string): never => {
    problem = why;
    throw new Error(why);
  };
  parser.on('doctype', () => stop('it declares a DOCTYPE (DTDs and entity declarations are refused)'));
  parser.on('opentagstart', () => {
    if (++elements > limits.maxElements) stop(`it holds more than ${limits.maxElements.toLocaleString('en-US')} elements (the element limit)`);
    if (++depth > limits.maxDepth) stop(`it nests elements more than ${limits.maxDepth} deep (the depth limit)`);
  });
  // saxes reports a close for self-closing elements too.
  parser.on('closetag', () => {
    depth--;
  });
  try {
    parser.write(xml.charCodeAt(0) === 0xfeff ? xml.slice(1) : xml).close();
  } catch (err) {
    return problem ?? `it is not well-formed XML (${(err as Error).message.slice(0, 200)})`;
  }
  return undefined;
}

/** The error for a part that cannot be read: 422, naming the part and the cause. */
export function unreadablePart(what: string, cause: string): VerityError {
  return new VerityError('UNPROCESSABLE_CONTENT', `${what} cannot be read: ${cause}`);
}

/** Refuses (422, naming `what`, e.g. "the DOCX part word/document.xml") an XML text past the budget or malformed. */
export function assertReadableXml(xml: string, what: string, limits: XmlLimits = XML_LIMITS): void {
  const problem = xmlProblem(xml, limits);
  if (problem) throw unreadablePart(what, problem);
}
