/**
 * What pdf.js's API half gets when, as it loads in Node, it requires `@napi-rs/canvas` to polyfill
 * `DOMMatrix`, `ImageData` and `Path2D` (scripts/build.mjs puts this call in place of that
 * require, in the bundled copy only: dist/pdfjs.cjs, which verity uses for text and metadata and
 * never to render). Loading the whole package loads its native Skia binding, ~15 ms on a quiet
 * extraction thread and 30–80 ms on a busy one, while pdf.js is being loaded and the job may be
 * waiting for it.
 *
 * - `DOMMatrix` is the package's own class, from its pure-JavaScript `geometry.js` (the very module
 *   its index re-exports): the same class as before, without the binding. pdf.js builds one at
 *   load and uses it while reading Type 3 fonts whose glyphs are image masks, so it must be real.
 * - `ImageData` and `Path2D` are the binding's classes, loaded on first use: constructing one (or
 *   an `instanceof` test against it) loads the package and answers with its own class. Only
 *   rendering uses them.
 *
 * The package is resolved by `req`: pdf.js's own require, rooted where pdf.js is installed.
 */
type Ctor = new (...args: unknown[]) => object;

export function canvasForText(req: (id: string) => unknown): { DOMMatrix: unknown; ImageData: unknown; Path2D: unknown } {
  let full: Record<string, Ctor> | undefined;
  const binding = (): Record<string, Ctor> => (full ??= req('@napi-rs/canvas') as Record<string, Ctor>);
  const onFirstUse = (name: 'ImageData' | 'Path2D'): Ctor => {
    const loaded = class {
      constructor(...args: unknown[]) {
        // The binding's own object, so nothing downstream can tell the difference.
        return new (binding()[name]!)(...args);
      }
      static [Symbol.hasInstance](value: unknown): boolean {
        return value instanceof binding()[name]!;
      }
    };
    Object.defineProperty(loaded, 'name', { value: name });
    return loaded as unknown as Ctor;
  };
  const { DOMMatrix } = req('@napi-rs/canvas/geometry') as { DOMMatrix: Ctor };
  return { DOMMatrix, ImageData: onFirstUse('ImageData'), Path2D: onFirstUse('Path2D') };
}
