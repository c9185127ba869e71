import { describe, expect, it } from "vitest";
import { markdownToDocument, type DocumentBlock, type DocumentText } from "@imprint/document";
import { evaluateDocument, evaluateText } from "../src/revisions/domain/markdown/evaluate.js";
import { anchoredToSpace, expandIncludes, includedIds, includedRefs, includeKey } from "../src/revisions/domain/markdown/includes.js";

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

describe("a published page's includes", () => {
  it("names the reusable contents of its own space its blocks include, each once, in order", () => {
    const document = markdownToDocument(
      '{% include ".gitbook/includes/a.md" %}\n\n<details>\n<summary>More</summary>\n\n{% include ".gitbook/includes/b.md" %}\n\n</details>\n\n{% include ".gitbook/includes/a.md" %}\n\n{% include ".gitbook/includes/c.md" space="other" %}',
    );
    expect(includedIds(document)).toEqual(["a", "b"]);
  });

  it("writes each included content's markdown in place of its tag, nested ones too (bounded), and leaves code and unknown ones as written", () => {
    const bodies = new Map([
      ["a", 'Alpha.\n\n{% include ".gitbook/includes/b.md" %}\n'],
      ["b", "Beta."],
      ["loop", '{% include ".gitbook/includes/loop.md" %}'],
    ]);
    const markdown =
      'Intro.\n\n{% include ".gitbook/includes/a.md" %}\n\n```\n{% include ".gitbook/includes/b.md" %}\n```\n\n{% include ".gitbook/includes/gone.md" %}\n';
    expect(expandIncludes(markdown, bodies)).toBe(
      'Intro.\n\nAlpha.\n\nBeta.\n\n```\n{% include ".gitbook/includes/b.md" %}\n```\n\n{% include ".gitbook/includes/gone.md" %}\n',
    );
    // A content including itself stops after MAX_INCLUDE_DEPTH levels.
    expect(expandIncludes('{% include ".gitbook/includes/loop.md" %}', bodies)).toBe('{% include ".gitbook/includes/loop.md" %}');
  });

  it("names other spaces' contents by their space, and reads a tag naming none in the space it is written in", () => {
    const document = markdownToDocument('{% include ".gitbook/includes/a.md" %}\n\n{% include ".gitbook/includes/c.md" space="other" %}');
    expect(includedRefs(document)).toEqual([{ reusableContentId: "a" }, { reusableContentId: "c", space: "other" }]);
    expect(includedIds(anchoredToSpace(document, "other"))).toEqual([]);
    // The page's space is "home": its own contents are keyed by id alone, whether a tag names it or not.
    const bodies = new Map([
      [includeKey("", "a"), "Own."],
      [includeKey("other", "c"), 'Shared.\n\n{% include ".gitbook/includes/d.md" %}'],
      [includeKey("other", "d"), "Nested in other."],
      [includeKey("", "d"), "Own d."],
    ]);
    const markdown =
      '{% include ".gitbook/includes/c.md" space="other" %}\n\n{% include ".gitbook/includes/a.md" space="home" %}\n\n{% include ".gitbook/includes/x.md" space="gone" %}';
    expect(expandIncludes(markdown, bodies, "home")).toBe('Shared.\n\nNested in other.\n\nOwn.\n\n{% include ".gitbook/includes/x.md" space="gone" %}');
  });
});
