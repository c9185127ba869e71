import type { Element, ElementContent } from "hast";
import { fromHtml } from "hast-util-from-html";
import { h } from "hastscript";
import katex from "katex";

/**
 * A TeX formula as MathML, rendered on the server by KaTeX: browsers draw MathML natively, so a
 * page with math needs no script, stylesheet or font of KaTeX's. KaTeX's `trust` stays off (no
 * `\href`, `\url`, `\htmlClass`…), so the markup holds no link, class or style from the formula. A
 * formula KaTeX cannot read is its source in `<code class="math-error">`, never an error.
 */

/** Formulas longer than this are shown as their source (rendering is fast, but a page must stay fast whatever it holds). */
const MAX_FORMULA_CHARACTERS = 10_000;

/** `formula` as MathML (`display`: a block, else inline in text), wrapped in KaTeX's `<span class="katex">`. */
export function formulaToHast(formula: string, display: boolean): ElementContent[] {
  let markup: string;
  try {
    if (formula.length > MAX_FORMULA_CHARACTERS) throw new Error("formula too long");
    markup = katex.renderToString(formula, { displayMode: display, output: "mathml", throwOnError: true, strict: false, trust: false, maxExpand: 1000 });
  } catch {
    return [h("code.math-error", { title: "This formula could not be read" }, formula)];
  }
  return fromHtml(markup, { fragment: true }).children.filter((child): child is Element => child.type === "element");
}
