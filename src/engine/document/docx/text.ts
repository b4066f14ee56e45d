/**
 * DOCX text for the AI-text detector, read straight from the main document part: the same text
 * mammoth's `extractRawText` gives (which this replaced: loading mammoth and building its document
 * model cost ~0.3 s plus ~1 s per 4,000 paragraphs, on a second thread), from one parse (saxes, a
 * strict namespace-aware XML parser) and one walk. Parts reach it through the XML budget
 * (xml-budget.ts), so neither the parse nor the recursive walk meets nesting past 256.
 *
 * What counts as text follows mammoth's body reader (ECMA-376 Part 1 §17): `w:t`, `w:tab` (a tab),
 * `w:noBreakHyphen`, `w:softHyphen`, `w:sym` (Symbol/Wingdings code points mapped to Unicode);
 * each paragraph ends with a blank line. Read through: runs, hyperlinks, `w:ins`, `w:moveTo`,
 * `w:smartTag`, `w:customXml`, `w:sdt` content, `w:object`, VML shapes and text boxes, tables.
 * Left out: `w:del`, `w:moveFrom`, field instructions, deleted table rows, cells merged into the
 * cell above (`w:vMerge`), DrawingML text boxes, and every element mammoth does not know (with its
 * content). Also as mammoth: a paragraph whose mark is deleted joins the next paragraph, a VML
 * picture's text (`w:pict`) follows the paragraph holding it, a check-box content control drops
 * its check-mark character, and Markup Compatibility keeps the `mc:Fallback` branch.
 * Namespaces are matched by URI (transitional and strict OOXML alike), not by prefix.
 *
 * Differences from mammoth: only the main document part (and the package relationships naming
 * it) is parsed, so a malformed styles, numbering, notes or comments part no longer stops the text
 * from being read; malformed XML in the main document still fails (DocxStructureError, answered 422).
 */
import { hex as dingbatHex } from 'dingbat-to-unicode';
import { SaxesParser, type SaxesTagNS } from 'saxes';
import { XML_LIMITS } from '../xml-budget.js';

const NAMESPACES: Record<string, string> = {
  'http://schemas.openxmlformats.org/wordprocessingml/2006/main': 'w',
  'http://schemas.openxmlformats.org/officeDocument/2006/relationships': 'r',
  'http://schemas.openxmlformats.org/drawingml/2006/wordprocessingDrawing': 'wp',
  'http://schemas.openxmlformats.org/drawingml/2006/main': 'a',
  'http://schemas.openxmlformats.org/drawingml/2006/picture': 'pic',
  'http://purl.oclc.org/ooxml/wordprocessingml/main': 'w',
  'http://purl.oclc.org/ooxml/officeDocument/relationships': 'r',
  'http://purl.oclc.org/ooxml/drawingml/wordprocessingDrawing': 'wp',
  'http://purl.oclc.org/ooxml/drawingml/main': 'a',
  'http://purl.oclc.org/ooxml/drawingml/picture': 'pic',
  'http://schemas.openxmlformats.org/package/2006/content-types': 'content-types',
  'http://schemas.openxmlformats.org/package/2006/relationships': 'relationships',
  'http://schemas.openxmlformats.org/markup-compatibility/2006': 'mc',
  'urn:schemas-microsoft-com:vml': 'v',
  'urn:schemas-microsoft-com:office:word': 'office-word',
  'http://schemas.microsoft.com/office/word/2010/wordml': 'wordml',
};

const OFFICE_DOCUMENT = 'http://schemas.openxmlformats.org/officeDocument/2006/relationships/officeDocument';

interface XmlText {
  text: string;
}
interface XmlElement {
  name: string;
  attrs: Record<string, string>;
  children: XmlNode[];
}
type XmlNode = XmlElement | XmlText;
const isElement = (n: XmlNode): n is XmlElement => 'name' in n;

