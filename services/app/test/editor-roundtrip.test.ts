import { readFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { type DocumentBlock, documentToMarkdown, type JsonDocument, markdownToDocument } from "@imprint/document";
import fc from "fast-check";
import { EditorState } from "prosemirror-state";
import { describe, expect, it } from "vitest";
import { ALLOWS } from "../../document/src/containers.js";
import { CORPUS, markdownArbitrary } from "../../document/test/support/corpus.js";
import { documentToProseMirror, proseMirrorToDocument } from "../src/client/editor/convert.js";
import { BLOCK_TYPES, CONTAINER_ALLOWS, nodeName, schema } from "../src/client/editor/schema.js";

/** Every block type of docs/revisions.md § Markdown and documents, in Git Sync's syntax where it has one. */
const FIXTURE = [
  "# Guide",
  "",
  "Some **bold**, _italic_, `code`, ~~gone~~, ***both*** and _**both reversed**_ text, a [link](https://example.com) and [a page](/pages/p1#intro), [one](/a)[two](/a), ![inline](https://e.com/i.png) in text and $$e^x$$ too.",
  "",
  "## Lists",
  "",
  "- one\n- two\n  - nested",
  "",
  "3. three\n4. four",
  "",
  "- [ ] todo\n- [x] done",
  "",
  "### Code",
  "",
  "```ts\nconst a = 1;\n\n  indented();\n```",
  "",
  "> quoted **text**",
  "",
  "> [!WARNING]\n> careful",
  "",
  "| Name | Size |\n|:-----|-----:|\n| a **b** | 1 |\n| c | |",
  "",
  "---",
  "",
  "![an image](https://e.com/a.png)",
  "",
  '{% tabs %}\n{% tab title="Windows" %}\nRun the installer.\n{% endtab %}\n\n{% tab title="Linux" %}\n$$\nx = \\frac{-b}{2a}\n$$\n{% endtab %}\n{% endtabs %}',
  "",
  '{% hint style="success" %}\nBack up the data directory first.\n{% endhint %}',
  "",
  "{% stepper %}\n{% step %}\nInstall.\n{% endstep %}\n\n{% step %}\nConfigure.\n{% endstep %}\n{% endstepper %}",
  "",
  '{% content-ref url="/pages/p2" %}\n[Getting started](/pages/p2)\n{% endcontent-ref %}',
  "",
  '{% file src="/files/f1" %}\nThe report\n{% endfile %}',
  "",
  '{% include ".gitbook/includes/intro.md" %}',
  "",
  "<details open>\n\n<summary>Why?</summary>\n\nBecause **reasons**.\n\n</details>",
  "",
  '{% embed url="https://www.youtube.com/watch?v=x" %}',
  "",
  "$$\nE = mc^2\n$$",
  "",
  '{% openapi src="https://e.com/spec.yaml" path="/pets" method="get" %}\n[https://e.com/spec.yaml](https://e.com/spec.yaml)\n{% endopenapi %}',
  "",
  '{% swagger src="https://e.com/old.yaml" path="/pets" method="post" %}\n[https://e.com/old.yaml](https://e.com/old.yaml)\n{% endswagger %}',
  "",
  '{% openapi-operation spec="petstore" path="/pets" method="get" %}\n[OpenAPI petstore](https://e.com)\n{% endopenapi-operation %}',
  "",
  '{% openapi-schemas spec="petstore" schemas="Pet,Tag" grouped="true" %}\n[OpenAPI petstore](https://e.com)\n{% endopenapi-schemas %}',
  "",
  '{% openapi-webhook spec="petstore" name="newPet" method="post" %}\n[OpenAPI petstore](https://e.com)\n{% endopenapi-webhook %}',
  "",
  '{% if visitor.claims.plan == "pro" %}\nFor pro visitors.\n{% endif %}',
  "",
  '{% columns %}\n{% column width="50%" %}\nLeft.\n{% endcolumn %}\n\n{% column %}\nRight.\n{% endcolumn %}\n{% endcolumns %}',
  "",
  '{% updates format="full" %}\n{% update date="2025-12-25" tags="a,b" %}\nShipped.\n{% endupdate %}\n{% endupdates %}',
  "",
  "The end.",
].join("\n");

/** The block types of the table in docs/revisions.md § Markdown and documents. */
const DOCUMENTED_TYPES = [
  "paragraph",
  "images",
  "image",
  "heading-1",
  "heading-2",
  "heading-3",
  "list-ordered",
  "list-unordered",
  "list-tasks",
  "list-item",
  "code",
  "code-line",
  "blockquote",
  "hint",
  "table",
  "divider",
  "tabs",
  "tabs-item",
  "stepper",
  "stepper-step",
  "content-ref",
  "file",
  "reusable-content",
  "expandable",
  "embed",
  "math",
  "swagger",
  "openapi-operation",
  "openapi-schemas",
  "openapi-webhook",
  "if",
  "columns",
  "column",
  "updates",
  "update",
];

function typesIn(value: unknown, types = new Set<string>()): Set<string> {
  if (Array.isArray(value)) for (const item of value) typesIn(item, types);
  else if (value && typeof value === "object") {
    const node = value as { object?: unknown; type?: unknown };
    if ((node.object === "block" || node.object === "inline") && typeof node.type === "string") types.add(node.type);
    for (const child of Object.values(value)) typesIn(child, types);
  }
  return types;
}

const roundTrip = (document: JsonDocument) => proseMirrorToDocument(EditorState.create({ schema, doc: documentToProseMirror(document, schema) }).doc);

describe("the editor's document ↔ ProseMirror conversion", () => {
  const document = markdownToDocument(FIXTURE);

  it("the fixture holds every block type of docs/revisions.md, and inline links, images and math", () => {
    const present = typesIn(document);
    for (const type of [...DOCUMENTED_TYPES, "link", "inline-image", "inline-math"]) expect(present, type).toContain(type);
  });

  it("opening and saving changes nothing: a no-op transaction gives the same document", () => {
    const state = EditorState.create({ schema, doc: documentToProseMirror(document, schema) });
    const next = state.apply(state.tr.setMeta("no-op", true));
    expect(proseMirrorToDocument(next.doc)).toStrictEqual(document);
  });

  it("an edit elsewhere changes only the edited block", () => {
    const state = EditorState.create({ schema, doc: documentToProseMirror(document, schema) });
    // Type at the end of the last paragraph ("The end.").
    const end = state.doc.content.size - 1;
    const edited = proseMirrorToDocument(state.apply(state.tr.insertText(" Really.", end)).doc);
    const last = document.nodes.length - 1;
    expect(edited.nodes.slice(0, last)).toStrictEqual(document.nodes.slice(0, last));
    expect(edited.nodes[last]).toStrictEqual({
      object: "block",
      type: "paragraph",
      data: {},
      nodes: [{ object: "text", leaves: [{ object: "leaf", text: "The end. Really.", marks: [] }] }],
    });
  });

  it("round trips every document of @imprint/document's corpus", () => {
    for (const [name, markdown] of Object.entries(CORPUS)) {
      const read = markdownToDocument(markdown);
      expect(roundTrip(read), name).toStrictEqual(read);
    }
  });

  it("round trips generated documents (property)", () => {
    fc.assert(
      fc.property(markdownArbitrary, (markdown) => {
        const read = markdownToDocument(markdown);
        expect(roundTrip(read)).toStrictEqual(read);
      }),
      { numRuns: 300 },
    );
  });

  it("the empty document is one empty paragraph in the editor and empty again when saved", () => {
    const empty = markdownToDocument("");
    expect(documentToProseMirror(empty, schema).childCount).toBe(1);
    expect(roundTrip(empty)).toStrictEqual(empty);
  });

  it("keeps blocks and inlines it does not know whole (the reader accepts any block)", () => {
    const foreign: JsonDocument = {
      object: "document",
      data: {},
      nodes: [
        { object: "block", type: "drawing", isVoid: true, data: { ref: { kind: "file", file: "d1" } } },
        {
          object: "block",
          type: "paragraph",
          data: {},
          nodes: [
            { object: "text", leaves: [{ object: "leaf", text: "a ", marks: [] }] },
            { object: "inline", type: "mention", isVoid: true, data: { ref: { kind: "user", user: "u1" } } } as never,
          ],
        },
        // A shape the schema has no rule for (a list holding a paragraph) is kept whole too.
        { object: "block", type: "list-unordered", data: {}, nodes: [{ object: "block", type: "paragraph", data: {}, nodes: [] }] },
      ],
    };
    expect(roundTrip(foreign)).toStrictEqual(foreign);
    expect(markdownToDocument(documentToMarkdown(markdownToDocument("a")))).toStrictEqual(markdownToDocument("a"));
  });

  it("the schema has a node for every block and inline type @imprint/document's source emits", () => {
    // The conversion from markdown is the one producer of documents: every block and inline it writes, by its type literal.
    const source = readFileSync(join(dirname(fileURLToPath(import.meta.url)), "../../document/src/document.ts"), "utf8");
    const emitted = new Set<string>();
    for (const [, expression] of source.matchAll(/object: "(?:block|inline)",\s*type: ([^,}]+)/g)) {
      for (const [, literal] of expression!.matchAll(/"([a-z0-9-]+)"/g)) emitted.add(literal!);
    }
    // The two written by expression: `heading-${level}` (levels 1 to 3) and an OpenAPI pointer's `part.kind`.
    expect(source).toContain("type: `heading-${level}`");
    expect(source).toContain('part: Extract<Part, { kind: "openapi-schemas" | "openapi-webhook" }>');
    for (const type of ["heading-1", "heading-2", "heading-3", "openapi-schemas", "openapi-webhook"]) emitted.add(type);
    expect(emitted.size).toBeGreaterThan(30);
    for (const type of emitted) {
      const inline = ["link", "inline-image", "inline-math"].includes(type);
      expect(inline || BLOCK_TYPES.includes(type), type).toBe(true);
      expect(inline ? (schema.nodes[nodeName(type)] ?? schema.marks[type]) : schema.nodes[nodeName(type)], type).toBeDefined();
    }
    for (const type of DOCUMENTED_TYPES) expect(emitted, type).toContain(type);
  });

  it("each container holds what GitBook allows in it, as @imprint/document's rules say", () => {
    for (const [container, allows] of Object.entries(ALLOWS)) {
      expect([...CONTAINER_ALLOWS[container]!].sort(), container).toEqual(
        Object.entries(allows)
          .filter(([, allowed]) => allowed)
          .map(([capability]) => capability)
          .sort(),
      );
    }
    // For example: a quote holds no code block, a hint no hint, a list item a table but no tabs.
    expect(schema.nodes.blockquote!.contentMatch.matchType(schema.nodes.paragraph!)).not.toBeNull();
    expect(schema.nodes.blockquote!.contentMatch.matchType(schema.nodes.code_block!)).toBeNull();
    expect(schema.nodes.hint!.contentMatch.matchType(schema.nodes.hint!)).toBeNull();
    expect(schema.nodes.list_item!.contentMatch.matchType(schema.nodes.table!)).not.toBeNull();
    expect(schema.nodes.list_item!.contentMatch.matchType(schema.nodes.tabs!)).toBeNull();
    expect(schema.nodes.if!.contentMatch.matchType(schema.nodes.columns!)).not.toBeNull();
  });

  it("reads a block's fields exactly: data, isVoid, fragments and ids", () => {
    const table = document.nodes.find((block) => block.type === "table") as DocumentBlock;
    const node = documentToProseMirror({ object: "document", data: {}, nodes: [table] }, schema);
    expect(node.firstChild!.type.name).toBe("table");
    expect(node.firstChild!.childCount).toBe(3);
    expect(proseMirrorToDocument(node).nodes[0]).toStrictEqual(table);
  });
});
