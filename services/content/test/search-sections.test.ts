import { describe, expect, it } from "vitest";
import { markdownToDocument } from "@imprint/document";
import { MAX_INDEXED_PAGE_TEXT, pageSections } from "../src/search/domain/sections.js";

const sectionsOf = (markdown: string) => pageSections(JSON.stringify(markdownToDocument(markdown)));

describe("pageSections", () => {
  it("cuts a page at its headings, with the document's anchors and plain text per section", () => {
    const sections = sectionsOf(
      [
        "Intro with **bold** and a [link](https://example.com).",
        "## Install",
        "Run:",
        "```sh\nnpm install\nnpm test\n```",
        "### Options and `flags`",
        "| name | meaning |\n|---|---|\n| verbose | more output |",
        "## Install",
        "- one\n- two",
      ].join("\n\n"),
    );
    expect(sections).toEqual([
      { position: 0, anchor: "", heading: "", text: "Intro with bold and a link." },
      { position: 1, anchor: "install", heading: "Install", text: "Run:\nnpm install\nnpm test" },
      { position: 2, anchor: "options-and-flags", heading: "Options and flags", text: expect.stringContaining("verbose") },
      { position: 3, anchor: "install-1", heading: "Install", text: "one\ntwo" },
    ]);
    expect(sections[2]!.text).toContain("more output");
  });

  it("gives headings without a URL-safe id an anchor of their own, and a bodiless page one empty section", () => {
    const [, heading] = sectionsOf("Text.\n\n## Über uns\n\nHallo.");
    expect(heading).toMatchObject({ heading: "Über uns", anchor: "über-uns", text: "Hallo." });
    expect(pageSections(null)).toEqual([{ position: 0, anchor: "", heading: "", text: "" }]);
  });

  it("indexes at most MAX_INDEXED_PAGE_TEXT characters of a page's text", () => {
    const paragraph = "word ".repeat(2_000).trim();
    const sections = sectionsOf(Array.from({ length: 40 }, (_, index) => `## Part ${index}\n\n${paragraph}`).join("\n\n"));
    const indexed = sections.reduce((sum, section) => sum + section.text.length + section.heading.length, 0);
    expect(indexed).toBeLessThanOrEqual(MAX_INDEXED_PAGE_TEXT);
    // About 20 parts fit; the rest of the page is not indexed.
    expect(sections.length).toBeGreaterThan(19);
    expect(sections.length).toBeLessThan(41);
  });
});
