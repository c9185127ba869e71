import { fromHtml } from "hast-util-from-html";
import { select } from "hast-util-select";
import { toString } from "hast-util-to-string";
import { describe, expect, it } from "vitest";
import { editLinkOf, offersEditLink } from "../src/edit-links.js";
import { renderPage } from "../src/views/render.js";
import type { ViewPage } from "../src/views/model.js";

const source = (url: string, gitRef = "main") => ({ url, gitRef, pagePaths: { p1: "docs/getting started/install.md" } });

describe("edit links", () => {
  it("links a page to its file in the web editor of GitHub, GitLab and Gitea, on the synced ref", () => {
    expect(editLinkOf(source("https://github.com/acme/docs.git"), "p1")).toEqual({
      url: "https://github.com/acme/docs/edit/main/docs/getting%20started/install.md",
      host: "GitHub",
    });
    expect(editLinkOf(source("git@gitlab.com:acme/group/docs.git", "refs/heads/release/2"), "p1")).toEqual({
      url: "https://gitlab.com/acme/group/docs/-/edit/release/2/docs/getting%20started/install.md",
      host: "GitLab",
    });
    expect(editLinkOf(source("https://codeberg.org/acme/docs"), "p1")?.url).toBe("https://codeberg.org/acme/docs/_edit/main/docs/getting%20started/install.md");
    expect(editLinkOf(source("https://gitea.example.com/acme/docs.git"), "p1")?.host).toBe("Gitea");
    // Credentials never reach the link.
    expect(editLinkOf(source("https://token:secret@github.com/acme/docs.git"), "p1")?.url).not.toContain("secret");
  });

  it("has none for a host it does not know, a page the sync did not write, or no sync", () => {
    expect(editLinkOf(source("http://127.0.0.1:9418/docs.git"), "p1")).toBeUndefined();
    expect(editLinkOf(source("https://github.com/acme"), "p1")).toBeUndefined();
    expect(editLinkOf(source("https://github.com/acme/docs.git"), "p2")).toBeUndefined();
    expect(editLinkOf(undefined, "p1")).toBeUndefined();
  });

  it("follows the site's page actions: shown when they name git or there is no list", () => {
    expect(offersEditLink(JSON.stringify({ pageActions: { items: ["markdown", "git"] } }))).toBe(true);
    expect(offersEditLink(JSON.stringify({ pageActions: { items: ["markdown", "mcp"] } }))).toBe(false);
    expect(offersEditLink(JSON.stringify({ pageActions: { items: [] } }))).toBe(false);
    expect(offersEditLink("")).toBe(true);
  });

  it("renders the link under the page, in the space's language", () => {
    const view: ViewPage = {
      chrome: { title: "Acme", theme: { default: "system", toggleable: true }, headerLinks: [], pagination: true, showLastUpdated: true },
      meta: { title: "Install · Acme", canonicalUrl: "https://read.example.com/acme/install", noindex: false, siteName: "Acme" },
      homeUrl: "/acme/",
      searchUrl: "/acme/",
      tree: [],
      language: "fr",
      page: {
        title: "Install",
        bodyHtml: "<p>Run it.</p>",
        toc: [],
        breadcrumbs: [],
        markdownUrl: "/acme/install.md",
        edit: { url: "https://github.com/acme/docs/edit/main/install.md", host: "GitHub" },
      },
    };
    const link = select("main p.edit a", fromHtml(renderPage(view)))!;
    expect([toString(link), link.properties.href]).toEqual(["Modifier sur GitHub", "https://github.com/acme/docs/edit/main/install.md"]);
    expect(select("main p.edit", fromHtml(renderPage({ ...view, page: { ...view.page, edit: undefined } })))).toBeUndefined();
  });
});