/** An element or attribute name as mammoth writes it: a known namespace's prefix, else `{uri}local`. */
function qualified(uri: string | undefined, local: string): string {
  if (!uri) return local;
  const prefix = NAMESPACES[uri];
  return prefix ? `${prefix}:${local}` : `{${uri}}${local}`;
}

/** Text is parsed this many characters at a time, with the caller's stop check in between. */
const CHUNK_CHARS = 1 << 20;

/** Thrown when the caller's stop check (a time budget) ends a parse. */
export class ParseStopped extends Error {}

/** The part is XML this reader cannot take (malformed, no body, an element where text belongs): the file's fault, not ours. */
export class DocxStructureError extends Error {}

/**
 * Parses one XML part into elements and text (comments, CDATA and processing instructions dropped,
 * as mammoth's reader drops them); Markup Compatibility collapsed to `mc:Fallback`. `stop` is
 * asked between 1 MB chunks; when it says so the parse ends with ParseStopped.
 */
export function parseXml(xml: string, stop?: () => boolean): XmlElement {
  const parser = new SaxesParser({ xmlns: true });
  const root: XmlElement = { name: '#document', attrs: {}, children: [] };
  const stack: XmlElement[] = [root];
  // Parts reach here through the XML budget (xml-budget.ts); these keep the reader bounded on its
  // own too: saxes resolves each prefix by walking the open elements, and the walk below recurses.
  parser.on('error', (err: Error) => {
    throw new DocxStructureError(`it is not well-formed XML (${err.message.slice(0, 200)})`);
  });
  parser.on('opentagstart', () => {
    if (stack.length > XML_LIMITS.maxDepth) throw new DocxStructureError(`it nests elements more than ${XML_LIMITS.maxDepth} deep (the depth limit)`);
  });
  parser.on('opentag', (tag: SaxesTagNS) => {
    const attrs: Record<string, string> = {};
    for (const a of Object.values(tag.attributes)) attrs[qualified(a.uri, a.local)] = a.value;
    const el: XmlElement = { name: qualified(tag.uri, tag.local), attrs, children: [] };
    stack[stack.length - 1]!.children.push(el);
    stack.push(el);
  });
  parser.on('closetag', () => {
    const el = stack.pop()!;
    if (el.name !== 'mc:AlternateContent') return;
    // Replace the element by its first mc:Fallback's children (already collapsed themselves).
    const parent = stack[stack.length - 1]!;
    const fallback = el.children.find((c): c is XmlElement => isElement(c) && c.name === 'mc:Fallback');
    parent.children.splice(parent.children.length - 1, 1, ...(fallback?.children ?? []));
  });
  parser.on('text', (text: string) => {
    const parent = stack[stack.length - 1]!;
    // The document's own text nodes only; saxes reports text outside the root element too.
    if (parent !== root) parent.children.push({ text });
  });
  for (let at = 0; at < xml.length; ) {
    if (stop?.()) throw new ParseStopped('stopped');
    let end = Math.min(xml.length, at + CHUNK_CHARS);
    // Never split a surrogate pair between two chunks.
    const last = xml.charCodeAt(end - 1);
    if (end < xml.length && last >= 0xd800 && last <= 0xdbff) end--;
    parser.write(xml.slice(at, end));
    at = end;
  }
  parser.close();
  const top = root.children.find(isElement);
  if (!top) throw new DocxStructureError('the XML part has no root element');
  return top;
}

const first = (el: XmlElement | undefined, name: string): XmlElement | undefined =>
  el?.children.find((c): c is XmlElement => isElement(c) && c.name === name);

/** mammoth's `Element.text()`: no children → "", one text child → it, anything else is refused. */
function elementText(el: XmlElement): string {
  if (el.children.length === 0) return '';
  const only = el.children[0]!;
  if (el.children.length !== 1 || isElement(only)) throw new DocxStructureError(`${el.name} holds elements where only text belongs`);
  return only.text;
}

