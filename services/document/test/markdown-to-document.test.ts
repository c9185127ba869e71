import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { contentRefFor, documentToMarkdown, markdownToDocument, mdastToDocument, parseMarkdown, type DocumentBlock, type DocumentText } from "../src/index.js";

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

/** The text of a block's inline content (marks dropped, links' text included). */
const textOf = (block: { nodes?: unknown[] }): string =>
  ((block.nodes ?? []) as (DocumentText | { object: "inline"; nodes?: unknown[] })[])
    .map((node) => (node.object === "text" ? node.leaves.map((leaf) => leaf.text).join("") : textOf(node)))
    .join("");
/** [type, text] of each block, for paragraphs and headings their text, else "". */
const outline = (blocks: readonly unknown[] | undefined): [string, string][] =>
  ((blocks ?? []) as DocumentBlock[]).map((block) => [block.type, block.type === "paragraph" || block.type.startsWith("heading") ? textOf(block) : ""]);
const fragment = (block: DocumentBlock, name: string) => block.fragments!.find((candidate) => candidate.fragment === name)!;

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

  it("a code block of several lines in a quote: one paragraph of code-marked lines (blank ones dropped); a blank one leaves nothing", () => {
    const quote = only("> text\n>\n> ```\n> one\n>\n> two\n> ```\n>\n> ```\n> ```");
    expect(outline(quote.nodes)).toEqual([
      ["paragraph", "text"],
      ["paragraph", "one\ntwo"],
    ]);
    expect(leaves((quote.nodes as DocumentBlock[])[1]!)).toEqual([
      ["one", ["code"]],
      ["\n", []],
      ["two", ["code"]],
    ]);
  });

  it("a table in a quote: a paragraph per row, the cells' content (links, marks) joined by ' | '", () => {
    const quote = only("> | a | [b](https://b.example) |\n> |---|---|\n> | | **c** |");
    expect(outline(quote.nodes)).toEqual([
      ["paragraph", "a | b"],
      ["paragraph", "| c"],
    ]);
    expect((quote.nodes as DocumentBlock[])[0]!.nodes![1]).toMatchObject({ type: "link", data: { ref: { kind: "url", url: "https://b.example" } } });
  });

  it("GitHub alerts become hints with a style", () => {
    const hint = only("> [!WARNING]\n> Be careful");
    expect(hint.type).toBe("hint");
    expect(hint.data).toEqual({ style: "warning" });
    expect(leaves((hint.nodes as DocumentBlock[])[0]!)).toEqual([["Be careful", []]]);
    expect(only("> [!TIP]\n> Try this").data).toEqual({ style: "success" });
  });

  it("an escaped alert marker is the quote's text, not a hint", () => {
    const quote = only("> \\[!TIP]\n> Try this");
    expect(quote.type).toBe("blockquote");
    expect(leaves((quote.nodes as DocumentBlock[])[0]!)).toEqual([["[!TIP]\nTry this", []]]);
    // A quote whose first paragraph reads "[!TIP]" (here a table's header row) round trips as a quote.
    const fromTable = markdownToDocument("> [!TIP]\n> -|");
    expect(markdownToDocument(documentToMarkdown(fromTable))).toEqual(fromTable);
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
    expect((inline.nodes ?? []).find((node) => node.object === "inline")).toMatchObject({
      type: "inline-image",
      isVoid: true,
      data: { ref: { kind: "file", file: "i1" } },
    });
  });

  it("GFM tables become table blocks: text columns, one record per row, cells in fragments", () => {
    const table = only("| Name | Age |\n|:-----|----:|\n| Ann | **31** |\n| Bob | 42 |");
    expect(table.type).toBe("table");
    const data = table.data as {
      view: { columns: string[] };
      definition: Record<string, { title: string; textAlignment: string }>;
      records: Record<string, { values: Record<string, string> }>;
    };
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

describe("markdown → document: GitBook's tabs, expandables, embeds and math", () => {
  it("tabs: {% tabs %} holding {% tab title %} … {% endtab %}, as GitBook writes them (no blank lines needed)", () => {
    const tabs = only(
      [
        "{% tabs %}",
        '{% tab title="Windows" %}',
        "Run the **installer**.",
        "{% endtab %}",
        "",
        '{% tab title="Linux" %}',
        "```sh",
        "apt install imprint",
        "```",
        "## Next",
        "{% endtab %}",
        "{% endtabs %}",
      ].join("\n"),
    );
    expect(tabs).toMatchObject({ object: "block", type: "tabs", data: {} });
    const [windows, linux] = tabs.nodes as DocumentBlock[];
    expect(windows).toMatchObject({ type: "tabs-item", data: { title: "Windows" } });
    expect(leaves((windows!.nodes as DocumentBlock[])[0]!)).toEqual([
      ["Run the ", []],
      ["installer", ["bold"]],
      [".", []],
    ]);
    expect(linux!.data).toEqual({ title: "Linux" });
    expect(outline(linux!.nodes)).toEqual([
      ["code", ""],
      ["heading-2", "Next"],
    ]);
  });

  it("tabs: lines between markers are paragraphs of their own, a hard break before a marker ends the line only", () => {
    const tabs = only('{% tabs %}\n{% tab title="A" %}\none  \ntwo\\\n{% endtab %}\n{% endtabs %}');
    expect(leaves(((tabs.nodes as DocumentBlock[])[0]!.nodes as DocumentBlock[])[0]!)).toEqual([["one\ntwo", []]]);
  });

  it("tabs: a tag right after a list or a quote (a lazy continuation line to markdown) still closes the tab", () => {
    const tabs = only(
      '{% tabs %}\n{% tab title="A" %}\n- item\n{% endtab %}\n\n{% tab title="B" %}\n> [!NOTE]\n> {% embed url="https://example.com" %}\n{% endtab %}\n\n{% tab title="C" %}\n> - deep\n{% endtab %}\n{% endtabs %}',
    );
    const [a, b, c] = tabs.nodes as DocumentBlock[];
    expect(outline(a!.nodes)).toEqual([["list-unordered", ""]]);
    expect(outline(((a!.nodes as DocumentBlock[])[0]!.nodes as DocumentBlock[])[0]!.nodes)).toEqual([["paragraph", "item"]]);
    expect(b!.nodes).toEqual([
      {
        object: "block",
        type: "hint",
        data: { style: "info" },
        nodes: [{ object: "block", type: "embed", isVoid: true, data: { url: "https://example.com" } }],
      },
    ]);
    expect(outline(c!.nodes)).toEqual([["blockquote", ""]]);
    // A tag that closes nothing stays in the list item's text, as before.
    const list = only("- item\n{% endtab %}");
    expect(outline((list.nodes as DocumentBlock[])[0]!.nodes)).toEqual([["paragraph", "item\n{% endtab %}"]]);
  });

  it("tabs: titles are read as written (markdown and entities for quotes), an empty tab holds an empty paragraph", () => {
    const tabs = only('{% tabs %}\n{% tab title="a *b* \\c &quot;d&quot; &amp;quot;" %}\n{% endtab %}\n{% tab %}\n\n{% endtab %}\n{% endtabs %}');
    const items = tabs.nodes as DocumentBlock[];
    expect(items.map((item) => item.data)).toEqual([{ title: 'a *b* \\c "d" &quot;' }, { title: "" }]);
    expect(items[0]!.nodes).toEqual([
      { object: "block", type: "paragraph", data: {}, nodes: [{ object: "text", leaves: [{ object: "leaf", text: "", marks: [] }] }] },
    ]);
  });

  it("tabs hold what GitBook allows in a tab: embeds, math, hints, images; a table or an expandable is degraded", () => {
    const tabs = only(
      [
        "{% tabs %}",
        '{% tab title="One" %}',
        '{% embed url="https://example.com/video" %}',
        "",
        "$$",
        "E = mc^2",
        "$$",
        "",
        "> [!TIP]",
        "> tip",
        "",
        "![pic](https://example.com/p.png)",
        "",
        "| a | b |",
        "|---|---|",
        "| 1 | 2 |",
        "",
        "<details>",
        "<summary>Inner</summary>",
        "",
        "inner body",
        "",
        "</details>",
        "{% endtab %}",
        "{% endtabs %}",
      ].join("\n"),
    );
    // `{% endtab %}` right after `</details>` is inside the same HTML block: still read as a tag.
    expect(outline((tabs.nodes as DocumentBlock[])[0]!.nodes)).toEqual([
      ["embed", ""],
      ["math", ""],
      ["hint", ""],
      ["images", ""],
      ["paragraph", "a | b"],
      ["paragraph", "1 | 2"],
      ["paragraph", "Inner"],
      ["paragraph", "inner body"],
    ]);
    const [embed, math] = (tabs.nodes as DocumentBlock[])[0]!.nodes as DocumentBlock[];
    expect(embed).toEqual({ object: "block", type: "embed", isVoid: true, data: { url: "https://example.com/video" } });
    expect(math).toEqual({ object: "block", type: "math", isVoid: true, data: { formula: "E = mc^2" } });
  });

  it("expandable: <details> with a <summary> title and a markdown body, in GitBook's fragments", () => {
    const expandable = only("<details>\n\n<summary>Why &amp; how?</summary>\n\nBecause **reasons**.\n\n```js\nx();\n```\n\n| a |\n|---|\n| 1 |\n\n</details>");
    expect(expandable).toMatchObject({ object: "block", type: "expandable", isVoid: true, data: {} });
    expect(expandable.nodes).toBeUndefined();
    expect(expandable.fragments!.map((item) => [item.fragment, item.type])).toEqual([
      ["expandable-title", "expandable-title"],
      ["expandable-body", "expandable-body"],
    ]);
    expect(outline(fragment(expandable, "expandable-title").nodes)).toEqual([["paragraph", "Why & how?"]]);
    expect(outline(fragment(expandable, "expandable-body").nodes)).toEqual([
      ["paragraph", "Because reasons."],
      ["code", ""],
      ["table", ""],
    ]);
  });

  it("expandable: the summary on the <details> line or the next, `open`, markup and entities in the summary, an empty body", () => {
    for (const markdown of [
      "<details><summary>T</summary>\n\nbody\n</details>",
      "<details>\n<summary>T</summary>\n\nbody\n\n</details>",
      "<details>\n\n<summary>\nT\n</summary>\n\nbody\n\n</details>",
    ]) {
      const expandable = only(markdown);
      expect(outline(fragment(expandable, "expandable-title").nodes)).toEqual([["paragraph", "T"]]);
      expect(outline(fragment(expandable, "expandable-body").nodes)).toEqual([["paragraph", "body"]]);
    }
    const open = only("<details open>\n<summary><b>Bold</b> &lt;tag&gt; &#x41;</summary>\n\n</details>");
    expect(open.data).toEqual({ defaultExpanded: true });
    expect(outline(fragment(open, "expandable-title").nodes)).toEqual([["paragraph", "Bold <tag> A"]]);
    expect(outline(fragment(open, "expandable-body").nodes)).toEqual([["paragraph", ""]]);
    expect(outline(fragment(only("<details>\n\nno summary\n\n</details>"), "expandable-title").nodes)).toEqual([["paragraph", ""]]);
  });

  it("an expandable holds no tabs, embed, math or expandable (GitBook's schema): they are degraded, and tabs hold no expandable", () => {
    const expandable = only(
      [
        "<details>",
        "<summary>Outer</summary>",
        "",
        "{% tabs %}",
        '{% tab title="Tab" %}',
        "in tab",
        "{% endtab %}",
        "{% endtabs %}",
        "",
        '{% embed url="https://example.com" %}',
        "",
        "$$",
        "x",
        "$$",
        "",
        "<details>",
        "<summary>Inner</summary>",
        "",
        "inner",
        "",
        "</details>",
        "",
        "</details>",
      ].join("\n"),
    );
    expect(outline(fragment(expandable, "expandable-body").nodes)).toEqual([
      ["paragraph", "Tab"],
      ["paragraph", "in tab"],
      ["paragraph", "https://example.com"],
      ["paragraph", "$$\nx\n$$"],
      ["paragraph", "Inner"],
      ["paragraph", "inner"],
    ]);
    const [tabTitle, , link] = fragment(expandable, "expandable-body").nodes;
    expect(leaves(tabTitle!)).toEqual([["Tab", ["bold"]]]);
    expect(link!.nodes![0]).toMatchObject({ object: "inline", type: "link", data: { ref: { kind: "url", url: "https://example.com" } } });
  });

  it("headings inside tabs and expandables get ids from the same slugs as the rest of the page", () => {
    const document = markdownToDocument(
      '## Setup\n\n{% tabs %}\n{% tab title="A" %}\n## Setup\n{% endtab %}\n{% endtabs %}\n\n<details>\n<summary>S</summary>\n\n## Setup\n\n</details>',
    );
    const [, tabs, expandable] = document.nodes;
    expect(((tabs!.nodes as DocumentBlock[])[0]!.nodes as DocumentBlock[])[0]!.data).toEqual({ id: "setup-1" });
    expect(fragment(expandable!, "expandable-body").nodes[0]!.data).toEqual({ id: "setup-2" });
  });

  it("embed: {% embed url %}; a caption ({% endembed %} form) is not in GitBook's schema and stays as the text after it", () => {
    expect(only('{% embed url="https://www.youtube.com/watch?v=a_b*c*" %}')).toEqual({
      object: "block",
      type: "embed",
      isVoid: true,
      data: { url: "https://www.youtube.com/watch?v=a_b*c*" },
    });
    expect(only('{% embed url="<https://example.com/x>" %}').data).toEqual({ url: "https://example.com/x" });
    const document = markdownToDocument('{% embed url="https://example.com/x" %}\nThe **caption**\n{% endembed %}\n\nafter');
    expect(outline(document.nodes)).toEqual([
      ["embed", ""],
      ["paragraph", "The caption"],
      ["paragraph", "after"],
    ]);
  });

  it('hint: {% hint style="…" %} … {% endhint %}, GitBook\'s spelling, with its style; blank lines between the markers optional', () => {
    const hint = only('{% hint style="warning" %}\nBe **careful**.\n\n- one\n- two\n{% endhint %}');
    expect(hint).toMatchObject({ type: "hint", data: { style: "warning" } });
    expect(outline(hint.nodes)).toEqual([
      ["paragraph", "Be careful."],
      ["list-unordered", ""],
    ]);
    for (const style of ["info", "success", "danger"]) expect(only(`{% hint style="${style}" %}\n\nx\n\n{% endhint %}`).data).toEqual({ style });
    expect(outline(only('{% hint style="info" %}\n{% endhint %}').nodes)).toEqual([["paragraph", ""]]);
  });

  it("hint: kept in list items, tabs and expandables; a hint holds what GitBook allows (embeds, no code); in a quote or a hint, its content", () => {
    const item = only('- item\n\n  {% hint style="success" %}\n  in an item\n  {% endhint %}');
    expect(outline((item.nodes as DocumentBlock[])[0]!.nodes)).toEqual([
      ["paragraph", "item"],
      ["hint", ""],
    ]);
    const tab = only('{% tabs %}\n{% tab title="A" %}\n{% hint style="info" %}\nin a tab\n{% endhint %}\n{% endtab %}\n{% endtabs %}');
    expect(outline((tab.nodes as DocumentBlock[])[0]!.nodes)).toEqual([["hint", ""]]);
    const expandable = only('<details>\n<summary>T</summary>\n\n{% hint style="info" %}\nin an expandable\n{% endhint %}\n\n</details>');
    expect(outline(fragment(expandable, "expandable-body").nodes)).toEqual([["hint", ""]]);
    const inside = only('{% hint style="info" %}\n{% embed url="https://example.com/a" %}\n\n```js\ncode\n```\n{% endhint %}');
    expect(inside.nodes).toEqual([
      { object: "block", type: "embed", isVoid: true, data: { url: "https://example.com/a" } },
      {
        object: "block",
        type: "paragraph",
        data: {},
        nodes: [{ object: "text", leaves: [{ object: "leaf", text: "code", marks: [{ object: "mark", type: "code" }] }] }],
      },
    ]);
    expect(outline(only('> {% hint style="info" %}\n> quoted\n> {% endhint %}').nodes)).toEqual([["paragraph", "quoted"]]);
    const nested = only('{% hint style="info" %}\nouter\n\n{% hint style="danger" %}\ninner\n{% endhint %}\n{% endhint %}');
    expect(outline(nested.nodes)).toEqual([
      ["paragraph", "outer"],
      ["paragraph", "inner"],
    ]);
  });

  it("stepper: {% stepper %} holding {% step %} … {% endstep %}, GitBook's stepper of stepper-step blocks; a step holds what GitBook allows", () => {
    const stepper = only(
      "{% stepper %}\n{% step %}\n### One\n\nFirst.\n{% endstep %}\n\n{% step %}\n<details>\n<summary>More</summary>\n\nx\n\n</details>\n\n| a |\n|---|\n| b |\n\n{% endstep %}\n{% endstepper %}",
    );
    expect(stepper).toMatchObject({ type: "stepper", data: {} });
    expect((stepper.nodes as DocumentBlock[]).map((step) => [step.type, outline(step.nodes)])).toEqual([
      [
        "stepper-step",
        [
          ["heading-3", "One"],
          ["paragraph", "First."],
        ],
      ],
      [
        "stepper-step",
        [
          ["expandable", ""],
          ["paragraph", "a"],
          ["paragraph", "b"],
        ],
      ],
    ]);
    // Where GitBook allows no stepper (a tab, a list item), the steps' content stands in its place.
    const tab = only('{% tabs %}\n{% tab title="T" %}\n{% stepper %}\n{% step %}\nin a tab\n{% endstep %}\n{% endstepper %}\n{% endtab %}\n{% endtabs %}');
    expect(outline((tab.nodes as DocumentBlock[])[0]!.nodes)).toEqual([["paragraph", "in a tab"]]);
  });

  it("conditional content: {% if <expression> %} … {% endif %} is GitBook's if block (its expression as written), top level only", () => {
    const document = markdownToDocument(
      '{% if visitor.claims.plan === "pro" %}\n## Pro\n\n{% if visitor.claims.unsigned.beta %}\nbeta too\n{% endif %}\n{% endif %}\n\n{% if a %}\n{% endif %}',
    );
    expect(document.nodes.map((node) => [node.type, node.data])).toEqual([
      ["if", { expression: 'visitor.claims.plan === "pro"' }],
      ["if", { expression: "a" }],
    ]);
    const [pro, empty] = document.nodes as [DocumentBlock, DocumentBlock];
    expect(outline(pro.nodes)).toEqual([
      ["heading-2", "Pro"],
      ["if", ""],
    ]);
    expect(outline((pro.nodes as DocumentBlock[])[1]!.nodes)).toEqual([["paragraph", "beta too"]]);
    expect(outline(empty.nodes)).toEqual([["paragraph", ""]]);
    // GitBook allows conditions at the top level only: in a list item or a tab, the blocks stand in its place.
    const item = only("- {% if a %}\n  in an item\n  {% endif %}");
    expect(outline((item.nodes as DocumentBlock[])[0]!.nodes as DocumentBlock[])).toEqual([["paragraph", "in an item"]]);
    // Without an expression, or without its end, the tag is the text it was.
    expect(outline(markdownToDocument("{% if %}\nx\n{% endif %}").nodes)).toEqual([["paragraph", "{% if %}\nx\n{% endif %}"]]);
    expect(outline(markdownToDocument("{% if a %}\nx").nodes)).toEqual([["paragraph", "{% if a %}\nx"]]);
    // Written back as read.
    expect(markdownToDocument(documentToMarkdown(document))).toEqual(document);
  });

  it("columns: {% columns %} holding {% column width %} … {% endcolumn %} is GitBook's columns of column blocks; updates: {% updates format %} of dated, tagged {% update %}", () => {
    const columns = only(
      '{% columns %}\n{% column width="66.5%" %}\nleft\n{% endcolumn %}\n\n{% column %}\n{% tabs %}\n{% tab title="T" %}\nx\n{% endtab %}\n{% endtabs %}\n{% endcolumn %}\n{% endcolumns %}',
    );
    expect(columns).toMatchObject({ type: "columns", isVoid: false, data: {} });
    const [left, right] = columns.nodes as [DocumentBlock, DocumentBlock];
    expect([left.type, left.data, outline(left.nodes)]).toEqual(["column", { width: { unit: "%", value: 66.5 } }, [["paragraph", "left"]]]);
    // A column holds no tabs (GitBook's schema): the tab's title and content stand in their place.
    expect([right.data, outline(right.nodes)]).toEqual([
      {},
      [
        ["paragraph", "T"],
        ["paragraph", "x"],
      ],
    ]);
    expect(only('{% columns %}\n{% column width="2" %}\n{% endcolumn %}\n{% endcolumns %}').nodes![0]).toMatchObject({ data: { width: 2 } });

    const updates = only(
      '{% updates format="short" %}\n{% update date="2025-12-25" tags="beta, api" %}\n## New\n{% endupdate %}\n{% update date="2025-12-24T10:30:00+02:00" %}\nolder\n{% endupdate %}\n{% endupdates %}',
    );
    expect(updates).toMatchObject({ type: "updates", data: { format: "short" } });
    const [first, second] = updates.nodes as [DocumentBlock, DocumentBlock];
    expect([first.type, first.data, outline(first.nodes)]).toEqual([
      "update",
      {
        date: "2025-12-25T00:00:00.000Z",
        tags: [
          { kind: "tag", tag: "beta" },
          { kind: "tag", tag: "api" },
        ],
      },
      [["heading-2", "New"]],
    ]);
    expect(second.data).toEqual({ date: "2025-12-24T08:30:00.000Z" });
    expect(only("{% updates %}\n{% endupdates %}").data).toEqual({ format: "full" });
    // Written back as GitBook writes them (a day at midnight as the day).
    const written = documentToMarkdown({ object: "document", data: {}, nodes: [columns, updates] });
    expect(written).toContain('{% column width="66.5%" %}');
    expect(written).toContain('{% updates format="short" %}\n{% update date="2025-12-25" tags="beta,api" %}');
    expect(written).toContain('{% update date="2025-12-24T08:30:00.000Z" %}');
    // Below the top level (a list item): columns are their content, updates their days and content.
    const item = only('- {% updates %}\n  {% update date="2025-01-02" %}\n  shipped\n  {% endupdate %}\n  {% endupdates %}');
    expect(outline((item.nodes as DocumentBlock[])[0]!.nodes as DocumentBlock[])).toEqual([
      ["paragraph", "2025-01-02"],
      ["paragraph", "shipped"],
    ]);
    // A bad date, format, width or tag, or anything outside a column: the tags are the text they were.
    for (const markdown of [
      '{% updates %}\n{% update date="yesterday" %}\nx\n{% endupdate %}\n{% endupdates %}',
      '{% updates format="long" %}\n{% endupdates %}',
      '{% updates %}\n{% update date="2025-01-01" tags="a b" %}\nx\n{% endupdate %}\n{% endupdates %}',
      '{% columns %}\n{% column width="half" %}\nx\n{% endcolumn %}\n{% endcolumns %}',
      "{% columns %}\nstray\n{% column %}\nx\n{% endcolumn %}\n{% endcolumns %}",
    ]) {
      expect(
        markdownToDocument(markdown).nodes.every((node) => node.type === "paragraph"),
        markdown,
      ).toBe(true);
    }
  });

  it("card: {% content-ref url %} … {% endcontent-ref %} is GitBook's content-ref block, its reference read from the url (the link inside repeats it)", () => {
    const card = (url: string) => only(`{% content-ref url="${url}" %}\n[anything](${url})\n{% endcontent-ref %}`);
    expect(card("/pages/p1")).toEqual({ object: "block", type: "content-ref", isVoid: true, data: { ref: { kind: "page", page: "p1" } } });
    expect(card("/pages/p1#setup").data).toEqual({ ref: { kind: "anchor", anchor: "setup", page: "p1" } });
    expect(card("https://example.com/x").data).toEqual({ ref: { kind: "url", url: "https://example.com/x" } });
    // In a list item or an expandable (GitBook allows none there): a link.
    const item = only('- {% content-ref url="/pages/p2" %}\n  {% endcontent-ref %}');
    expect(((item.nodes as DocumentBlock[])[0]!.nodes as DocumentBlock[])[0]!.nodes![0]).toMatchObject({
      type: "link",
      data: { ref: { kind: "page", page: "p2" } },
    });
  });

  it("file: {% file src %} (with an optional caption and {% endfile %}) of a space's file is GitBook's file block; any other source a link", () => {
    const document = markdownToDocument('{% file src="/files/f1" %}\nThe report\n{% endfile %}\n\n{% file src="assets/a.pdf" %}');
    expect(document.nodes).toEqual([
      { object: "block", type: "file", isVoid: true, data: { ref: { kind: "file", file: "f1" } } },
      { object: "block", type: "paragraph", data: {}, nodes: [{ object: "text", leaves: [{ object: "leaf", text: "The report", marks: [] }] }] },
      {
        object: "block",
        type: "paragraph",
        data: {},
        nodes: [
          {
            object: "inline",
            type: "link",
            isVoid: false,
            data: { ref: { kind: "url", url: "assets/a.pdf" } },
            nodes: [{ object: "text", leaves: [{ object: "leaf", text: "assets/a.pdf", marks: [] }] }],
          },
        ],
      },
    ]);
    const expandable = only('<details>\n<summary>S</summary>\n\n{% file src="/files/f2" %}\n\n</details>');
    expect(outline(fragment(expandable, "expandable-body").nodes)).toEqual([["file", ""]]);
  });

  it('reusable content: {% include ".gitbook/includes/<id>.md" %} is GitBook\'s reusable-content block, at the top and in an expandable only', () => {
    const document = markdownToDocument('{% include ".gitbook/includes/intro.md" %}\n\n{% include "../.gitbook/includes/r2.md" space="s9" %}');
    expect(document.nodes).toEqual([
      { object: "block", type: "reusable-content", isVoid: true, data: { ref: { kind: "reusable-content", reusableContent: "intro" } } },
      { object: "block", type: "reusable-content", isVoid: true, data: { ref: { kind: "reusable-content", reusableContent: "r2", space: "s9" } } },
    ]);
    const expandable = only('<details>\n<summary>S</summary>\n\n{% include ".gitbook/includes/r3.md" %}\n\n</details>');
    expect(outline(fragment(expandable, "expandable-body").nodes)).toEqual([["reusable-content", ""]]);
    // GitBook admits none in a hint or a list item, and a file outside the folder names none: the tag stays text.
    expect(outline(only('{% hint style="info" %}\n{% include ".gitbook/includes/r4.md" %}\n{% endhint %}').nodes)).toEqual([
      ["paragraph", '{% include ".gitbook/includes/r4.md" %}'],
    ]);
    expect(outline(markdownToDocument('{% include "snippets/r5.md" %}').nodes)).toEqual([["paragraph", '{% include "snippets/r5.md" %}']]);
  });

  it("embeds are kept in hints, and become links in list items and quotes", () => {
    const hint = only('> [!NOTE]\n> {% embed url="https://example.com/a" %}');
    expect(hint.nodes).toEqual([{ object: "block", type: "embed", isVoid: true, data: { url: "https://example.com/a" } }]);
    const list = only('- {% embed url="https://example.com/b" %}');
    expect(((list.nodes as DocumentBlock[])[0]!.nodes as DocumentBlock[])[0]!.nodes![0]).toMatchObject({
      type: "link",
      data: { ref: { kind: "url", url: "https://example.com/b" } },
    });
    expect(outline(only('> {% embed url="https://example.com/c" %}').nodes)).toEqual([["paragraph", "https://example.com/c"]]);
  });

  it("math: a paragraph holding only $$ … $$ is a math block, its formula as written (backslashes, * and _ kept)", () => {
    expect(only("$$\n\\frac{a_1 * b_2}{c} \\{x\\} \\\\\n  y\n$$")).toEqual({
      object: "block",
      type: "math",
      isVoid: true,
      data: { formula: "\\frac{a_1 * b_2}{c} \\{x\\} \\\\\n  y" },
    });
    expect(only("$$x^2$$").data).toEqual({ formula: "x^2" });
    const list = only("- $$\n  a \\pm b\n  $$");
    expect(((list.nodes as DocumentBlock[])[0]!.nodes as DocumentBlock[])[0]).toMatchObject({ type: "math", data: { formula: "a \\pm b" } });
    // Not math: text around it, two formulas, an empty one, an escaped dollar.
    for (const markdown of ["a $$x$$", "$$x$$ b", "$$a$$ and $$b$$", "$$\n$$", "\\$$x$$"]) expect(only(markdown).type).toBe("paragraph");
    // A quote and a hint hold no math: the text stays a paragraph.
    expect(outline(only("> $$\n> x\n> $$").nodes)).toEqual([["paragraph", "$$\nx\n$$"]]);
  });

  it("inline math: $$ … $$ inside text is GitBook's inline formula (as written: backslashes kept), written back the same", () => {
    const formula = (text: string) => ({ object: "inline", type: "inline-math", isVoid: true, data: { formula: text } });
    expect(only("Energy $$E = mc^2$$ and $$\\frac{a_1}{b}$$.").nodes).toEqual([
      { object: "text", leaves: [{ object: "leaf", text: "Energy ", marks: [] }] },
      formula("E = mc^2"),
      { object: "text", leaves: [{ object: "leaf", text: " and ", marks: [] }] },
      formula("\\frac{a_1}{b}"),
      { object: "text", leaves: [{ object: "leaf", text: ".", marks: [] }] },
    ]);
    // Prices, an escaped $$ and a $$ never closed are text; a formula across lines reads its line endings as spaces.
    expect(outline([only("$5 or $6, \\$$x and $$ alone")])).toEqual([["paragraph", "$5 or $6, $$x and $$ alone"]]);
    expect(only("a $$x\ny$$ b").nodes![1]).toEqual(formula("x y"));
    // Inside a quote (no math block there), in a list item and in a heading.
    expect((only("> a $$x$$").nodes![0] as DocumentBlock).nodes![1]).toEqual(formula("x"));
    expect(only("# Area $$r^2$$").nodes![1]).toEqual(formula("r^2"));
    // In a link (which holds text only) a formula is its text.
    expect(outline([only("[see $$x$$](https://example.com)")])).toEqual([["paragraph", "see x"]]);
    const markdown = "Energy $$E = mc^2$$, $$$a$$b$$$ and \\$$ text.\n";
    expect(documentToMarkdown(markdownToDocument(markdown))).toBe(markdown);
  });

  it("unbalanced, misplaced or unknown markers stay the text they were, exactly as without this syntax", () => {
    const plain = (markdown: string) => ({
      object: "document",
      data: {},
      nodes: [{ object: "block", type: "paragraph", data: {}, nodes: [{ object: "text", leaves: [{ object: "leaf", text: markdown, marks: [] }] }] }],
    });
    for (const markdown of [
      "{% tabs %}",
      "{% endtabs %}",
      '{% tab title="A" %}\nx\n{% endtab %}',
      '{% tabs %}\n{% tab title="A" %}\nx\n{% endtabs %}',
      '{% tabs %}\nstray\n{% tab title="A" %}\nx\n{% endtab %}\n{% endtabs %}',
      '{% tabs %}\n{% tab title="A" %}\n{% tab title="B" %}\n{% endtab %}',
      "{% embed %}",
      '{% embed url="" %}',
      "{% endembed %}",
      '{% mystery kind="info" %}\nx\n{% endmystery %}',
      '{% hint style="info" %}\nx',
      "x\n{% endhint %}",
      '{% hint style="pink" %}\nx\n{% endhint %}',
      "{% hint %}\nx\n{% endhint %}",
      "{% stepper %}\n{% step %}\nx\n{% endstepper %}",
      "{% stepper %}\nstray\n{% step %}\nx\n{% endstep %}\n{% endstepper %}",
      "{% step %}\nx\n{% endstep %}",
      "{% tabs %}\n{% step %}\nx\n{% endstep %}\n{% endtabs %}",
      '{% content-ref url="/pages/p1" %}\nx',
      "{% content-ref %}\nx\n{% endcontent-ref %}",
      "{% file %}",
      '{% file src="" %}',
      "{% include %}",
      '{% include "" %}',
      '{% include ".gitbook/includes/a.md" style="x" %}',
      '{% file "x" src="/files/f1" %}',
      "{% endfile %}",
      "{% stepper x %}",
      '{% tab title="unterminated %}',
    ]) {
      expect(markdownToDocument(markdown), markdown).toEqual(plain(markdown));
    }
    expect(outline(markdownToDocument("<details>\n\nbody").nodes)).toEqual([
      ["paragraph", "<details>"],
      ["paragraph", "body"],
    ]);
    expect(outline(markdownToDocument("<details>\n<summary>T</summary>\n\nbody").nodes)).toEqual([
      ["paragraph", "<details>\n<summary>T</summary>"],
      ["paragraph", "body"],
    ]);
    expect(outline(markdownToDocument("</details>\n\n<summary>S</summary>").nodes)).toEqual([
      ["paragraph", "</details>"],
      ["paragraph", "<summary>S</summary>"],
    ]);
    // Balanced tabs inside unbalanced ones: the inner ones hold, the outer markers stay text.
    const document = markdownToDocument('{% tabs %}\n\n{% tabs %}\n{% tab title="A" %}\nx\n{% endtab %}\n{% endtabs %}');
    expect(outline(document.nodes)).toEqual([
      ["paragraph", "{% tabs %}"],
      ["tabs", ""],
    ]);
  });

  it("never throws on marker soup (property)", () => {
    const piece = fc.constantFrom(
      "{% tabs %}",
      "{% endtabs %}",
      '{% tab title="A" %}',
      "{% tab %}",
      "{% endtab %}",
      '{% hint style="warning" %}',
      "{% endhint %}",
      '{% embed url="https://example.com" %}',
      "{% endembed %}",
      "<details>",
      "<details open>",
      "<summary>S</summary>",
      "</details>",
      "$$",
      "x",
      "",
      "- item",
      "> quote",
      "> [!NOTE]",
      "## Heading",
      "```",
      "| a |\n|---|\n| 1 |",
    );
    fc.assert(
      fc.property(fc.array(piece, { maxLength: 30 }), fc.constantFrom("\n", "\n\n"), (pieces, separator) => {
        const document = markdownToDocument(pieces.join(separator));
        expect(document.object).toBe("document");
      }),
      { numRuns: 500 },
    );
  });

  it("reads the same without the source (mdastToDocument), except tags and formulas read as parsed text", () => {
    const markdown =
      '{% tabs %}\n{% tab title="A" %}\n$$\nx\n$$\n{% endtab %}\n{% endtabs %}\n\n<details>\n<summary>T</summary>\n\nb\n\n</details>\n\n{% embed url="https://example.com" %}';
    expect(mdastToDocument(parseMarkdown(markdown))).toEqual(markdownToDocument(markdown));
    expect(mdastToDocument(parseMarkdown("$$\n\\{x\\}\n$$")).nodes[0]!.data).toEqual({ formula: "{x}" });
  });
});
