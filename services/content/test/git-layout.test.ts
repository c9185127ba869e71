import { describe, expect, it } from "vitest";
import { DEFAULT_GIT_LIMITS } from "../src/git/domain/limits.js";
import { readPageFile, rewriteLinkTargets, writePageFile } from "../src/git/domain/markdown-text.js";
import { readLayout, resolveRelative, type LayoutPage } from "../src/git/domain/read-layout.js";
import { parseGitRef, parseProjectDirectory, parseRemote } from "../src/git/domain/remote.js";
import type { TreeEntry } from "../src/git/store/repository.js";

/** A tree from path → text, with the text's bytes as its "blob" (oid: the path). */
function tree(files: Record<string, string>): { entries: TreeEntry[]; read: (oids: string[]) => Promise<Map<string, Buffer>> } {
  const entries = Object.entries(files).map(([path, text]) => ({ path, oid: path, size: Buffer.byteLength(text), mode: "100644" }));
  return { entries, read: (oids) => Promise.resolve(new Map(oids.map((oid) => [oid, Buffer.from(files[oid] ?? "")]))) };
}

const outline = (pages: LayoutPage[]): unknown[] =>
  pages.map((page) => [page.type, page.slug, page.title, ...(page.children.length ? [outline(page.children)] : [])]);

describe("rewriteLinkTargets", () => {
  it("rewrites link, image and definition targets and keeps every other byte", () => {
    const text = 'Intro *x*  \n[a](one.md#top "T") and ![i](<img/a b.png>) and [ref][r]\n\n[r]: two.md\n\n`[c](code.md)`\n';
    const out = rewriteLinkTargets(text, (url) => `/mapped/${url}`);
    expect(out).toBe('Intro *x*  \n[a](/mapped/one.md#top "T") and ![i](</mapped/img/a b.png>) and [ref][r]\n\n[r]: /mapped/two.md\n\n`[c](code.md)`\n');
  });

  it("rewrites the targets of GitBook's card, file and OpenAPI tags, not in code", () => {
    const text = [
      '{% content-ref url="guide/install.md" %}',
      "[install.md](guide/install.md)",
      "{% endcontent-ref %}",
      "",
      '{% file src=".gitbook/assets/report &quot;final&quot;.pdf" %}',
      "The report",
      "{% endfile %}",
      "",
      '{% embed url="https://example.com" %}',
      "",
      '{% swagger src=".gitbook/assets/api.yaml" path="/pets" method="get" %}',
      "{% endswagger %}",
      "",
      '{% openapi src="https://example.com/api.yaml" path="/pets" method="get" %}',
      "{% endopenapi %}",
      "",
      "```",
      '{% file src="code.pdf" %}',
      "```",
      "",
    ].join("\n");
    expect(rewriteLinkTargets(text, (url) => (url.startsWith("http") ? undefined : `x/${url}`))).toBe(
      [
        '{% content-ref url="x/guide/install.md" %}',
        "[install.md](x/guide/install.md)",
        "{% endcontent-ref %}",
        "",
        '{% file src="x/.gitbook/assets/report &quot;final&quot;.pdf" %}',
        "The report",
        "{% endfile %}",
        "",
        '{% embed url="https://example.com" %}',
        "",
        '{% swagger src="x/.gitbook/assets/api.yaml" path="/pets" method="get" %}',
        "{% endswagger %}",
        "",
        '{% openapi src="https://example.com/api.yaml" path="/pets" method="get" %}',
        "{% endopenapi %}",
        "",
        "```",
        '{% file src="code.pdf" %}',
        "```",
        "",
      ].join("\n"),
    );
  });

  it("handles an image inside a link, and leaves targets the callback keeps", () => {
    const text = "[![logo](logo.png)](home.md) [ext](https://example.com)";
    expect(rewriteLinkTargets(text, (url) => (url.startsWith("http") ? undefined : `x/${url}`))).toBe(
      "[![logo](x/logo.png)](x/home.md) [ext](https://example.com)",
    );
  });
});

describe("page files", () => {
  it("reads front matter, the title heading and the body", () => {
    expect(readPageFile("---\ndescription: >-\n  Folded\n  text\nicon: book\nhidden: true\n---\n\n# The title\n\nBody\n")).toEqual({
      frontMatter: { description: "Folded text", icon: "book", hidden: true },
      title: "The title",
      body: "Body\n",
    });
    expect(readPageFile("No heading here.\n")).toEqual({ frontMatter: {}, title: undefined, body: "No heading here.\n" });
  });

  it("writes what it reads back", () => {
    const written = writePageFile({ title: "T", description: "d: with colon", icon: "", hidden: true, body: "## Sub\n\ntext" });
    expect(written).toBe('---\ndescription: "d: with colon"\nhidden: true\n---\n\n# T\n\n## Sub\n\ntext\n');
    expect(readPageFile(written)).toEqual({ frontMatter: { description: "d: with colon", hidden: true }, title: "T", body: "## Sub\n\ntext\n" });
  });
});

