import { describe, expect, it } from "vitest";
import { markdownToDocument, type DocumentBlock, type DocumentText } from "@imprint/document";
import { evaluateDocument, evaluateText } from "../src/revisions/domain/markdown/evaluate.js";

/** Leaves of a block's text nodes as [text, marks]. */
function leaves(block: DocumentBlock): [string, string[]][] {
  return (block.nodes ?? [])
    .filter((node): node is DocumentText => node.object === "text")
    .flatMap((node) => node.leaves.map((leaf): [string, string[]] => [leaf.text, leaf.marks.map((mark) => mark.type)]));
}

describe("evaluating expressions", () => {
  const scope = { space: { product: "Imprint" }, page: { version: "2.0" } };

  it("replaces space and page variables, keeps unknown ones", () => {
    expect(evaluateText("{{ space.vars.product }} {{page.vars.version}} {{ space.vars.missing }}", scope)).toBe("Imprint 2.0 {{ space.vars.missing }}");
  });

  it("replaces inside document text leaves, links included", () => {
    const document = evaluateDocument(markdownToDocument("Use **{{ space.vars.product }}** [v{{ page.vars.version }}](https://x.dev)"), scope);
    const paragraph = document.nodes[0]!;
    expect(
      leaves(paragraph)
        .map(([text]) => text)
        .join(""),
    ).toBe("Use Imprint ");
    const link = (paragraph.nodes ?? []).find((node) => node.object === "inline") as { nodes: DocumentText[] };
    expect(link.nodes[0]!.leaves[0]!.text).toBe("v2.0");
  });
});
