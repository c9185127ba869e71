/** What the reader uses of opentype.js 2 (it ships no types; DefinitelyTyped's pull the DOM library into the build). */
declare module "opentype.js" {
  interface Path {
    toPathData(decimalPlaces?: number): string;
  }
  interface Glyph {
    index: number;
    advanceWidth?: number;
    getPath(x: number, y: number, fontSize: number): Path;
  }
  interface Font {
    unitsPerEm: number;
    charToGlyph(character: string): Glyph;
  }
  function parse(buffer: ArrayBuffer): Font;
  const opentype: { parse: typeof parse };
  export type { Font, Glyph, Path };
  export { parse };
  export default opentype;
}
