/**
 * pdf.js 5.4.296's `getTextContent` (PartialEvaluator, src/core/evaluator.js) for horizontal
 * text in the fonts fonts.ts supports, written anew with the same arithmetic in the same order
 * so every item — its text, transform, width, height and end-of-line flag — comes out as pdf.js
 * makes it: the text state and its q/Q copies, glyph advance, the "is this a space / a new line /
 * a new item" decisions against the previous glyph, fake spaces, and the page's view box clip.
 * The items feed page-layout.ts exactly as pdf.js's feed it in pdfjs-reader.ts.
 */
import type { LayoutItem } from './page-layout.js';
import type { Operand, Operation } from './content-ops.js';
import type { Glyph, TextFont } from './fonts.js';
import { ineligible } from './ineligible.js';

type Matrix = number[];
const IDENTITY: Matrix = [1, 0, 0, 1, 0, 0];
const FONT_SCALE = 0.001; // FONT_IDENTITY_MATRIX[0]: every supported font uses it

/** Util.transform, term for term. */
function mul(m1: ArrayLike<number>, m2: ArrayLike<number>): Matrix {
  return [
    m1[0]! * m2[0]! + m1[2]! * m2[1]!,
    m1[1]! * m2[0]! + m1[3]! * m2[1]!,
    m1[0]! * m2[2]! + m1[2]! * m2[3]!,
    m1[1]! * m2[2]! + m1[3]! * m2[3]!,
    m1[0]! * m2[4]! + m1[2]! * m2[5]! + m1[4]!,
    m1[1]! * m2[4]! + m1[3]! * m2[5]! + m1[5]!,
  ];
}

class TextState {
  ctm: Matrix = IDENTITY.slice();
  fontName: string | null = null;
  fontSize = 0;
  font: TextFont | null = null;
  textMatrix: Matrix = IDENTITY.slice();
  textLineMatrix: Matrix = IDENTITY.slice();
  charSpacing = 0;
  wordSpacing = 0;
  leading = 0;
  textHScale = 1;
  textRise = 0;

  translateTextMatrix(x: number, y: number): void {
    const m = this.textMatrix;
    m[4] = m[0]! * x + m[2]! * y + m[4]!;
    m[5] = m[1]! * x + m[3]! * y + m[5]!;
  }
  translateTextLineMatrix(x: number, y: number): void {
    const m = this.textLineMatrix;
    m[4] = m[0]! * x + m[2]! * y + m[4]!;
    m[5] = m[1]! * x + m[3]! * y + m[5]!;
  }
  carriageReturn(): void {
    this.translateTextLineMatrix(0, -this.leading);
    this.textMatrix = this.textLineMatrix.slice();
  }
  /** pdf.js clones with the matrices copied and every other field shared until reassigned: a full copy behaves the same. */
  clone(): TextState {
    const c = new TextState();
    Object.assign(c, this);
    c.textMatrix = this.textMatrix.slice();
    c.textLineMatrix = this.textLineMatrix.slice();
    return c;
  }
}

// pdf.js's normalizeUnicode: NFKC on runs of these characters (ligatures, compatibility spaces,
// presentation forms), and U+FB05 to "ſt".
const NORMALIZE = /([\u00a0\u00b5\u037e\u0eb3\u2000-\u200a\u202f\u2126\ufb00-\ufb04\ufb06\ufb20-\ufb36\ufb38-\ufb3c\ufb3e\ufb40-\ufb41\ufb43-\ufb44\ufb46-\ufba1\ufba4-\ufba9\ufbae-\ufbb1\ufbd3-\ufbdc\ufbde-\ufbe7\ufbea-\ufbf8\ufbfc-\ufbfd\ufc00-\ufc5d\ufc64-\ufcf1\ufcf5-\ufd3d\ufd88\ufdf4\ufdfa-\ufdfb\ufe71\ufe77\ufe79\ufe7b\ufe7d]+)|(\ufb05+)/gu;
function normalizeUnicode(s: string): string {
  // U+FB05 runs: pdf.js maps a run through a one-entry table (a run of two reads as "undefined"); not eligible.
  if (s.includes('\ufb05')) ineligible('unicode: U+FB05');
  return s.replaceAll(NORMALIZE, (_, p1: string | undefined) => (p1 ? p1.normalize('NFKC') : ''));
}
/** Characters pdf.js's bidi would treat as right-to-left or Arabic numbers: such text is not eligible. */
const RTL = /[\u0590-\u08ff\ufb1d-\ufdff\ufe70-\ufeff]/;