/** The document model, reduced to what decides the raw text and where it goes. */
type Node =
  | { t: 'text'; v: string }
  | { t: 'tab' }
  | { t: 'p'; c: Node[] }
  | { t: 'table'; c: Node[] }
  | { t: 'row'; c: Node[] }
  | { t: 'cell'; c: Node[]; colSpan: number; vMerge: boolean | null }
  | { t: 'box'; c: Node[] }
  /** Elements that carry no text (breaks, bookmarks, note references, images, check boxes). */
  | { t: 'mark' };

/** What reading an element gives: its nodes, and nodes to place after the enclosing paragraph (VML pictures). */
interface Read {
  v: Node[];
  x: Node[];
}
const EMPTY = (): Read => ({ v: [], x: [] });
const one = (n: Node): Read => ({ v: [n], x: [] });

const IGNORED = new Set([
  'office-word:wrap', 'v:shadow', 'v:shapetype', 'w:annotationRef', 'w:bookmarkEnd', 'w:sectPr', 'w:proofErr', 'w:lastRenderedPageBreak',
  'w:commentRangeStart', 'w:commentRangeEnd', 'w:del', 'w:footnoteRef', 'w:endnoteRef', 'w:moveFrom', 'w:pPr', 'w:rPr', 'w:tblPr', 'w:tblGrid', 'w:trPr', 'w:tcPr',
]);
const READ_CHILDREN = new Set([
  'w:customXml', 'w:ins', 'w:moveFromRangeEnd', 'w:moveFromRangeStart', 'w:moveTo', 'w:moveToRangeEnd', 'w:moveToRangeStart', 'w:object', 'w:smartTag',
  'w:drawing', 'v:roundrect', 'v:shape', 'v:textbox', 'w:txbxContent', 'v:group', 'v:rect', 'w:r', 'w:hyperlink',
]);

const notFalse = (v: string | undefined): boolean => v !== 'false' && v !== '0';

/** Reads a body the way mammoth's body reader does (one reader per body: deleted paragraph marks and complex fields carry over). */
class BodyReader {
  private deferred: XmlNode[] = [];
  private fields: { type: string }[] = [];
  private instr: string[] = [];

  readAll(nodes: XmlNode[]): Read {
    const out = EMPTY();
    for (const n of nodes) {
      if (!isElement(n)) continue;
      const r = this.read(n);
      out.v.push(...r.v);
      out.x.push(...r.x);
    }
    return out;
  }

