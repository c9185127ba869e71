import { describe, expect, it } from "vitest";
import { planPageTree, REVISION_REFERENCES, rewriteReferences, slugFromSegment, type ConvertedPage } from "../src/import/domain/build-tree.js";
import { pageKey, scopeOf } from "../src/import/domain/crawl.js";
import { parseHtml } from "../src/import/domain/extract.js";
import { hastToMdast, mdastToMarkdown } from "../src/import/domain/html-to-markdown.js";

const scope = scopeOf(new URL("http://s.test/docs/"));

async function page(path: string, order: number, title: string, html = "<p>text</p>"): Promise<ConvertedPage> {
  const url = new URL(`http://s.test${path}`);
  const tree = parseHtml(html);
  return { crawled: { url, keys: [pageKey(url)], depth: 1, order, tree }, title, content: await hastToMdast(tree) };
}

describe("planPageTree", () => {
  it("nests by URL path under the nearest imported ancestor, keeps discovery order, parents first", async () => {
    const pages = await Promise.all([
      page("/docs/", 0, "Home"),
      page("/docs/b/deep/leaf.html", 1, "Leaf"),
      page("/docs/a/", 2, "A"),
      page("/docs/a/two.html", 3, "A two"),
      page("/docs/a/one.html", 4, "A one"),
      page("/docs/b/", 5, "B"),
    ]);
    const planned = planPageTree(pages, scope);
    const byId = new Map(planned.map((p) => [p.pageId, p]));
    expect(planned.map((p) => [p.title, p.slug, p.parentPageId ? byId.get(p.parentPageId)!.title : null])).toEqual([
      ["Home", "home", null],
      // /docs/b/deep/ was not imported: the leaf goes under /docs/b/, found later than the leaf itself.
      ["A", "a", null],
      ["A two", "two", "A"],
      ["A one", "one", "A"],
      ["B", "b", null],
      ["Leaf", "leaf", "B"],
    ]);
    expect(new Set(planned.map((p) => p.pageId)).size).toBe(6);
    for (const p of planned) expect(p.pageId).toMatch(/^[A-Za-z0-9]{20}$/);
  });

  it("keeps sibling slugs unique and falls back to the title or the URL for names", async () => {
    const pages = await Promise.all([
      page("/docs/", 0, ""),
      page("/docs/setup.html", 1, ""),
      page("/docs/setup/", 2, "Setup again"),
      page("/docs/Über%20uns.html", 3, "About"),
    ]);
    const planned = planPageTree(pages, scope);
    expect(planned.map((p) => [p.title, p.slug])).toEqual([
      ["s.test", "stest"],
      ["setup", "setup"],
      ["Setup again", "setup-1"],
      ["About", "über-uns"],
    ]);
  });

  it.each([
    ["install.html", "install"],
    ["Getting_Started.htm", "getting_started"],
    ["a b c", "a-b-c"],
    ["index.php", "index"],
    ["x".repeat(200), "x".repeat(90)],
  ])("slug of segment %s is %s", (segment, slug) => {
    expect(slugFromSegment(segment)).toBe(slug);
  });
});

describe("rewriteReferences", () => {
  it("turns links to imported pages into page references, downloaded images into file references, and the rest absolute", async () => {
    const source = await page(
      "/docs/guide/",
      0,
      "Guide",
      '<p><a href="install.html#steps">in</a> <a href="../">home</a> <a href="#local">here</a> <a href="/elsewhere">out</a> <a href="mailto:a@b.c">mail</a> <img src="../img/a.png" alt="a"> <img src="https://cdn.test/b.png" alt="b"></p>',
    );
    rewriteReferences(source, {
      pageIdByKey: new Map([
        ["http://s.test/docs/guide/install.html", "INSTALL"],
        ["http://s.test/docs", "HOME"],
      ]),
      fileIdByImage: new Map([["http://s.test/docs/img/a.png", "FILEA"]]),
      format: REVISION_REFERENCES,
    });
    expect(mdastToMarkdown(source.content)).toBe(
      "[in](/pages/INSTALL#steps) [home](/pages/HOME) [here](#local) [out](http://s.test/elsewhere) [mail](mailto:a@b.c) ![a](/files/FILEA) ![b](https://cdn.test/b.png)\n",
    );
  });
});