export interface TextItem extends LayoutItem {
  transform: number[];
}

/** A content stream's resources, as the extractor asks for them (Ineligible when one cannot be had). */
export interface ResourceScope {
  /** The font a /Font resource name loads. */
  font(name: string): TextFont;
  /** What `Do` of this name shows: an image (ignored for text) or a form to read in place. */
  xobject(name: string): { kind: 'image' } | FormXObject;
  /** An ExtGState without /Font (ignored); anything else is not eligible. */
  extGState(name: string): void;
}

export interface FormXObject {
  kind: 'form';
  /** The form's object number (pdf.js refuses a form that contains itself). */
  id: number;
  ops: Operation[];
  /** Its /Matrix, when it has one. */
  matrix: number[] | undefined;
  /** Its own /Resources, or the caller's when it has none. */
  scope: ResourceScope;
  /** Its content's decoded length (each use counts against the reading's work: simple-reader.ts). */
  bytes: number;
}

export interface PageInput {
  ops: Operation[];
  view: number[];
  scope: ResourceScope;
}

/** Forms inside forms: pdf.js follows them without a limit (but for cycles); past this many, not eligible. */
const MAX_FORM_DEPTH = 12;

const num = (v: Operand | undefined): number => (typeof v === 'number' ? v : ineligible('content: operand type'));
const nameArg = (v: Operand | undefined): string =>
  v && typeof v === 'object' && !Array.isArray(v) && 'name' in v ? v.name : ineligible('content: operand type');
const strArg = (v: Operand | undefined): string => (typeof v === 'string' ? v : ineligible('content: operand type'));

const TRACKING_SPACE_FACTOR = 0.102;
const NOT_A_SPACE_FACTOR = 0.03;
const NEGATIVE_SPACE_FACTOR = -0.2;
const SPACE_IN_FLOW_MIN_FACTOR = 0.102;
const SPACE_IN_FLOW_MAX_FACTOR = 0.6;
const VERTICAL_SHIFT_RATIO = 0.25;

interface Chunk {
  initialized: boolean;
  str: string[];
  totalWidth: number;
  totalHeight: number;
  width: number;
  height: number;
  prevTransform: Matrix | null;
  textAdvanceScale: number;
  spaceInFlowMin: number;
  spaceInFlowMax: number;
  trackingSpaceMin: number;
  negativeSpaceMax: number;
  notASpace: number;
  transform: Matrix | null;
  hasEOL: boolean;
}

/**
 * One page's extraction. A class, not closures: its methods are one set of functions for every
 * page, so V8 optimizes them once per process instead of once per page.
 */
class PageText {
  private readonly viewBox: number[];
  private readonly stack: TextState[] = [];
  private state: TextState;
  private readonly chunk: Chunk = {
    initialized: false,
    str: [],
    totalWidth: 0,
    totalHeight: 0,
    width: 0,
    height: 0,
    prevTransform: null,
    textAdvanceScale: 0,
    spaceInFlowMin: 0,
    spaceInFlowMax: 0,
    trackingSpaceMin: Infinity,
    negativeSpaceMax: -Infinity,
    notASpace: -Infinity,
    transform: null,
    hasEOL: false,
  };
  private readonly twoLastChars = [' ', ' '];
  private twoLastCharsPos = 0;

  constructor(
    view: number[],
    private readonly ops: Operation[],
    private readonly scope: ResourceScope,
    /** The items of the whole page: a form's go into its caller's list, in order. */
    readonly items: TextItem[],
    initial: TextState,
    /** Object numbers of the forms this content is inside (pdf.js's seenRefs). */
    private readonly forms: readonly number[],
  ) {
    this.viewBox = view;
    this.state = initial;
  }

  private saveLastChar(char: string): boolean {
    const nextPos = (this.twoLastCharsPos + 1) % 2;
    const ret = this.twoLastChars[this.twoLastCharsPos] !== ' ' && this.twoLastChars[nextPos] === ' ';
    this.twoLastChars[this.twoLastCharsPos] = char;
    this.twoLastCharsPos = nextPos;
    return ret;
  }
  private shouldAddWhitespace(): boolean {
    return this.twoLastChars[this.twoLastCharsPos] !== ' ' && this.twoLastChars[(this.twoLastCharsPos + 1) % 2] === ' ';
  }
  private resetLastChars(): void {
    this.twoLastChars[0] = this.twoLastChars[1] = ' ';
    this.twoLastCharsPos = 0;
  }
  private pushWhitespace(width: number, height: number, transform: Matrix | null): void {
    if (!transform) ineligible('text: whitespace without position');
    this.items.push({ str: ' ', width, height, transform, hasEOL: false });
  }