  private read(el: XmlElement): Read {
    const name = el.name;
    if (READ_CHILDREN.has(name)) return this.readAll(el.children);
    switch (name) {
      case 'w:p': {
        const deleted = !!first(first(first(el, 'w:pPr'), 'w:rPr'), 'w:del');
        if (deleted) {
          this.deferred.push(...el.children);
          return EMPTY();
        }
        let children = el.children;
        if (this.deferred.length) {
          children = [...this.deferred, ...children];
          this.deferred = [];
        }
        const r = this.readAll(children);
        return { v: [{ t: 'p', c: r.v }, ...r.x], x: [] };
      }
      case 'w:t':
        return one({ t: 'text', v: elementText(el) });
      case 'w:tab':
        return one({ t: 'tab' });
      case 'w:noBreakHyphen':
        return one({ t: 'text', v: '\u2011' });
      case 'w:softHyphen':
        return one({ t: 'text', v: '\u00AD' });
      case 'w:sym': {
        const font = el.attrs['w:font'] ?? '';
        const char = el.attrs['w:char'] ?? '';
        let u = dingbatHex(font, char);
        if (u == null && /^F0..$/.test(char)) u = dingbatHex(font, char.substring(2));
        return u == null ? EMPTY() : one({ t: 'text', v: u.string });
      }
      case 'w:fldChar':
        return this.fldChar(el);
      case 'w:instrText':
        this.instr.push(elementText(el));
        return EMPTY();
      case 'w:br': {
        const type = el.attrs['w:type'];
        return type == null || type === 'textWrapping' || type === 'page' || type === 'column' ? one({ t: 'mark' }) : EMPTY();
      }
      case 'w:bookmarkStart':
        return el.attrs['w:name'] === '_GoBack' ? EMPTY() : one({ t: 'mark' });
      case 'w:footnoteReference':
      case 'w:endnoteReference':
      case 'w:commentReference':
        return one({ t: 'mark' });
      case 'mc:AlternateContent':
        return this.readAll(first(el, 'mc:Fallback')?.children ?? []);
      case 'w:sdt':
        return this.sdt(el);
      case 'w:pict': {
        const r = this.readAll(el.children);
        return { v: [], x: [...r.x, ...r.v] };
      }
      case 'wp:inline':
      case 'wp:anchor':
        return this.drawing(el);
      case 'v:imagedata':
        return el.attrs['r:id'] ? one({ t: 'mark' }) : EMPTY();
      case 'w:tbl':
        return this.table(el);
      case 'w:tr': {
        if (first(first(el, 'w:trPr'), 'w:del')) return EMPTY();
        const r = this.readAll(el.children);
        return { v: [{ t: 'row', c: r.v }], x: r.x };
      }
      case 'w:tc': {
        const r = this.readAll(el.children);
        const props = first(el, 'w:tcPr');
        const gridSpan = first(props, 'w:gridSpan')?.attrs['w:val'];
        const vm = first(props, 'w:vMerge');
        const vMerge = vm ? vm.attrs['w:val'] === 'continue' || !vm.attrs['w:val'] : null;
        return { v: [{ t: 'cell', c: r.v, colSpan: gridSpan ? parseInt(gridSpan, 10) : 1, vMerge }], x: r.x };
      }
      default:
        // Ignored elements, and elements mammoth does not know: left out with their content.
        return EMPTY();
    }
  }

  private fldChar(el: XmlElement): Read {
    const type = el.attrs['w:fldCharType'];
    if (type === 'begin') {
      this.fields.push({ type: 'begin' });
      this.instr = [];
    } else if (type === 'end') {
      if (this.fields.length === 0) return EMPTY();
      let f = this.fields.pop()!;
      if (f.type === 'begin') f = this.parseInstr();
      if (f.type === 'checkbox') return one({ t: 'mark' });
    } else if (type === 'separate') {
      if (this.fields.length === 0) return EMPTY();
      this.fields.pop();
      this.fields.push(this.parseInstr());
    }
    return EMPTY();
  }

  /** Only what raw text needs of a field: whether it is a FORMCHECKBOX (its end becomes a check box). */
  private parseInstr(): { type: string } {
    const instr = this.instr.join('');
    if (/^\s*HYPERLINK\s+(\\l\s+)?(?:"(.*)"|([^\\]\S*))/.test(instr)) return { type: 'hyperlink' };
    return { type: /FORMCHECKBOX/.test(instr) ? 'checkbox' : 'unknown' };
  }

  private sdt(el: XmlElement): Read {
    const r = this.readAll(first(el, 'w:sdtContent')?.children ?? []);
    if (!first(first(el, 'w:sdtPr'), 'wordml:checkbox')) return r;
    // A check-box content control: its first non-empty text is the check mark, replaced by the box.
    let replaced = false;
    const replace = (nodes: Node[]): Node[] =>
      nodes.map((n) => {
        if ('c' in n) return { ...n, c: replace(n.c) };
        if (n.t === 'text' && n.v.length > 0 && !replaced) {
          replaced = true;
          return { t: 'mark' } as Node;
        }
        return n;
      });
    const v = replace(r.v);
    return { v: replaced ? v : [{ t: 'mark' }], x: r.x };
  }

