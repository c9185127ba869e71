import { readFile } from "node:fs/promises";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { collectLinks, extractMainContent, parseHtml } from "../src/import/domain/extract.js";
import { hastToMdast, htmlToMarkdown, mdastToMarkdown } from "../src/import/domain/html-to-markdown.js";
import { SITE_ROOT } from "./fixtures/site/server.js";

async function convert(html: string): Promise<{ title: string; markdown: string }> {
  const page = extractMainContent(parseHtml(html));
  return { title: page.title, markdown: mdastToMarkdown(await hastToMdast(page.content)) };
}

describe("main content extraction", () => {
  it("takes <main>, drops header, nav, footer, scripts and styles, and uses the <h1> as the title", async () => {
    const html = await readFile(join(SITE_ROOT, "docs/index.html"), "utf8");
    const { title, markdown } = await convert(html);
    expect(title).toBe("Welcome to Acme");
    expect(markdown).toBe(
      [
        "Acme is a **tiny** tool. Start with the [installation guide](guide/install.html), then read about [options](guide/configure.html#options).",
        "",
        "![Acme logo](images/logo.png)",
        "",
        "Downloads: [the manual](files/manual.pdf); source on [example.com](https://example.com/acme).",
        "",
      ].join("\n"),
    );
    for (const chrome of ["site header", "site footer", "analytics", "font-family", "Elsewhere"]) expect(markdown).not.toContain(chrome);
  });

  it("falls back to <article>, then [role=main], then the body without page chrome", async () => {
    const article = await convert("<body><nav>menu</nav><article><header><h1>In the header</h1></header><p>Body</p></article></body>");
    expect(article).toEqual({ title: "In the header", markdown: "Body\n" });
    const roleMain = await convert('<body><div role="main"><p>Main text</p></div><p>Outside</p></body>');
    expect(roleMain.markdown).toBe("Main text\n");
    const body = await convert(
      "<html><head><title>Only body</title></head><body><header>Top</header><nav>Menu</nav><p>Text</p><aside>Side</aside><footer>Bottom</footer></body></html>",
    );
    expect(body).toEqual({ title: "Only body", markdown: "Text\n" });
  });

  it("takes the title from <title> when the content has no <h1>, and leaves headings in place", async () => {
    const html = await readFile(join(SITE_ROOT, "docs/guide/configure.html"), "utf8");
    const { title, markdown } = await convert(html);
    expect(title).toBe("Configuring Acme");
    expect(markdown).toContain("## Options\n");
    expect(markdown).toContain("- `verbose`: prints more\n- `color`: _colors_ the output\n");
  });

  it("answers an empty title when there is neither", () => {
    expect(extractMainContent(parseHtml("<p>nothing</p>")).title).toBe("");
  });
});

describe("HTML to markdown (rehype-parse → rehype-remark → remark-gfm → remark-stringify)", () => {
  it("converts headings, lists, code with its language, GFM tables, images and links", async () => {
    const html = await readFile(join(SITE_ROOT, "docs/guide/install.html"), "utf8");
    const { title, markdown } = await convert(html);
    expect(title).toBe("Installing Acme");
    expect(markdown).toBe(
      [
        "## Requirements",
        "",
        "| Platform | Version |",
        "| -------- | ------- |",
        "| Linux    | 5.10    |",
        "| macOS    | 14      |",
        "",
        "## Steps",
        "",
        "```sh",
        "npm install acme",
        "acme init",
        "```",
        "",
        "![Architecture diagram](../images/diagram.png)",
        "",
        "Back to the [home page](../).",
        "",
      ].join("\n"),
    );
  });

  it("keeps emphasis, strikethrough, ordered lists and block quotes", async () => {
    const markdown = await htmlToMarkdown("<ol><li>one</li><li>two <del>old</del></li></ol><blockquote><p>quoted <em>text</em></p></blockquote>");
    expect(markdown).toBe("1. one\n2. two ~~old~~\n\n> quoted _text_\n");
  });
});

describe("link discovery", () => {
  it("collects every anchor of the document, navigation included, resolved against the page URL", async () => {
    const tree = parseHtml(await readFile(join(SITE_ROOT, "docs/guide/index.html"), "utf8"));
    const links = collectLinks(tree, new URL("http://site.test/docs/guide/")).map(String);
    expect(links).toEqual([
      "http://site.test/docs/",
      "http://site.test/docs/guide/",
      "http://site.test/docs/guide/install.html",
      "http://site.test/docs/guide/configure.html",
      "http://site.test/docs/api/reference.html",
      "http://site.test/other/elsewhere.html",
      "https://example.com/",
      "http://site.test/docs/guide/install.html",
      "http://site.test/docs/guide/configure.html",
      "http://site.test/docs/api/reference.html#errors",
    ]);
  });

  it("honours <base href>", () => {
    const tree = parseHtml('<head><base href="/root/"></head><body><a href="page.html">x</a></body>');
    expect(collectLinks(tree, new URL("http://site.test/elsewhere/doc.html")).map(String)).toEqual(["http://site.test/root/page.html"]);
  });
});