  // Util.transform(ctm, Util.transform(textMatrix, [fontSize * hScale, 0, 0, fontSize, 0, rise])),
  // written out term for term (the `* 0` terms too: they decide the sign of a zero) to spare the
  // two intermediate arrays; it runs several times per glyph.
  private currentTransform(): Matrix {
    const state = this.state;
    const a = state.fontSize * state.textHScale, d = state.fontSize, e = state.textRise;
    const t = state.textMatrix, c = state.ctm;
    const t0 = t[0]!, t1 = t[1]!, t2 = t[2]!, t3 = t[3]!;
    const i0 = t0 * a + t2 * 0;
    const i1 = t1 * a + t3 * 0;
    const i2 = t0 * 0 + t2 * d;
    const i3 = t1 * 0 + t3 * d;
    const i4 = t0 * 0 + t2 * e + t[4]!;
    const i5 = t1 * 0 + t3 * e + t[5]!;
    const c0 = c[0]!, c1 = c[1]!, c2 = c[2]!, c3 = c[3]!;
    return [c0 * i0 + c2 * i1, c1 * i0 + c3 * i1, c0 * i2 + c2 * i3, c1 * i2 + c3 * i3, c0 * i4 + c2 * i5 + c[4]!, c1 * i4 + c3 * i5 + c[5]!];
  }

  private ensureItem(): Chunk {
    const chunk = this.chunk;
    if (chunk.initialized) return chunk;
    const state = this.state;
    const trm = (chunk.transform = this.currentTransform());
    chunk.width = chunk.totalWidth = 0;
    chunk.height = chunk.totalHeight = Math.hypot(trm[2]!, trm[3]!);
    const scaleLineX = Math.hypot(state.textLineMatrix[0]!, state.textLineMatrix[1]!);
    const scaleCtmX = Math.hypot(state.ctm[0]!, state.ctm[1]!);
    chunk.textAdvanceScale = scaleCtmX * scaleLineX;
    const { fontSize } = state;
    chunk.trackingSpaceMin = fontSize * TRACKING_SPACE_FACTOR;
    chunk.notASpace = fontSize * NOT_A_SPACE_FACTOR;
    chunk.negativeSpaceMax = fontSize * NEGATIVE_SPACE_FACTOR;
    chunk.spaceInFlowMin = fontSize * SPACE_IN_FLOW_MIN_FACTOR;
    chunk.spaceInFlowMax = fontSize * SPACE_IN_FLOW_MAX_FACTOR;
    chunk.hasEOL = false;
    chunk.initialized = true;
    return chunk;
  }

  private updateAdvanceScale(): void {
    const chunk = this.chunk;
    if (!chunk.initialized) return;
    const state = this.state;
    const scaleLineX = Math.hypot(state.textLineMatrix[0]!, state.textLineMatrix[1]!);
    const scaleCtmX = Math.hypot(state.ctm[0]!, state.ctm[1]!);
    const scaleFactor = scaleCtmX * scaleLineX;
    if (scaleFactor === chunk.textAdvanceScale) return;
    chunk.totalWidth += chunk.width * chunk.textAdvanceScale;
    chunk.width = 0;
    chunk.textAdvanceScale = scaleFactor;
  }

  flush(): void {
    const chunk = this.chunk;
    if (!chunk.initialized) return;
    chunk.totalWidth += chunk.width * chunk.textAdvanceScale;
    const text = normalizeUnicode(chunk.str.join(''));
    if (RTL.test(text)) ineligible('unicode: RTL');
    this.items.push({ str: text, width: Math.abs(chunk.totalWidth), height: Math.abs(chunk.totalHeight), transform: chunk.transform!, hasEOL: chunk.hasEOL });
    chunk.initialized = false;
    chunk.str.length = 0;
  }

  private appendEOL(): void {
    this.resetLastChars();
    if (this.chunk.initialized) {
      this.chunk.hasEOL = true;
      this.flush();
    } else this.items.push({ str: '', width: 0, height: 0, transform: this.currentTransform(), hasEOL: true });
  }