  private drawing(el: XmlElement): Read {
    // mammoth follows a:graphic/a:graphicData/pic:pic/pic:blipFill/a:blip, child by child.
    let level: XmlElement[] = [el];
    for (const name of ['a:graphic', 'a:graphicData', 'pic:pic', 'pic:blipFill', 'a:blip'])
      level = level.flatMap((e) => e.children.filter((c): c is XmlElement => isElement(c) && c.name === name));
    return { v: level.filter((b) => b.attrs['r:embed'] || b.attrs['r:link']).map(() => ({ t: 'mark' }) as Node), x: [] };
  }

  private table(el: XmlElement): Read {
    const r = this.readAll(el.children);
    const rows = r.v;
    const cellsOf = (row: Node): Node[] => ('c' in row ? row.c : []);
    const regular = rows.every((row) => row.t === 'row') && rows.every((row) => cellsOf(row).every((c) => c.t === 'cell'));
    if (regular) {
      // Cells merged into the one above (w:vMerge continue) are dropped, as mammoth's row spans do.
      const columns = new Map<number, Node>();
      for (const row of rows) {
        let index = 0;
        for (const cell of cellsOf(row) as Extract<Node, { t: 'cell' }>[]) {
          if (cell.vMerge && columns.has(index)) cell.vMerge = true;
          else {
            columns.set(index, cell);
            cell.vMerge = false;
          }
          index += cell.colSpan;
        }
      }
      for (const row of rows as Extract<Node, { t: 'row' }>[]) row.c = row.c.filter((c) => !(c as Extract<Node, { t: 'cell' }>).vMerge);
    }
    return { v: [{ t: 'table', c: rows }], x: r.x };
  }
}

function rawText(nodes: Node[]): string {
  let out = '';
  for (const n of nodes) {
    if (n.t === 'text') out += n.v;
    else if (n.t === 'tab') out += '\t';
    else if ('c' in n) out += rawText(n.c) + (n.t === 'p' ? '\n\n' : '');
  }
  return out;
}

/**
 * Raw text of a main document part's XML (the `w:body`), as mammoth's `extractRawText` gives it;
 * undefined when `stop` (asked between 1 MB chunks of the parse) ended it first.
 */
export function documentXmlText(xml: string, stop?: () => boolean): string | undefined {
  let doc: XmlElement;
  try {
    doc = parseXml(xml.replace(/^\uFEFF/, ''), stop);
  } catch (err) {
    if (err instanceof ParseStopped) return undefined;
    throw err;
  }
  const body = first(doc, 'w:body');
  if (!body) throw new DocxStructureError('it has no w:body element (the document body)');
  return rawText(new BodyReader().readAll(body.children).v);
}

/** A package part as text (UTF-8, byte-order mark removed), or null when absent. */
export type PartReader = (path: string) => Promise<string | null>;

/** The main document part, as mammoth finds it: the package relationship of type officeDocument, else word/document.xml. */
export async function mainDocumentPath(readPart: PartReader, exists: (path: string) => boolean): Promise<string> {
  const rels = await readPart('_rels/.rels');
  const targets: string[] = [];
  if (rels)
    for (const c of parseXml(rels.replace(/^\uFEFF/, '')).children)
      if (isElement(c) && c.name === 'relationships:Relationship' && c.attrs.Type === OFFICE_DOCUMENT && c.attrs.Target !== undefined) targets.push(c.attrs.Target);
  const found = targets.map((t) => t.replace(/^\//, '')).find((t) => t && exists(t));
  const path = found ?? 'word/document.xml';
  if (!exists(path)) throw new Error('Could not find main document part. Are you sure this is a valid .docx file?');
  return path;
}

/** The document's raw text from an opened package (jszip): the main document part only is inflated. */
export async function docxText(zip: import('jszip')): Promise<string> {
  const read: PartReader = async (p) => {
    const f = zip.file(p);
    return f ? new TextDecoder('utf-8').decode(await f.async('uint8array')) : null;
  };
  const path = await mainDocumentPath(read, (p) => zip.file(p) !== null);
  return documentXmlText((await read(path))!) ?? '';
}
