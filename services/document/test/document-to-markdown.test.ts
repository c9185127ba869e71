import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { DocumentConversionError, documentToMarkdown, markdownToDocument, type DocumentBlock, type JsonDocument } from "../src/index.js";
import { CORPUS, markdownArbitrary } from "./support/corpus.js";

/**
 * The document with each leaf's marks sorted: markdown nests marks, so where the source overlaps
 * them (`_a~b_c~`) the order a leaf lists its marks in may change, never the marks themselves.
 */
function markMarksUnordered(document: JsonDocument): unknown {
  return JSON.parse(JSON.stringify(document), (key, value: unknown) =>
    key === "marks" && Array.isArray(value) ? [...(value as { type: string }[])].sort((a, b) => a.type.localeCompare(b.type)) : value,
  ) as unknown;
}

describe("document → markdown", () => {
  it.each(Object.entries(CORPUS))("round trips %s", (_name, markdown) => {
    const document = markdownToDocument(markdown);
    const written = documentToMarkdown(document);
    expect(markdownToDocument(written)).toEqual(document);
  });

  it("writes readable markdown", () => {
    expect(documentToMarkdown(markdownToDocument("# Title\n\nSome **bold** and [a page](/pages/p1).\n\n- [x] done\n\n> [!WARNING]\n> careful"))).toBe(
      '# Title\n\nSome **bold** and [a page](/pages/p1).\n\n- [x] done\n\n{% hint style="warning" %}\n\ncareful\n\n{% endhint %}\n',
    );
  });

  it('writes hints in GitBook\'s spelling, {% hint style="…" %} … {% endhint %}, in a list item too; text that would read as a hint tag is escaped', () => {
    expect(documentToMarkdown(markdownToDocument('> [!TIP]\n> a tip\n\n- item\n\n  {% hint style="danger" %}\n  careful\n  {% endhint %}'))).toBe(
      '{% hint style="success" %}\n\na tip\n\n{% endhint %}\n\n- item\n\n  {% hint style="danger" %}\n\n  careful\n\n  {% endhint %}\n',
    );
    const text = { object: "text", leaves: [{ object: "leaf", text: '{% hint style="info" %}', marks: [] }] };
    const written = documentToMarkdown({
      object: "document",
      data: {},
      nodes: [{ object: "block", type: "paragraph", data: {}, nodes: [text] }],
    } as JsonDocument);
    expect(written).toBe('\\{% hint style="info" %}\n');
    expect(markdownToDocument(written).nodes[0]!.type).toBe("paragraph");
  });

  it("writes steppers, cards and files in GitBook's spelling", () => {
    const block = (type: string, nodes: unknown[] = [], data: Record<string, unknown> = {}, isVoid?: boolean) => ({
      object: "block",
      type,
      data,
      nodes,
      isVoid,
    });
    const paragraph = (text: string) => block("paragraph", [{ object: "text", leaves: [{ object: "leaf", text, marks: [] }] }]);
    const document = {
      object: "document",
      data: {},
      nodes: [
        block("stepper", [block("stepper-step", [paragraph("One")]), block("stepper-step", [paragraph("Two")])]),
        block("content-ref", [], { ref: { kind: "page", page: "p1" } }, true),
        block("content-ref", [], { ref: { kind: "url", url: 'https://example.com/a"b' } }, true),
        block("file", [], { ref: { kind: "file", file: "f1" } }, true),
      ],
    } as JsonDocument;
    const written = documentToMarkdown(document);
    expect(written).toBe(
      [
        "{% stepper %}",
        "{% step %}",
        "",
        "One",
        "",
        "{% endstep %}",
        "",
        "{% step %}",
        "",
        "Two",
        "",
        "{% endstep %}",
        "{% endstepper %}",
        "",
        '{% content-ref url="/pages/p1" %}',
        "",
        "[/pages/p1](/pages/p1)",
        "",
        "{% endcontent-ref %}",
        "",
        '{% content-ref url="https://example.com/a&quot;b" %}',
        "",
        '<https://example.com/a"b>',
        "",
        "{% endcontent-ref %}",
        "",
        '{% file src="/files/f1" %}',
        "{% endfile %}",
        "",
      ].join("\n"),
    );
    expect(markdownToDocument(written)).toEqual(markdownToDocument(documentToMarkdown(markdownToDocument(written))));
    expect(markdownToDocument(written).nodes.map((node) => [node.type, node.data])).toEqual([
      ["stepper", {}],
      ["content-ref", { ref: { kind: "page", page: "p1" } }],
      ["content-ref", { ref: { kind: "url", url: 'https://example.com/a"b' } }],
      ["file", { ref: { kind: "file", file: "f1" } }],
    ]);
  });

  it("writes a reusable content as GitBook's include of its file, read back as the same block", () => {
    const block = (ref: Record<string, unknown>): DocumentBlock => ({ object: "block", type: "reusable-content", isVoid: true, data: { ref } });
    const document = {
      object: "document",
      data: {},
      nodes: [block({ kind: "reusable-content", reusableContent: "intro" }), block({ kind: "reusable-content", reusableContent: "r2", space: "s9" })],
    } as JsonDocument;
    const written = documentToMarkdown(document);
    expect(written).toBe('{% include ".gitbook/includes/intro.md" %}\n\n{% include ".gitbook/includes/r2.md" space="s9" %}\n');
    expect(markdownToDocument(written).nodes).toEqual(document.nodes);
    // Text that reads as the tag is escaped.
    const text = {
      object: "document",
      data: {},
      nodes: [
        {
          object: "block",
          type: "paragraph",
          data: {},
          nodes: [{ object: "text", leaves: [{ object: "leaf", text: '{% include ".gitbook/includes/x.md" %}', marks: [] }] }],
        },
      ],
    } as JsonDocument;
    expect(markdownToDocument(documentToMarkdown(text)).nodes[0]!.type).toBe("paragraph");
    expect(() => documentToMarkdown({ ...document, nodes: [block({ kind: "reusable-content", reusableContent: "a b" })] })).toThrow(/reusableContent/);
  });

  it("writes page, file and anchor references as the links markdown reads back", () => {
    const link = (ref: unknown) =>
      ({
        object: "document",
        data: {},
        nodes: [
          {
            object: "block",
            type: "paragraph",
            data: {},
            nodes: [
              { object: "inline", type: "link", isVoid: false, data: { ref }, nodes: [{ object: "text", leaves: [{ object: "leaf", text: "x", marks: [] }] }] },
            ],
          },
        ],
      }) as JsonDocument;
    expect(documentToMarkdown(link({ kind: "page", page: "p1" }))).toBe("[x](/pages/p1)\n");
    expect(documentToMarkdown(link({ kind: "file", file: "f1" }))).toBe("[x](/files/f1)\n");
    expect(documentToMarkdown(link({ kind: "anchor", anchor: "a" }))).toBe("[x](#a)\n");
    expect(documentToMarkdown(link({ kind: "anchor", anchor: "a", page: "p1" }))).toBe("[x](/pages/p1#a)\n");
    expect(() => documentToMarkdown(link({ kind: "space", space: "s1" }))).toThrow(
      'nodes[0].nodes[0].data.ref.kind: link reference kind "space" is not supported',
    );
  });

  it("names the path of a node it cannot express", () => {
    const document = markdownToDocument("a\n\nb\n\nc\n\n> quoted");
    (document.nodes[3]!.nodes as DocumentBlock[])[0] = { object: "block", type: "x", data: {} };
    expect(() => documentToMarkdown(document)).toThrow(new DocumentConversionError("nodes[3].nodes[0]", 'block type "x" is not supported'));
    expect(() => documentToMarkdown(document)).toThrow('nodes[3].nodes[0]: block type "x" is not supported');
  });

  it("refuses malformed nodes, unknown inlines and marks with their path", () => {
    const bad = (nodes: unknown) => () => documentToMarkdown({ object: "document", data: {}, nodes } as JsonDocument);
    expect(bad("x")).toThrow("nodes: must be an array");
    expect(bad([{ object: "block", type: "paragraph", nodes: [{ object: "inline", type: "mention", data: {} }] }])).toThrow(
      'nodes[0].nodes[0]: inline type "mention" is not supported',
    );
    expect(
      bad([
        {
          object: "block",
          type: "paragraph",
          nodes: [{ object: "text", leaves: [{ object: "leaf", text: "a", marks: [{ object: "mark", type: "color" }] }] }],
        },
      ]),
    ).toThrow('nodes[0].nodes[0].leaves[0].marks[0]: mark type "color" is not supported');
    expect(bad([{ object: "block", type: "paragraph", nodes: [{ object: "text", leaves: [{ object: "leaf", text: 3, marks: [] }] }] }])).toThrow(
      "nodes[0].nodes[0].leaves[0].text: must be a string",
    );
    expect(bad([{ object: "block", type: "hint", data: { style: "pink" }, nodes: [] }])).toThrow('nodes[0].data.style: hint style "pink" is not supported');
    let deep: unknown = { object: "block", type: "paragraph", nodes: [] };
    for (let level = 0; level < 100; level++) deep = { object: "block", type: "blockquote", nodes: [deep] };
    expect(bad([deep])).toThrow(/^nodes\[0\](\.nodes\[0\]){64}: blocks nest at most 64 levels deep$/);
    expect(bad([{ object: "text", leaves: [] }])).toThrow('nodes[0]: must be a block (object "block"), not "text"');
  });

  it("writes tabs, expandables, embeds and math in GitBook's syntax", () => {
    const markdown = [
      "{% tabs %}",
      '{% tab title="Windows &quot;10&quot;" %}',
      "Run **it**.",
      "{% endtab %}",
      '{% tab title="Linux" %}',
      "{% endtab %}",
      "{% endtabs %}",
      "<details open><summary>More &amp; <i>less</i></summary>",
      "",
      "Body.",
      "</details>",
      "",
      '{% embed url="https://example.com/v" %}',
      "",
      "$$",
      "\\sum_{i=1}^n i",
      "$$",
      "",
      "text {% tabs %} and $$x$$ inline",
      "",
      "\\{% tabs %}",
      "",
      "\\$$x$$",
      "",
      "\\[!NOTE]",
    ].join("\n");
    expect(documentToMarkdown(markdownToDocument(markdown))).toBe(
      [
        "{% tabs %}",
        '{% tab title="Windows &quot;10&quot;" %}',
        "",
        "Run **it**.",
        "",
        "{% endtab %}",
        "",
        '{% tab title="Linux" %}',
        "{% endtab %}",
        "{% endtabs %}",
        "",
        "<details open>",
        "",
        "<summary>More &amp; less</summary>",
        "",
        "Body.",
        "",
        "</details>",
        "",
        '{% embed url="https://example.com/v" %}',
        "",
        "$$",
        "\\sum_{i=1}^n i",
        "$$",
        "",
        "text {% tabs %} and $$x$$ inline",
        "",
        "\\{% tabs %}",
        "",
        // Every `$$` in text is escaped: since inline math, either could open a formula.
        "\\$$x\\$$",
        "",
        "\\[!NOTE]",
        "",
      ].join("\n"),
    );
  });

  it("refuses tabs, expandables, embeds and math where GitBook's schema does not allow them, naming the path", () => {
    const block = (type: string, nodes: unknown[] = [], data: Record<string, unknown> = {}) => ({ object: "block", type, data, nodes });
    const paragraph = block("paragraph", [{ object: "text", leaves: [{ object: "leaf", text: "a", marks: [] }] }]);
    const bad =
      (...nodes: unknown[]) =>
      () =>
        documentToMarkdown({ object: "document", data: {}, nodes } as JsonDocument);
    expect(bad(paragraph, block("blockquote", [block("tabs")]))).toThrow(
      new DocumentConversionError("nodes[1].nodes[0]", 'block type "tabs" is not supported in a blockquote (GitBook allows it in the document or an update)'),
    );
    expect(bad(block("list-unordered", [block("list-item", [block("embed", [], { url: "https://e.com" })])]))).toThrow(
      'nodes[0].nodes[0].nodes[0]: block type "embed" is not supported in a list item (GitBook allows it in the document, a hint, a tab, a step, a column or an update)',
    );
    expect(bad(block("hint", [block("math", [], { formula: "x" })], { style: "info" }))).toThrow(
      'nodes[0].nodes[0]: block type "math" is not supported in a hint (GitBook allows it in the document, a list item, a tab, a step, a column or an update)',
    );
    expect(bad(block("tabs", [block("tabs-item", [block("if", [paragraph], { expression: "a" })], { title: "T" })]))).toThrow(
      'nodes[0].nodes[0].nodes[0]: block type "if" is not supported in a tab (GitBook allows it in the document)',
    );
    expect(bad(block("hint", [block("columns", [block("column", [paragraph])])], { style: "info" }))).toThrow(
      'nodes[0].nodes[0]: block type "columns" is not supported in a hint (GitBook allows it in the document)',
    );
    expect(bad(block("columns", [paragraph]))).toThrow('nodes[0].nodes[0]: a columns block holds column blocks, not "paragraph"');
    expect(bad(block("columns", [block("column", [block("tabs")])]))).toThrow(
      'nodes[0].nodes[0].nodes[0]: block type "tabs" is not supported in a column (GitBook allows it in the document or an update)',
    );
    expect(bad(block("columns", [block("column", [paragraph], { width: { unit: "%", value: 1e-9 } })]))).toThrow(
      "nodes[0].nodes[0].data.width: must be a width",
    );
    expect(bad(block("updates", [block("update", [paragraph], { date: "soon" })], { format: "full" }))).toThrow(
      "nodes[0].nodes[0].data.date: must be a date (a timestamp)",
    );
    expect(bad(block("updates", [], { format: "weekly" }))).toThrow('nodes[0].data.format: updates format "weekly" is not supported (full, short, numeric)');
    expect(bad(block("updates", [block("update", [paragraph], { date: "2025-01-01T00:00:00Z", tags: [{ kind: "tag", tag: "a b" }] })], {}))).toThrow(
      "nodes[0].nodes[0].data.tags[0].tag: must be a tag's slug",
    );
    expect(bad(block("if", [paragraph], { expression: " " }))).toThrow("nodes[0].data.expression: must be a condition on one line (not empty)");
    expect(bad(block("if", [paragraph], { expression: "a\n|| b" }))).toThrow("nodes[0].data.expression: must be a condition on one line (not empty)");
    expect(bad(block("blockquote", [block("hint", [paragraph], { style: "info" })]))).toThrow(
      'nodes[0].nodes[0]: block type "hint" is not supported in a blockquote (GitBook allows it in the document, a list item, a tab, a step, an expandable, a column or an update)',
    );
    expect(bad(block("hint", [block("stepper", [block("stepper-step", [paragraph])])], { style: "info" }))).toThrow(
      'nodes[0].nodes[0]: block type "stepper" is not supported in a hint (GitBook allows it in the document or a column)',
    );
    expect(bad(block("stepper", [paragraph]))).toThrow('nodes[0].nodes[0]: a stepper holds stepper-step blocks, not "paragraph"');
    expect(bad(block("list-unordered", [block("list-item", [block("content-ref", [], { ref: { kind: "page", page: "p" } })])]))).toThrow(
      'nodes[0].nodes[0].nodes[0]: block type "content-ref" is not supported in a list item (GitBook allows it in the document, a tab, a step, a column or an update)',
    );
    expect(bad(block("file", [], { ref: { kind: "url", url: "https://e.com/a.pdf" } }))).toThrow(
      'nodes[0].data.ref.kind: a file block\'s reference is a file, not "url"',
    );
    expect(bad(block("tabs", [block("tabs-item", [block("expandable")], { title: "t" })]))).toThrow(
      'nodes[0].nodes[0].nodes[0]: block type "expandable" is not supported in a tab',
    );
    const expandable = (body: unknown[]) => ({
      object: "block",
      type: "expandable",
      isVoid: true,
      data: {},
      fragments: [{ object: "fragment", fragment: "expandable-body", type: "expandable-body", nodes: body }],
    });
    expect(bad(expandable([block("tabs")]))).toThrow('nodes[0].fragments[0].nodes[0]: block type "tabs" is not supported in an expandable');
    expect(bad(block("tabs", [paragraph]))).toThrow('nodes[0].nodes[0]: a tabs block holds tabs-item blocks, not "paragraph"');
    expect(bad(block("tabs-item", [paragraph]))).toThrow('nodes[0]: block type "tabs-item" is not supported');
    expect(bad({ ...expandable([]), fragments: [{ object: "fragment", fragment: "caption", nodes: [] }] })).toThrow(
      'nodes[0].fragments[0].fragment: an expandable\'s fragments are expandable-title and expandable-body, not "caption"',
    );
    expect(bad(block("embed", [], {}))).toThrow("nodes[0].data.url: must be a string");
    expect(bad(block("embed", [], { url: "https://e.com/\nx" }))).toThrow("nodes[0].data.url: must be a URL");
    expect(bad(block("math", [], { formula: "a $$ b" }))).toThrow('nodes[0].data.formula: must not contain "$$"');
    expect(bad(block("math", [], { formula: "a\n- b" }))).toThrow("nodes[0].data.formula: cannot be written as markdown");
    // An empty formula writes nothing; blank lines in one are dropped; the full-width setting is not kept.
    expect(documentToMarkdown({ object: "document", data: {}, nodes: [block("math", [], { formula: " " })] } as JsonDocument)).toBe("");
    expect(documentToMarkdown({ object: "document", data: {}, nodes: [block("math", [], { formula: "a\n\n b" })] } as JsonDocument)).toBe("$$\na\n b\n$$\n");
    expect(
      documentToMarkdown({ object: "document", data: {}, nodes: [block("embed", [], { url: 'https://e.com/"q"', fullWidth: true })] } as JsonDocument),
    ).toBe('{% embed url="https://e.com/&quot;q&quot;" %}\n');
  });

  it("round trips generated documents (property)", () => {
    fc.assert(
      fc.property(markdownArbitrary, (markdown) => {
        const document = markdownToDocument(markdown);
        expect(markMarksUnordered(markdownToDocument(documentToMarkdown(document)))).toEqual(markMarksUnordered(document));
      }),
      // Found by runs: an empty fenced code block inside a quote (degraded to a paragraph); an empty
      // item first in two lists' first items (written `- - -`, it read back as a thematic break).
      { numRuns: 500, examples: [[">~~~| _0_\n\n```\n*\n```"], ['{% hint style="info" %}\n\n- * -\n\n{% endhint %}']] },
    );
  });
});