  private addFakeSpaces(width: number, transf: Matrix | null, textOrientation: number): boolean {
    const chunk = this.chunk;
    if (textOrientation * chunk.spaceInFlowMin <= width && width <= textOrientation * chunk.spaceInFlowMax) {
      if (chunk.initialized) {
        this.resetLastChars();
        chunk.str.push(' ');
      }
      return false;
    }
    this.flush();
    this.resetLastChars();
    this.pushWhitespace(Math.abs(width), Math.abs(0), transf || this.currentTransform());
    return true;
  }

  private compareWithLastPosition(glyphWidth: number): boolean {
    const state = this.state, chunk = this.chunk, viewBox = this.viewBox;
    // The translation of currentTransform() alone (the same terms), so the common cases — off
    // the page, or exactly where the previous glyph ended — need no matrix.
    const t = state.textMatrix, c = state.ctm, e = state.textRise;
    const i4 = t[0]! * 0 + t[2]! * e + t[4]!;
    const i5 = t[1]! * 0 + t[3]! * e + t[5]!;
    let posX = c[0]! * i4 + c[2]! * i5 + c[4]!;
    let posY = c[1]! * i4 + c[3]! * i5 + c[5]!;
    if (posX + glyphWidth < viewBox[0]! || posX > viewBox[2]! || posY < viewBox[1]! || posY > viewBox[3]!) return false;
    if (!state.font || !chunk.prevTransform) return true;
    let lastPosX = chunk.prevTransform[4]!;
    let lastPosY = chunk.prevTransform[5]!;
    if (lastPosX === posX && lastPosY === posY) return true;
    const cur = this.currentTransform();
    let rotate = -1;
    if (cur[0] && cur[1] === 0 && cur[2] === 0) rotate = cur[0] > 0 ? 0 : 180;
    else if (cur[1] && cur[0] === 0 && cur[3] === 0) rotate = cur[1] > 0 ? 90 : 270;
    switch (rotate) {
      case 0:
        break;
      case 90:
        [posX, posY] = [posY, posX];
        [lastPosX, lastPosY] = [lastPosY, lastPosX];
        break;
      case 180:
        [posX, posY, lastPosX, lastPosY] = [-posX, -posY, -lastPosX, -lastPosY];
        break;
      case 270:
        [posX, posY] = [-posY, -posX];
        [lastPosX, lastPosY] = [-lastPosY, -lastPosX];
        break;
      default:
        [posX, posY] = applyInverseRotation(posX, posY, cur);
        [lastPosX, lastPosY] = applyInverseRotation(lastPosX, lastPosY, chunk.prevTransform);
    }
    const advanceX = (posX - lastPosX) / chunk.textAdvanceScale;
    const advanceY = posY - lastPosY;
    const textOrientation = Math.sign(chunk.width);
    if (advanceX < textOrientation * chunk.negativeSpaceMax) {
      if (Math.abs(advanceY) > 0.5 * chunk.height) {
        this.appendEOL();
        return true;
      }
      this.resetLastChars();
      this.flush();
      return true;
    }
    if (Math.abs(advanceY) > chunk.height) {
      this.appendEOL();
      return true;
    }
    if (advanceX <= textOrientation * chunk.notASpace) this.resetLastChars();
    if (advanceX <= textOrientation * chunk.trackingSpaceMin) {
      if (this.shouldAddWhitespace()) {
        this.resetLastChars();
        this.flush();
        this.pushWhitespace(Math.abs(advanceX), 0, chunk.prevTransform);
      } else chunk.width += advanceX;
    } else if (!this.addFakeSpaces(advanceX, chunk.prevTransform, textOrientation)) {
      if (chunk.str.length === 0) {
        this.resetLastChars();
        this.pushWhitespace(Math.abs(advanceX), 0, chunk.prevTransform);
      } else chunk.width += advanceX;
    }
    if (Math.abs(advanceY) > chunk.height * VERTICAL_SHIFT_RATIO) this.flush();
    return true;
  }

