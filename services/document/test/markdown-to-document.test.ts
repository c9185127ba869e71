import { describe, expect, it } from "vitest";
import { contentRefFor, markdownToDocument, type DocumentBlock, type DocumentText } from "../src/index.js";

/** The only block of a one-block document. */
function only(markdown: string): DocumentBlock {
  const document = markdownToDocument(markdown);
  expect(document.nodes).toHaveLength(1);
  return document.nodes[0]!;
}

/** Leaves of a block's text nodes as [text, marks]. */
function leaves(block: DocumentBlock): [string, string[]][] {
  return (block.nodes ?? [])
    .filter((node): node is DocumentText => node.object === "text")
    .flatMap((node) => node.leaves.map((leaf): [string, string[]] => [leaf.text, leaf.marks.map((mark) => mark.type)]));
}

describe("markdown → document", () => {
  it("wraps blocks in a document", () => {
    const document = markdownToDocument("Hello world");
    expect(document).toEqual({
      object: "document",
      data: {},
      nodes: [{ object: "block", type: "paragraph", data: {}, nodes: [{ object: "text", leaves: [{ object: "leaf", text: "Hello world", marks: [] }] }] }],
    });
  });

  it("paragraph: text leaves with bold, italic, code and strikethrough marks", () => {
    expect(leaves(only("a **b** _c_ `d` ~~e~~ ***f***"))).toEqual([
      ["a ", []],
      ["b", ["bold"]],
      [" ", []],
      ["c", ["italic"]],
      [" ", []],
      ["d", ["code"]],
      [" ", []],
      ["e", ["strikethrough"]],
      [" ", []],
      ["f", ["italic", "bold"]],
    ]);
  });

  it("hard line breaks become newlines in the text, one leaf with its neighbours of the same marks", () => {
    expect(leaves(only("one  \ntwo"))).toEqual([["one\ntwo", []]]);
    expect(leaves(only("**one**  \n**two** three"))).toEqual([
      ["one", ["bold"]],
      ["\n", []],
      ["two", ["bold"]],
      [" three", []],
    ]);
  });

  it("headings: depth 1 to 3 map to heading-1..3, deeper ones to heading-3, with an id slug", () => {
    const document = markdownToDocument("# Getting Started\n\n## Install\n\n### Run\n\n#### Deep\n\n## Install");
    expect(document.nodes.map((node) => [node.type, node.data])).toEqual([
      ["heading-1", { id: "getting-started" }],
      ["heading-2", { id: "install" }],
      ["heading-3", { id: "run" }],
      ["heading-3", { id: "deep" }],
      ["heading-2", { id: "install-1" }],
    ]);
  });

  it("unordered lists hold list items holding blocks (nested lists included)", () => {
    const list = only("- one\n- two\n  - nested");
    expect(list.type).toBe("list-unordered");
    const items = list.nodes as DocumentBlock[];
    expect(items.map((item) => item.type)).toEqual(["list-item", "list-item"]);
    expect((items[1]!.nodes as DocumentBlock[]).map((node) => node.type)).toEqual(["paragraph", "list-unordered"]);
  });

  it("ordered lists keep their start number", () => {
    expect(only("1. a\n2. b").data).toEqual({});
    const list = only("3. c\n4. d");
    expect(list.type).toBe("list-ordered");
    expect(list.data).toEqual({ start: 3 });
  });

  it("task lists become list-tasks with checked items", () => {
    const list = only("- [x] done\n- [ ] todo");
    expect(list.type).toBe("list-tasks");
    expect((list.nodes as DocumentBlock[]).map((item) => item.data)).toEqual([{ checked: true }, { checked: false }]);
  });

  it("fenced code becomes a code block of code lines with the syntax", () => {
    const code = only("```ts\nconst a = 1;\nconst b = 2;\n```");
    expect(code.type).toBe("code");
    expect(code.data).toEqual({ syntax: "ts" });
    expect((code.nodes as DocumentBlock[]).map((line) => [line.type, leaves(line)[0]![0]])).toEqual([
      ["code-line", "const a = 1;"],
      ["code-line", "const b = 2;"],
    ]);
  });

  it("blockquotes hold blocks; a code block inside a quote is degraded to code-marked text", () => {
    const quote = only("> quoted **text**\n>\n> ```\n> x\n> ```");
    expect(quote.type).toBe("blockquote");
    const [paragraph, codeParagraph] = quote.nodes as DocumentBlock[];
    expect(leaves(paragraph!)).toEqual([
      ["quoted ", []],
      ["text", ["bold"]],
    ]);
    expect(codeParagraph!.type).toBe("paragraph");
    expect(leaves(codeParagraph!)).toEqual([["x", ["code"]]]);
  });

  it("GitHub alerts become hints with a style", () => {
    const hint = only("> [!WARNING]\n> Be careful");
    expect(hint.type).toBe("hint");
    expect(hint.data).toEqual({ style: "warning" });
    expect(leaves((hint.nodes as DocumentBlock[])[0]!)).toEqual([["Be careful", []]]);
    expect(only("> [!TIP]\n> Try this").data).toEqual({ style: "success" });
  });

  it("thematic breaks become dividers", () => {
    const document = markdownToDocument("a\n\n---\n\nb");
    expect(document.nodes[1]).toEqual({ object: "block", type: "divider", isVoid: true, data: {} });
  });

  it("links become inline link nodes with a reference: URL, page, file or anchor", () => {
    const paragraph = only("[site](https://example.com) [page](/pages/abc123) [file](/files/f1) [here](#setup) [there](/pages/p2#intro)");
    const links = (paragraph.nodes ?? []).filter((node) => node.object === "inline");
    expect(links.map((link) => (link as { data: unknown }).data)).toEqual([
      { ref: { kind: "url", url: "https://example.com" } },
      { ref: { kind: "page", page: "abc123" } },
      { ref: { kind: "file", file: "f1" } },
      { ref: { kind: "anchor", anchor: "setup" } },
      { ref: { kind: "anchor", anchor: "intro", page: "p2" } },
    ]);
    const first = links[0] as { nodes: DocumentText[] };
    expect(first.nodes[0]!.leaves[0]!.text).toBe("site");
  });

  it("reference-style links resolve through their definitions", () => {
    const paragraph = only("See [the docs][docs].\n\n[docs]: https://example.com/docs");
    const link = (paragraph.nodes ?? []).find((node) => node.object === "inline") as { data: { ref: unknown } };
    expect(link.data.ref).toEqual({ kind: "url", url: "https://example.com/docs" });
  });

  it("a paragraph of images becomes an images block; an image in text stays inline", () => {
    const images = only("![Logo](/files/logo1) ![Photo](https://example.com/p.png)");
    expect(images.type).toBe("images");
    expect((images.nodes as DocumentBlock[]).map((image) => image.data)).toEqual([
      { ref: { kind: "file", file: "logo1" }, alt: "Logo" },
      { ref: { kind: "url", url: "https://example.com/p.png" }, alt: "Photo" },
    ]);
    const inline = only("Look ![icon](/files/i1) here");
    expect(inline.type).toBe("paragraph");
    expect((inline.nodes ?? []).find((node) => node.object === "inline")).toMatchObject({ type: "inline-image", isVoid: true, data: { ref: { kind: "file", file: "i1" } } });
  });

  it("GFM tables become table blocks: text columns, one record per row, cells in fragments", () => {
    const table = only("| Name | Age |\n|:-----|----:|\n| Ann | **31** |\n| Bob | 42 |");
    expect(table.type).toBe("table");
    const data = table.data as { view: { columns: string[] }; definition: Record<string, { title: string; textAlignment: string }>; records: Record<string, { values: Record<string, string> }> };
    expect(data.view.columns).toEqual(["c0", "c1"]);
    expect(Object.values(data.definition).map((column) => [column.title, column.textAlignment])).toEqual([
      ["Name", "left"],
      ["Age", "right"],
    ]);
    const records = Object.values(data.records);
    expect(records).toHaveLength(2);
    const fragments = new Map(table.fragments!.map((fragment) => [fragment.fragment, fragment]));
    const cell = fragments.get(records[0]!.values.c1!)!;
    expect(leaves(cell.nodes[0]!)).toEqual([["31", ["bold"]]]);
  });

  it("raw HTML is kept as text rather than dropped", () => {
    expect(leaves(only("<div>hi</div>"))).toEqual([["<div>hi</div>", []]]);
  });

  it("an empty body is an empty document", () => {
    expect(markdownToDocument("")).toEqual({ object: "document", data: {}, nodes: [] });
  });

  it("classifies link targets", () => {
    expect(contentRefFor("/pages/x")).toEqual({ kind: "page", page: "x" });
    expect(contentRefFor("/pages/../etc")).toEqual({ kind: "url", url: "/pages/../etc" });
  });
});
