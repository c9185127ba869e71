import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { type DocumentBlock, documentToMarkdown, documentToMarkdownPreserving, type JsonDocument, markdownToDocument } from "../src/index.js";
import { CORPUS, markdownArbitrary } from "./support/corpus.js";

const paragraph = (text: string): DocumentBlock => ({
  object: "block",
  type: "paragraph",
  data: {},
  nodes: [{ object: "text", leaves: [{ object: "leaf", text, marks: [] }] }],
});
const withBlocks = (document: JsonDocument, nodes: DocumentBlock[]): JsonDocument => ({ ...document, nodes });

/** What the page reads as, stored either way: the preserving writer never stores a different page. */
function expectSamePage(document: JsonDocument, previous: string): string {
  const kept = documentToMarkdownPreserving(document, previous);
  expect(markdownToDocument(kept)).toEqual(markdownToDocument(documentToMarkdown(document)));
  return kept;
}

/** A page in the spellings `documentToMarkdown` would change: `*` bullets, `---`, `__bold__`, a tight hint, an unpadded table, a reference link. */
const HANDWRITTEN = [
  "Intro with __strong__ words and a [reference link][docs].",
  "",
  "* one",
  "* two",
  "",
  "---",
  "",
  "|a|b|",
  "|-|-|",
  "|1|2|",
  "",
  '{% hint style="info" %}',
  "Keep this hint as written.",
  "{% endhint %}",
  "",
  "Second paragraph, the one edited.",
  "",
  "{% tabs %}",
  '{% tab title="A" %}',
  "* in a tab",
  "{% endtab %}",
  "{% endtabs %}",
  "",
  "[docs]: https://docs.example",
  "",
].join("\n");

describe("saving a document over its markdown", () => {
  it("changes only the lines of the block edited; every other block keeps its spelling", () => {
    const document = markdownToDocument(HANDWRITTEN);
    const edited = document.nodes.map((block, index) => (index === 5 ? paragraph("Second paragraph, now edited.") : block));
    expect(document.nodes[5]).toEqual(paragraph("Second paragraph, the one edited."));
    const kept = expectSamePage(withBlocks(document, edited), HANDWRITTEN);
    expect(kept).toBe(HANDWRITTEN.replace("Second paragraph, the one edited.", "Second paragraph, now edited."));
    // The whole page written anew would have respelled the untouched blocks.
    expect(documentToMarkdown(withBlocks(document, edited))).not.toContain("* one");
  });

  it("keeps the text around inserted, deleted and moved blocks", () => {
    const document = markdownToDocument(HANDWRITTEN);
    const [intro, list, divider, table, hint, second, tabs] = document.nodes as [DocumentBlock, ...DocumentBlock[]];
    const inserted = expectSamePage(withBlocks(document, [intro, paragraph("New first words."), list!, divider!, table!, hint!, second!, tabs!]), HANDWRITTEN);
    expect(inserted).toBe(HANDWRITTEN.replace("\n\n* one", "\n\nNew first words.\n\n* one"));
    const deleted = expectSamePage(withBlocks(document, [intro, list!, divider!, hint!, second!, tabs!]), HANDWRITTEN);
    expect(deleted).toBe(HANDWRITTEN.replace("|a|b|\n|-|-|\n|1|2|\n\n", ""));
    const moved = expectSamePage(withBlocks(document, [intro, list!, divider!, table!, second!, hint!, tabs!]), HANDWRITTEN);
    expect(moved).toBe(
      HANDWRITTEN.replace(
        '{% hint style="info" %}\nKeep this hint as written.\n{% endhint %}\n\nSecond paragraph, the one edited.',
        'Second paragraph, the one edited.\n\n{% hint style="info" %}\nKeep this hint as written.\n{% endhint %}',
      ),
    );
  });

  it("stores the page written whole where the kept text would read differently beside the new", () => {
    // A new list (written with `-`) right after a kept `-` list would join it.
    const previous = "- one\n- two\n\nend\n";
    const document = markdownToDocument(previous);
    const list = markdownToDocument("- three").nodes[0]!;
    const document2 = withBlocks(document, [document.nodes[0]!, list]);
    expect(expectSamePage(document2, previous)).toBe(documentToMarkdown(document2));
  });

  it.each(Object.entries(CORPUS).filter(([, markdown]) => markdown.trim() !== ""))("keeps %s as written when nothing changed", (_name, markdown) => {
    expect(expectSamePage(markdownToDocument(markdown), markdown)).toBe(`${markdown.replace(/\n+$/, "")}\n`);
  });

  it.each(Object.entries(CORPUS).filter(([, markdown]) => markdown.trim() !== ""))(
    "stores the edited page of %s, each block edited in turn",
    (_name, markdown) => {
      const document = markdownToDocument(markdown);
      for (const [index] of document.nodes.entries()) {
        const edited = document.nodes.map((block, at) => (at === index ? paragraph(`edited block ${index}`) : block));
        const kept = expectSamePage(withBlocks(document, edited), markdown);
        expect(kept).toContain(`edited block ${index}`);
      }
    },
  );

  it("stores the page it was given for any markdown and any edit (property)", () => {
    fc.assert(
      fc.property(markdownArbitrary, fc.nat(), fc.constantFrom("replace", "delete", "insert", "swap"), (markdown, pick, edit) => {
        const document = markdownToDocument(markdown);
        const nodes = [...document.nodes];
        const at = nodes.length === 0 ? 0 : pick % nodes.length;
        if (edit === "replace" && nodes.length > 0) nodes[at] = paragraph("replaced");
        else if (edit === "delete") nodes.splice(at, 1);
        else if (edit === "insert") nodes.splice(at, 0, paragraph("inserted"));
        else if (nodes.length > 1) nodes.splice(at, 2, ...nodes.slice(at, at + 2).reverse());
        expectSamePage(withBlocks(document, nodes), markdown);
      }),
      { numRuns: 120 },
    );
  }, 60_000);
});