  private buildTextContentItem(chars: string, extraSpacing: number): void {
    const state = this.state;
    const font = state.font!;
    if (!chars) {
      const charSpacing = state.charSpacing + extraSpacing;
      if (charSpacing) state.translateTextMatrix(charSpacing * state.textHScale, 0);
      return;
    }
    const glyphs: Glyph[] = font.glyphs(chars);
    const scale = FONT_SCALE * state.fontSize;
    const viewBox = this.viewBox;
    const chunk = this.chunk;
    const last = this.twoLastChars;
    // The text matrix stays the same array through this loop (only its translation moves), so it
    // is read once. The common case of each step is written inline (pdf.js's arithmetic, term for
    // term: translateTextMatrix(x, 0) keeps its `m[2] * 0`); the rare ones call the methods above.
    const tm = state.textMatrix;
    // Nothing in this loop changes the text state but the text matrix's translation (tm[4], tm[5]):
    // the rest is read once.
    const t0 = tm[0]!, t1 = tm[1]!, t2 = tm[2]!, t3 = tm[3]!;
    const c = state.ctm, c0 = c[0]!, c1 = c[1]!, c2 = c[2]!, c3 = c[3]!, c4 = c[4]!, c5 = c[5]!;
    const rise = state.textRise, hScale = state.textHScale, baseSpacing = state.charSpacing, wordSpacing = state.wordSpacing;
    const vx0 = viewBox[0]!, vy0 = viewBox[1]!, vx1 = viewBox[2]!, vy1 = viewBox[3]!;
    for (let i = 0, ii = glyphs.length; i < ii; i++) {
      const glyph = glyphs[i]!;
      const category = glyph.category;
      if (category.isInvisibleFormatMark) continue;
      let charSpacing = baseSpacing + (i + 1 === ii ? extraSpacing : 0);
      let scaledDim = glyph.width * scale;
      if (glyph.originalCharCode === 0x20) charSpacing += wordSpacing;
      if (category.isWhitespace) {
        charSpacing += scaledDim;
        const x = charSpacing * hScale;
        tm[4] = t0 * x + t2 * 0 + tm[4]!;
        tm[5] = t1 * x + t3 * 0 + tm[5]!;
        this.saveLastChar(' ');
        continue;
      }
      if (!category.isZeroWidthDiacritic) {
        // compareWithLastPosition's first steps: off the page, or exactly where the last glyph
        // ended; anything else takes the method (which finds the same position and goes on).
        const i4 = t0 * 0 + t2 * rise + tm[4]!;
        const i5 = t1 * 0 + t3 * rise + tm[5]!;
        const posX = c0 * i4 + c2 * i5 + c4;
        const posY = c1 * i4 + c3 * i5 + c5;
        if (posX + scaledDim < vx0 || posX > vx1 || posY < vy0 || posY > vy1) {
          const x = scaledDim * hScale;
          tm[4] = t0 * x + t2 * 0 + tm[4]!;
          tm[5] = t1 * x + t3 * 0 + tm[5]!;
          continue;
        }
        const prev = chunk.prevTransform;
        if (prev && (prev[4] !== posX || prev[5] !== posY)) this.compareWithLastPosition(scaledDim);
      }
      const textChunk = chunk.initialized ? chunk : this.ensureItem();
      if (category.isZeroWidthDiacritic) scaledDim = 0;
      scaledDim *= hScale;
      tm[4] = t0 * scaledDim + t2 * 0 + tm[4]!;
      tm[5] = t1 * scaledDim + t3 * 0 + tm[5]!;
      textChunk.width += scaledDim;
      if (scaledDim) textChunk.prevTransform = this.currentTransform();
      const glyphUnicode = glyph.unicode;
      // saveLastChar, inline.
      const pos = this.twoLastCharsPos;
      const nextPos = (pos + 1) % 2;
      const addSpace = last[pos] !== ' ' && last[nextPos] === ' ';
      last[pos] = glyphUnicode;
      this.twoLastCharsPos = nextPos;
      if (addSpace) textChunk.str.push(' ');
      textChunk.str.push(glyphUnicode);
      if (charSpacing) {
        const x = charSpacing * hScale;
        tm[4] = t0 * x + t2 * 0 + tm[4]!;
        tm[5] = t1 * x + t3 * 0 + tm[5]!;
      }
    }
  }

  /**
   * pdf.js's `Do` for text: an image shows nothing; a form is read by a fresh extraction (its own
   * item, spacing memory and q/Q stack) that starts from a copy of the current state with the
   * form's /Matrix applied, its items going into the page's list in order. The caller's state is
   * untouched by it.
   */
  private paintXObject(name: string): void {
    const x = this.scope.xobject(name);
    if (x.kind === 'image') return;
    if (this.forms.includes(x.id)) ineligible('form XObject: contains itself');
    if (this.forms.length >= MAX_FORM_DEPTH) ineligible('form XObject: nested too deep');
    const initial = this.state.clone();
    if (x.matrix) initial.ctm = mul(initial.ctm, x.matrix);
    new PageText(this.viewBox, x.ops, x.scope, this.items, initial, [...this.forms, x.id]).run();
  }