describe("readLayout", () => {
  it("follows .gitbook.yaml's root and SUMMARY.md, with groups, links and nested groups flattened", async () => {
    const { entries, read } = tree({
      ".gitbook.yaml": "root: ./docs/\n",
      "docs/SUMMARY.md":
        '# TOC\n\n* [Home](README.md)\n* [A](a/README.md)\n  * [B](a/b.md)\n  * [Site](https://example.com)\n\n## Group <a href="#grp" id="grp"></a>\n\n* [C](c.md)\n* [Missing](missing.md)\n',
      "docs/README.md": "# Welcome\n",
      "docs/a/README.md": "Body of A\n",
      "docs/a/b.md": "# B title\n",
      "docs/c.md": "# C\n",
      "other/ignored.md": "# Outside the root\n",
    });
    const layout = await readLayout({ tree: entries, directory: "", read, limits: DEFAULT_GIT_LIMITS });
    expect(layout.root).toBe("docs");
    expect(outline(layout.pages)).toEqual([
      ["document", "welcome", "Welcome"],
      [
        "document",
        "a",
        "A",
        [
          ["document", "b", "B title"],
          ["link", "site", "Site"],
        ],
      ],
      ["group", "grp", "Group", [["document", "c", "C"]]],
    ]);
  });

  it("builds the tree from folders without SUMMARY.md, and bounds pages and markdown size", async () => {
    const { entries, read } = tree({
      "README.md": "# Root\n",
      "z.md": "# Z\n",
      "guide/index.md": "# Guide\n",
      "guide/setup.md": "Setup\n",
      "assets/only.png": "png",
    });
    const layout = await readLayout({ tree: entries, directory: "", read, limits: DEFAULT_GIT_LIMITS });
    expect(outline(layout.pages)).toEqual([
      ["document", "root", "Root"],
      ["document", "guide", "Guide", [["document", "setup", "Setup"]]],
      ["document", "z", "Z"],
    ]);
    await expect(readLayout({ tree: entries, directory: "", read, limits: { ...DEFAULT_GIT_LIMITS, maxPages: 2 } })).rejects.toThrow(/GIT_MAX_PAGES/);
    await expect(readLayout({ tree: entries, directory: "", read, limits: { ...DEFAULT_GIT_LIMITS, maxMarkdownBytes: 4 } })).rejects.toThrow(
      /GIT_MAX_MARKDOWN_BYTES/,
    );
  });

  it("resolves relative links inside the repository only", () => {
    expect(resolveRelative("a/b/page.md", "../c%20d.md#x")).toEqual({ path: "a/c d.md", anchor: "x" });
    expect(resolveRelative("page.md", "../../etc/passwd")).toBeUndefined();
    expect(resolveRelative("page.md", "https://example.com/x.md")).toBeUndefined();
    expect(resolveRelative("page.md", "/absolute.md")).toBeUndefined();
  });
});

describe("remote input", () => {
  it("splits credentials off the URL and allows https only (http with private fetches)", () => {
    const remote = parseRemote("https://bot:t%40ken@git.example.com/org/repo.git", { allowHttp: false });
    expect(remote.url.toString()).toBe("https://git.example.com/org/repo.git");
    expect(remote.authorization).toBe(`Basic ${Buffer.from("bot:t@ken").toString("base64")}`);
    expect(() => parseRemote("http://git.example.com/repo.git", { allowHttp: false })).toThrow(/^url: http is only allowed/);
    expect(parseRemote("http://127.0.0.1/repo.git", { allowHttp: true }).authorization).toBeUndefined();
    for (const bad of ["ssh://git@host/repo.git", "file:///etc", "ext::sh -c id", "git://host/repo", "https://host/repo.git?x=1"]) {
      expect(() => parseRemote(bad, { allowHttp: true })).toThrow(/^url: /);
    }
  });

  it("checks refs and project directories", () => {
    expect(parseGitRef("main")).toBe("refs/heads/main");
    expect(parseGitRef("refs/tags/v1.0")).toBe("refs/tags/v1.0");
    for (const bad of ["", "refs/heads/../x", "refs/heads/a b", "refs/heads/x.lock", "-x", "refs/heads/@{u}"]) expect(() => parseGitRef(bad)).toThrow(/^ref: /);
    expect(parseProjectDirectory("./docs/site/")).toBe("docs/site");
    expect(() => parseProjectDirectory("../up")).toThrow(/repoProjectDirectory/);
    expect(() => parseProjectDirectory(".git/hooks")).toThrow(/repoProjectDirectory/);
  });
});
