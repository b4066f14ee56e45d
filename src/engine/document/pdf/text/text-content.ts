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
/**
 * The glyphs of the string being shown (TextFont.glyphs fills it): one array for every string,
 * since buildTextContentItem never runs inside itself (a form's text is read between operators).
 */
const GLYPHS: Glyph[] = [];
/** GLYPHS's length kept between strings (a line of text is well under it). */
const GLYPHS_KEPT = 4096;

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
  ctm: Matrix;
  fontName: string | null;
  fontSize: number;
  font: TextFont | null;
  textMatrix: Matrix;
  textLineMatrix: Matrix;
  charSpacing: number;
  wordSpacing: number;
  leading: number;
  textHScale: number;
  textRise: number;

  /**
   * A fresh state, or `from`'s copy (clone()). pdf.js clones with the matrices copied and every
   * other field shared until reassigned (the CTM is only ever replaced, never changed in place):
   * copied field by field, not by Object.assign over a fresh state — a `q` per line made that
   * (and the fresh state's three matrices, thrown away) a measurable part of a cold page.
   */
  constructor(from?: TextState) {
    if (from) {
      this.ctm = from.ctm;
      this.fontName = from.fontName;
      this.fontSize = from.fontSize;
      this.font = from.font;
      this.textMatrix = from.textMatrix.slice();
      this.textLineMatrix = from.textLineMatrix.slice();
      this.charSpacing = from.charSpacing;
      this.wordSpacing = from.wordSpacing;
      this.leading = from.leading;
      this.textHScale = from.textHScale;
      this.textRise = from.textRise;
    } else {
      this.ctm = IDENTITY.slice();
      this.fontName = null;
      this.fontSize = 0;
      this.font = null;
      this.textMatrix = IDENTITY.slice();
      this.textLineMatrix = IDENTITY.slice();
      this.charSpacing = 0;
      this.wordSpacing = 0;
      this.leading = 0;
      this.textHScale = 1;
      this.textRise = 0;
    }
  }

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
  clone(): TextState {
    return new TextState(this);
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
  /**
   * pdf.js's prevTransform (the transform after the last glyph shown), kept in parts so that the
   * glyph loop makes no array per glyph: its first four terms (`prevPart`, the same for every
   * glyph of one string: they depend on state the loop never changes; null before any glyph) and
   * its translation. `prevMat` is the whole matrix once something asks for it (prevTransform()).
   */
  prevPart: number[] | null;
  prevX: number;
  prevY: number;
  prevMat: Matrix | null;
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
    prevPart: null,
    prevX: 0,
    prevY: 0,
    prevMat: null,
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

  /** The chunk's prevTransform as one array (the same array until the next glyph moves it), or null. */
  private prevTransform(): Matrix | null {
    const chunk = this.chunk;
    const part = chunk.prevPart;
    if (!part) return null;
    return (chunk.prevMat ??= [part[0]!, part[1]!, part[2]!, part[3]!, chunk.prevX, chunk.prevY]);
  }

  /** currentTransform()'s first four terms (the same arithmetic): they do not depend on the text matrix's translation. */
  private transformPart(): number[] {
    const state = this.state;
    const a = state.fontSize * state.textHScale, d = state.fontSize;
    const t = state.textMatrix, c = state.ctm;
    const t0 = t[0]!, t1 = t[1]!, t2 = t[2]!, t3 = t[3]!;
    const i0 = t0 * a + t2 * 0;
    const i1 = t1 * a + t3 * 0;
    const i2 = t0 * 0 + t2 * d;
    const i3 = t1 * 0 + t3 * d;
    const c0 = c[0]!, c1 = c[1]!, c2 = c[2]!, c3 = c[3]!;
    return [c0 * i0 + c2 * i1, c1 * i0 + c3 * i1, c0 * i2 + c2 * i3, c1 * i2 + c3 * i3];
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

  private addFakeSpaces(width: number, textOrientation: number): boolean {
    const chunk = this.chunk;
    const forwards = textOrientation === 1;
    if ((forwards ? chunk.spaceInFlowMin : textOrientation * chunk.spaceInFlowMin) <= width && width <= (forwards ? chunk.spaceInFlowMax : textOrientation * chunk.spaceInFlowMax)) {
      if (chunk.initialized) {
        this.resetLastChars();
        chunk.str.push(' ');
      }
      return false;
    }
    this.flush();
    this.resetLastChars();
    // pdf.js passes prevTransform in (made here only when used).
    this.pushWhitespace(Math.abs(width), Math.abs(0), this.prevTransform() || this.currentTransform());
    return true;
  }

  /**
   * pdf.js's compareWithLastPosition past its first steps, which the glyph loop has taken: the
   * glyph is on the page, at (posX, posY) — currentTransform()'s translation — and that is not
   * where the previous glyph ended.
   */
  private compareWithLastPosition(posX: number, posY: number, cur: number[], rotate: number, lastX: number, lastY: number): void {
    const chunk = this.chunk;
    // (lastX, lastY): the chunk's prevX and prevY, which the glyph loop holds. `cur`:
    // currentTransform()'s first four terms (transformPart()), `rotate` what rotationOf() reads in them.
    let lastPosX = lastX;
    let lastPosY = lastY;
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
        [lastPosX, lastPosY] = applyInverseRotation(lastPosX, lastPosY, this.prevTransform()!);
    }
    const advanceX = (posX - lastPosX) / chunk.textAdvanceScale;
    const advanceY = posY - lastPosY;
    const textOrientation = Math.sign(chunk.width);
    // 1 * v is v to the bit: for text running forwards (nearly all of it) the thresholds are read
    // as they are, without a multiplication (a number made) each.
    const forwards = textOrientation === 1;
    if (advanceX < (forwards ? chunk.negativeSpaceMax : textOrientation * chunk.negativeSpaceMax)) {
      if (Math.abs(advanceY) > 0.5 * chunk.height) {
        this.appendEOL();
        return;
      }
      this.resetLastChars();
      this.flush();
      return;
    }
    if (Math.abs(advanceY) > chunk.height) {
      this.appendEOL();
      return;
    }
    if (advanceX <= (forwards ? chunk.notASpace : textOrientation * chunk.notASpace)) this.resetLastChars();
    if (advanceX <= (forwards ? chunk.trackingSpaceMin : textOrientation * chunk.trackingSpaceMin)) {
      if (this.shouldAddWhitespace()) {
        this.resetLastChars();
        this.flush();
        this.pushWhitespace(Math.abs(advanceX), 0, this.prevTransform());
      } else chunk.width += advanceX;
    } else if (!this.addFakeSpaces(advanceX, textOrientation)) {
      if (chunk.str.length === 0) {
        this.resetLastChars();
        this.pushWhitespace(Math.abs(advanceX), 0, this.prevTransform());
      } else chunk.width += advanceX;
    }
    if (Math.abs(advanceY) > chunk.height * VERTICAL_SHIFT_RATIO) this.flush();
  }

  private buildTextContentItem(chars: string, extraSpacing: number): void {
    const state = this.state;
    const font = state.font!;
    if (!chars) {
      const charSpacing = state.charSpacing + extraSpacing;
      if (charSpacing) state.translateTextMatrix(charSpacing * state.textHScale, 0);
      return;
    }
    const glyphs = GLYPHS;
    const count = font.glyphs(chars, glyphs);
    const scale = FONT_SCALE * state.fontSize;
    const viewBox = this.viewBox;
    const chunk = this.chunk;
    const last = this.twoLastChars;
    // The text matrix stays the same array through this loop and only its translation moves: the
    // rest of it, and the rest of the text state, is read once. Each step is pdf.js's arithmetic,
    // term for term (translateTextMatrix(x, 0) keeps its `m[2] * 0`), inline for the common case;
    // the rare ones call the methods above.
    //
    // Until the loop optimizes, V8 boxes every floating-point result: a cold 10-page reading made
    // ~35 MB of them, and its garbage collection was half the reading's time. So:
    // - the translation is kept in locals (tx, ty), written back before any method reads the matrix;
    // - the glyph origin on the page (px, py: currentTransform()'s translation) is computed once per
    //   move, and serves both as this glyph's position and as the last glyph's end (prevTransform's
    //   translation), which pdf.js computes twice to the same bits;
    // - for axis-aligned text (below) the terms that multiply a zero are left out where that
    //   provably gives the same bits.
    const tm = state.textMatrix;
    const t0 = tm[0]!, t1 = tm[1]!, t2 = tm[2]!, t3 = tm[3]!;
    let tx = tm[4]!, ty = tm[5]!;
    const c = state.ctm, c0 = c[0]!, c1 = c[1]!, c2 = c[2]!, c3 = c[3]!, c4 = c[4]!, c5 = c[5]!;
    const rise = state.textRise, hScale = state.textHScale, baseSpacing = state.charSpacing, wordSpacing = state.wordSpacing;
    const vx0 = viewBox[0]!, vy0 = viewBox[1]!, vx1 = viewBox[2]!, vy1 = viewBox[3]!;
    // Axis-aligned: no rotation or skew in the text matrix or the CTM, no rise, all those terms
    // finite. Then every `0 * v` and `v * 0` of the formulas (v finite) is a signed zero, and a
    // signed zero added to a number that is not itself a zero leaves it as it is; so, for an
    // advance x that is finite (it carries the horizontal scaling already):
    //   tx' = t0*x + t2*0 + tx  = (t0*x) + tx         when t0*x ≠ 0 (any tx),
    //   ty' = t1*x + t3*0 + ty  = ty                  when ty ≠ 0,
    // and for tx and ty finite and nonzero:
    //   i4  = t0*0 + t2*rise + tx = tx,   i5 = t1*0 + t3*rise + ty = ty,
    //   px  = c0*i4 + c2*i5 + c4 = (c0*tx) + c4      when c0*tx ≠ 0,
    //   py  = c1*i4 + c3*i5 + c5 = (c3*ty) + c5      when c3*ty ≠ 0.
    // Anything else takes the full formulas (the guards below are these conditions, a little
    // stricter where that costs nothing).
    const axis = t1 === 0 && t2 === 0 && c1 === 0 && c2 === 0 && rise === 0 && isFinite(t0) && isFinite(t3) && isFinite(c0) && isFinite(c3) && isFinite(c4) && isFinite(c5);
    // The vertical terms of axis-aligned text depend on ty alone, which only the full formulas
    // below can change: whether an advance may take its short form (`yOk`: ty finite and nonzero),
    // and the glyph origin's y where it may (`axisPy` = (c3*ty) + c5 when `pyOk`: c3*ty ≠ 0), are
    // worked out here and again after each full formula, not once or twice per glyph. The same
    // conditions and the same bits as per glyph. The three lines are written out at each full
    // formula, as the advance is: a helper closing over these locals would move them into a
    // context object that every step of the loop then reads them through.
    let yOk = axis && ty !== 0 && isFinite(ty);
    let pyOk = yOk && c3 * ty !== 0;
    let axisPy = pyOk ? c3 * ty + c5 : 0;
    // x * 1 is x to the bit (signed zeros, infinities and NaN included): no multiplication when
    // the horizontal scaling is 1, as it nearly always is.
    const scaled = hScale !== 1;
    let part: number[] | undefined;
    /** rotationOf(part), once it has been needed. */
    let rotate: number | undefined;
    let px = 0, py = 0, havePos = false;
    let havePrev = chunk.prevPart !== null, prevX = chunk.prevX, prevY = chunk.prevY;
    for (let i = 0, ii = count; i < ii; i++) {
      const glyph = glyphs[i]!;
      const category = glyph.category;
      if (category.isInvisibleFormatMark) continue;
      let charSpacing = baseSpacing + (i + 1 === ii ? extraSpacing : 0);
      let scaledDim = glyph.width * scale;
      if (glyph.originalCharCode === 0x20) charSpacing += wordSpacing;
      // A glyph that adds no text here (white-space; off the page) only moves the text matrix, by `skip`.
      let skip: number | undefined;
      if (category.isWhitespace) {
        charSpacing += scaledDim;
        skip = scaled ? charSpacing * hScale : charSpacing;
        this.saveLastChar(' ');
      } else if (!category.isZeroWidthDiacritic) {
        // compareWithLastPosition's first steps: off the page, or exactly where the last glyph
        // ended; anything else takes the method.
        if (!havePos) {
          const cx = pyOk && tx !== 0 && isFinite(tx) ? c0 * tx : 0;
          if (cx !== 0) {
            px = cx + c4;
            py = axisPy;
          } else {
            const i4 = t0 * 0 + t2 * rise + tx;
            const i5 = t1 * 0 + t3 * rise + ty;
            px = c0 * i4 + c2 * i5 + c4;
            py = c1 * i4 + c3 * i5 + c5;
          }
          havePos = true;
        }
        if (px + scaledDim < vx0 || px > vx1 || py < vy0 || py > vy1) skip = scaled ? scaledDim * hScale : scaledDim;
        else if (havePrev && (prevX !== px || prevY !== py)) {
          tm[4] = tx;
          tm[5] = ty;
          part ??= this.transformPart();
          if (rotate === undefined) rotate = rotationOf(part);
          this.compareWithLastPosition(px, py, part, rotate, prevX, prevY);
        }
      }
      // The advance and the origin below are written out where they are needed rather than
      // called: an interpreted call per glyph (and an array to return two numbers) is what the
      // cold loop cannot afford.
      if (skip !== undefined) {
        const ax = yOk && isFinite(skip) ? t0 * skip : 0;
        if (ax !== 0) tx = ax + tx;
        else {
          tx = t0 * skip + t2 * 0 + tx;
          ty = t1 * skip + t3 * 0 + ty;
          yOk = axis && ty !== 0 && isFinite(ty);
          pyOk = yOk && c3 * ty !== 0;
          axisPy = pyOk ? c3 * ty + c5 : 0;
        }
        havePos = false;
        continue;
      }
      if (!chunk.initialized) {
        tm[4] = tx;
        tm[5] = ty;
        this.ensureItem();
      }
      if (category.isZeroWidthDiacritic) scaledDim = 0;
      if (scaled) scaledDim *= hScale;
      const ax = yOk && isFinite(scaledDim) ? t0 * scaledDim : 0;
      if (ax !== 0) tx = ax + tx;
      else {
        tx = t0 * scaledDim + t2 * 0 + tx;
        ty = t1 * scaledDim + t3 * 0 + ty;
        yOk = axis && ty !== 0 && isFinite(ty);
        pyOk = yOk && c3 * ty !== 0;
        axisPy = pyOk ? c3 * ty + c5 : 0;
      }
      chunk.width += scaledDim;
      if (scaledDim) {
        // prevTransform = currentTransform(), in parts (the translation as px, py above).
        const cx = pyOk && tx !== 0 && isFinite(tx) ? c0 * tx : 0;
        if (cx !== 0) {
          px = cx + c4;
          py = axisPy;
        } else {
          const i4 = t0 * 0 + t2 * rise + tx;
          const i5 = t1 * 0 + t3 * rise + ty;
          px = c0 * i4 + c2 * i5 + c4;
          py = c1 * i4 + c3 * i5 + c5;
        }
        havePos = true;
        havePrev = true;
        prevX = px;
        prevY = py;
        chunk.prevPart = part ??= this.transformPart();
        chunk.prevX = px;
        chunk.prevY = py;
        chunk.prevMat = null;
      } else havePos = false;
      const glyphUnicode = glyph.unicode;
      // saveLastChar, inline.
      const pos = this.twoLastCharsPos;
      const nextPos = (pos + 1) % 2;
      const addSpace = last[pos] !== ' ' && last[nextPos] === ' ';
      last[pos] = glyphUnicode;
      this.twoLastCharsPos = nextPos;
      if (addSpace) chunk.str.push(' ');
      chunk.str.push(glyphUnicode);
      if (charSpacing) {
        const x = scaled ? charSpacing * hScale : charSpacing;
        const ax = yOk && isFinite(x) ? t0 * x : 0;
        if (ax !== 0) tx = ax + tx;
        else {
          tx = t0 * x + t2 * 0 + tx;
          ty = t1 * x + t3 * 0 + ty;
          yOk = axis && ty !== 0 && isFinite(ty);
          pyOk = yOk && c3 * ty !== 0;
          axisPy = pyOk ? c3 * ty + c5 : 0;
        }
        havePos = false;
      }
    }
    tm[4] = tx;
    tm[5] = ty;
    // A very long string's glyphs are not kept for the rest of the process (the reader also runs
    // in `serve`): the scratch array goes back to empty past a few thousand.
    if (count > GLYPHS_KEPT) GLYPHS.length = 0;
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
    // Indexed, not for…of: cold, each step of an array iterator is a call and an object.
    const ops = this.ops;
    for (let k = 0, kk = ops.length; k < kk; k++) {
      const { op, args } = ops[k]!;
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
          const a = num(args[0]), b = num(args[1]), c = num(args[2]), d = num(args[3]), e = num(args[4]), f = num(args[5]);
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
          for (let e = 0; e < elements.length; e++) {
            const item = elements[e];
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

/**
 * compareWithLastPosition's reading of currentTransform()'s first four terms (`cur`): 0, 90, 180
 * or 270 for text along an axis, -1 for any other direction. The same for every glyph of one
 * string (the terms do not depend on the translation): worked out once per string.
 */
function rotationOf(cur: number[]): number {
  if (cur[0] && cur[1] === 0 && cur[2] === 0) return cur[0] > 0 ? 0 : 180;
  if (cur[1] && cur[0] === 0 && cur[3] === 0) return cur[1] > 0 ? 90 : 270;
  return -1;
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