  private requireFont(): void {
    if (!this.state.font) ineligible('content: text shown without a font');
  }

  run(): void {
    const scope = this.scope;
    for (const { op, args } of this.ops) {
      // The preprocessor's state changes come first (EvaluatorPreprocessor.preprocessCommand).
      const previousState = this.state;
      if (op === 'q') {
        this.stack.push(this.state);
        this.state = this.state.clone();
        if (this.stack.length > 256) ineligible('content: q nesting');
      } else if (op === 'Q') {
        const prev = this.stack.pop();
        if (prev) this.state = prev;
      } else if (op === 'cm') {
        this.state.ctm = mul(this.state.ctm, args.map(num));
      }
      const state = this.state;
      switch (op) {
        case 'Tf': {
          const fontName = nameArg(args[0]);
          const fontSize = num(args[1]);
          if (state.font && fontName === state.fontName && fontSize === state.fontSize) break;
          this.flush();
          state.fontName = fontName;
          state.fontSize = fontSize;
          state.font = scope.font(fontName);
          break;
        }
        case 'Ts':
          state.textRise = num(args[0]);
          break;
        case 'Tz':
          state.textHScale = num(args[0]) / 100;
          break;
        case 'TL':
          state.leading = num(args[0]);
          break;
        case 'Td':
          state.translateTextLineMatrix(num(args[0]), num(args[1]));
          state.textMatrix = state.textLineMatrix.slice();
          break;
        case 'TD':
          state.leading = -num(args[1]);
          state.translateTextLineMatrix(num(args[0]), num(args[1]));
          state.textMatrix = state.textLineMatrix.slice();
          break;
        case 'T*':
          state.carriageReturn();
          break;
        case 'Tm': {
          const [a, b, c, d, e, f] = args.map(num) as [number, number, number, number, number, number];
          state.textMatrix = [a, b, c, d, e, f];
          state.textLineMatrix = [a, b, c, d, e, f];
          this.updateAdvanceScale();
          break;
        }
        case 'Tc':
          state.charSpacing = num(args[0]);
          break;
        case 'Tw':
          state.wordSpacing = num(args[0]);
          break;
        case 'BT':
          state.textMatrix = IDENTITY.slice();
          state.textLineMatrix = IDENTITY.slice();
          break;
        case 'TJ': {
          this.requireFont();
          const spaceFactor = (-1 * state.fontSize) / 1000;
          const elements = args[0];
          if (!Array.isArray(elements)) ineligible('content: operand type');
          const buffer: string[] = [];
          for (const item of elements) {
            if (typeof item === 'string') buffer.push(item);
            else if (typeof item === 'number') {
              if (item !== 0) {
                const str = buffer.join('');
                buffer.length = 0;
                this.buildTextContentItem(str, item * spaceFactor);
              }
            } else ineligible('content: operand type');
          }
          if (buffer.length > 0) this.buildTextContentItem(buffer.join(''), 0);
          break;
        }
        case 'Tj':
          this.requireFont();
          this.buildTextContentItem(strArg(args[0]), 0);
          break;
        case "'":
          this.requireFont();
          state.carriageReturn();
          this.buildTextContentItem(strArg(args[0]), 0);
          break;
        case '"':
          this.requireFont();
          state.wordSpacing = num(args[0]);
          state.charSpacing = num(args[1]);
          state.carriageReturn();
          this.buildTextContentItem(strArg(args[2]), 0);
          break;
        case 'Do':
          this.flush();
          this.paintXObject(nameArg(args[0]));
          break;
        case 'gs':
          scope.extGState(nameArg(args[0]));
          break;
        case 'BMC':
        case 'BDC':
        case 'EMC':
          this.flush();
          break;
        case 'Q':
          if (previousState && (previousState.font !== state.font || previousState.fontSize !== state.fontSize || previousState.fontName !== state.fontName)) this.flush();
          break;
      }
    }
    this.flush();
  }
}

function applyInverseRotation(x: number, y: number, m: Matrix): [number, number] {
  const scale = Math.hypot(m[0]!, m[1]!);
  return [(m[0]! * x + m[1]! * y) / scale, (m[2]! * x + m[3]! * y) / scale];
}

export function extractTextItems(page: PageInput): TextItem[] {
  const p = new PageText(page.view, page.ops, page.scope, [], new TextState(), []);
  p.run();
  return p.items;
}
