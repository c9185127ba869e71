import { createHash } from "node:crypto";
import { gunzipSync } from "node:zlib";
import { fromHtml } from "hast-util-from-html";
import { select, selectAll } from "hast-util-select";
import { toString } from "hast-util-to-string";
import { describe, expect, it } from "vitest";
import { markdownToDocument } from "@imprint/document";
import { documentToHtml } from "@imprint/document/html";
import { readerAssets } from "../src/views/assets.js";
import { diagramAsset, diagramScriptPath } from "../src/views/diagrams.js";
import type { ViewFrame, ViewPage } from "../src/views/model.js";
import { pagePolicy } from "../src/views/policy.js";
import { inlineStyleOf, renderPage, renderSearch, renderStatus } from "../src/views/render.js";

const frame: ViewFrame = {
  chrome: {
    title: "Acme <Docs>",
    primaryColor: { light: "#0a7c66", dark: "#35d0b0" },
    theme: { default: "system", toggleable: true },
    headerLinks: [{ title: "Status", url: "https://status.example.com", external: true }],
    footer: { groups: [{ title: "Company", links: [{ title: "About", url: "https://example.com/about", external: true }] }], copyright: "© Acme" },
    pagination: true,
    showLastUpdated: true,
  },
  meta: {
    title: "Install · Acme",
    canonicalUrl: "https://read.example.com/acme/docs/install",
    noindex: false,
    siteName: "Acme <Docs>",
    markdownUrl: "https://read.example.com/acme/docs/install.md",
  },
  homeUrl: "/acme/docs/",
  searchUrl: "/acme/docs/search",
  sections: [
    { title: "Guides", url: "/acme/docs/", active: true },
    { title: "More", url: "#", children: [{ title: "API", url: "/acme/docs/api/" }] },
  ],
  variants: [
    { title: "v2", url: "/acme/docs/", active: true },
    { title: "v1", url: "/acme/docs/v1/" },
  ],
  tree: [
    { kind: "page", title: "Welcome", url: "/acme/docs/", children: [] },
    {
      kind: "page",
      title: "Install",
      url: "/acme/docs/install",
      active: true,
      expanded: true,
      children: [{ kind: "page", title: "On Linux", url: "/acme/docs/install/linux", children: [] }],
    },
    { kind: "group", title: "Reference", url: "#", children: [{ kind: "page", title: "CLI", url: "/acme/docs/cli", children: [] }] },
  ],
  language: "en",
};

function page(overrides: Partial<ViewPage["page"]> = {}, meta: Partial<ViewFrame["meta"]> = {}): ViewPage {
  const body = documentToHtml(markdownToDocument("# Requirements\n\nNode.\n\n## Steps\n\n```sh\nnpm install\n```\n"), { resolveRef: () => null });
  return {
    ...frame,
    meta: { ...frame.meta, ...meta },
    page: {
      title: "Install <now>",
      description: "How to install",
      bodyHtml: body.html,
      toc: body.toc,
      breadcrumbs: [{ title: "Guides", url: "/acme/docs/" }],
      previous: { title: "Welcome", url: "/acme/docs/" },
      next: { title: "On Linux", url: "/acme/docs/install/linux" },
      lastUpdated: new Date("2026-11-20T10:00:00Z"),
      markdownUrl: "/acme/docs/install.md",
      ...overrides,
    },
  };
}

describe("the reader's views", () => {
  it("renders a page with its navigation, table of contents, pagination and metadata", () => {
    const tree = fromHtml(renderPage(page()));
    expect(toString(select("title", tree)!)).toBe("Install · Acme");
    expect(select('link[rel="canonical"]', tree)!.properties.href).toBe("https://read.example.com/acme/docs/install");
    expect(select('link[rel="alternate"][type="text/markdown"]', tree)!.properties.href).toBe("https://read.example.com/acme/docs/install.md");
    expect(select('meta[name="robots"]', tree)).toBeUndefined();
    expect(toString(select("main h1", tree)!)).toBe("Install <now>");
    // The current page is marked in the tree, and its branch is open.
    expect(selectAll('aside.tree a[aria-current="page"]', tree).map((node) => toString(node))).toEqual(["Install"]);
    expect(select("aside.tree details", tree)!.properties.open).toBe(true);
    expect(toString(select("aside.tree .group", tree)!)).toBe("Reference");
    // Sections, variants, breadcrumbs and previous/next.
    expect(selectAll('nav.sections a[aria-current="page"]', tree).map((node) => toString(node))).toEqual(["Guides"]);
    expect(selectAll("nav.variants a", tree).map((node) => node.properties.href)).toEqual(["/acme/docs/", "/acme/docs/v1/"]);
    expect(select('nav.pagination a[rel="next"]', tree)!.properties.href).toBe("/acme/docs/install/linux");
    // The table of contents points at the body's headings.
    const tocTargets = selectAll("aside.toc a", tree).map((node) => String(node.properties.href).slice(1));
    expect(tocTargets).toEqual(["requirements", "steps"]);
    for (const id of tocTargets) expect(select(`article #${id}`, tree)).toBeDefined();
    expect(select("time", tree)!.properties.dateTime).toBe("2026-11-20T10:00:00.000Z");
    expect(select('form.search[method="get"]', tree)!.properties.action).toBe("/acme/docs/search");
  });

  it("escapes every text it is given and marks unlisted pages noindex", () => {
    const html = renderPage(page({ title: '<script>alert("x")</script>' }, { noindex: true }));
    expect(html).not.toContain('<script>alert("x")</script>');
    expect(html).toContain("Acme &#x3C;Docs>");
    const tree = fromHtml(html);
    expect(select('meta[name="robots"]', tree)!.properties.content).toBe("noindex");
    // No inline event handlers anywhere; the only scripts are the theme boot and the asset.
    expect(html).not.toMatch(/\son[a-z]+=/i);
    expect(selectAll("script", tree).map((node) => node.properties.src ?? "inline")).toEqual(["inline", readerAssets.script.path]);
  });

  it("loads the site's integration scripts at the end of the body, asynchronously", () => {
    const scripts = ["https://api.example.com/v1/integrations/a/installations/1/sites/2/script.js?x=1&y=<2>"];
    const tree = fromHtml(renderPage({ ...page(), scripts }));
    const body = select("body", tree)!;
    const last = body.children.filter((node) => node.type === "element").at(-1)!;
    expect(last).toMatchObject({ tagName: "script", properties: { src: scripts[0], async: true } });
    expect(selectAll("body > script", tree)).toHaveLength(1);
  });

  it("writes a Content-Security-Policy allowing by hash exactly what the page carries inline, its integrations' scripts and their needs", () => {
    const scripts = ["https://api.example.com/v1/integrations/a/installations/1/sites/2/script.js"];
    const body = documentToHtml(markdownToDocument("| Tool | Version |\n| :-: | --: |\n| node | 24 |\n"), { resolveRef: () => null });
    const view = { ...page({ bodyHtml: body.html }), scripts };
    const tree = fromHtml(renderPage(view));
    const policy = pagePolicy({
      inlineStyle: inlineStyleOf(view),
      scripts,
      integrationPolicies: [
        "connect-src https://telemetry.example.com; script-src 'strict-dynamic' https://cdn.example.com; frame-ancestors *; img-src 'none'",
      ],
    });
    const directive = (name: string) =>
      policy
        .split("; ")
        .find((entry) => entry.startsWith(`${name} `))
        ?.split(" ")
        .slice(1) ?? [];
    const hash = (text: string) => `'sha256-${createHash("sha256").update(text).digest("base64")}'`;
    // Every inline script and style element, and every style attribute, is allowed by its hash; nothing else inline is.
    const inlineScripts = selectAll("script:not([src])", tree).map((node) => toString(node));
    expect(inlineScripts).toHaveLength(1);
    for (const text of inlineScripts) expect(directive("script-src")).toContain(hash(text));
    const styles = selectAll("style", tree).map((node) => toString(node));
    expect(styles).toHaveLength(1);
    for (const text of styles) expect(directive("style-src")).toContain(hash(text));
    const attributes = selectAll("[style]", tree).map((node) => String(node.properties.style));
    expect(attributes.length).toBeGreaterThan(0);
    for (const text of attributes) expect(directive("style-src-attr")).toContain(hash(text));
    expect(policy).not.toContain("unsafe-inline");
    // The integrations' scripts by their URLs, and what the integrations declare they load: added to, never loosening the rest.
    expect(directive("script-src")).toEqual(expect.arrayContaining(["'self'", scripts[0], "https://cdn.example.com"]));
    expect(directive("script-src")).not.toContain("'strict-dynamic'");
    expect(directive("connect-src")).toEqual(["'self'", "https://telemetry.example.com"]);
    expect(directive("frame-ancestors")).toEqual(["'self'", "https:"]);
    expect(directive("img-src")).toEqual(["*", "data:"]);
    expect(directive("object-src")).toEqual(["'none'"]);
    // A directive the page leaves to default-src starts from it.
    expect(pagePolicy({ integrationPolicies: ["font-src https://fonts.example.com"] })).toContain("font-src 'self' https://fonts.example.com");
  });

  it("keeps the script small and hashed, and renders search results and status pages", () => {
    expect(Buffer.byteLength(readerAssets.script.body)).toBeLessThan(50 * 1024);
    expect(readerAssets.script.path).toMatch(/^\/_assets\/reader\.[\w-]{12}\.js$/);
    expect(readerAssets.style.path).toMatch(/^\/_assets\/reader\.[\w-]{12}\.css$/);

    const search = fromHtml(
      renderSearch({ ...frame, query: "install", hits: [{ title: "Install", url: "/acme/docs/install", excerpt: "npm install", context: "Guides" }] }),
    );
    expect(toString(select("main h1", search)!)).toBe("Results for “install”");
    expect(selectAll("ol.hits a", search).map((node) => node.properties.href)).toEqual(["/acme/docs/install"]);
    expect(toString(select("main", renderSearchEmpty())!)).toContain("No page matches.");

    const missing = fromHtml(renderStatus({ status: 404, title: "Page not found", message: "There is no page here." }));
    expect(toString(select("h1", missing)!)).toBe("Page not found");
    expect(select('meta[name="robots"]', missing)!.properties.content).toBe("noindex");
  });

  it("shows math as MathML with no script, and loads the diagram script only on a page that holds a diagram", async () => {
    const withBody = (markdown: string) => {
      const body = documentToHtml(markdownToDocument(markdown), { resolveRef: () => null });
      return { tree: fromHtml(renderPage(page({ bodyHtml: body.html, toc: body.toc, ...(body.hasDiagram ? { hasDiagram: true } : {}) }))), body };
    };
    const math = withBody("Energy $$E = mc^2$$ here.\n\n$$\n\\int_0^1 x\\,dx\n$$");
    expect(selectAll("article math", math.tree)).toHaveLength(2);
    expect(toString(select("article p .math-inline annotation", math.tree)!)).toBe("E = mc^2");
    expect(select('script[type="module"]', math.tree)).toBeUndefined();
    expect(renderPage(page())).not.toContain("mermaid");

    const diagram = withBody("```mermaid\ngraph TD\n  A-->B\n```");
    expect(toString(select("article pre.mermaid", diagram.tree)!)).toBe("graph TD\n  A-->B");
    expect(select('script[type="module"]', diagram.tree)!.properties.src).toBe(diagramScriptPath);
    // The script and mermaid's files it imports are served, cached for good; nothing else of the package is.
    const script = await diagramAsset(diagramScriptPath)!;
    const entry = /import\("\.(\/mermaid-[^"]+)"\)/.exec(String(script.body))![1]!;
    const mermaid = await diagramAsset(`/_assets${entry}`)!;
    expect(mermaid.contentType).toBe("text/javascript; charset=utf-8");
    expect(String(mermaid.body)).toContain("./chunks/mermaid.esm.min/");
    const compressed = await diagramAsset(`/_assets${entry}`, true)!;
    expect(compressed.encoding).toBe("gzip");
    expect(gunzipSync(compressed.body as Buffer).equals(mermaid.body as Buffer)).toBe(true);
    expect(diagramAsset(`/_assets${entry}.map`)).toBeUndefined();
    expect(diagramAsset(`/_assets${entry.replace(/[^/]+$/, "../package.json")}`)).toBeUndefined();
    // Mermaid's SVG carries its own styles: only a page with a diagram allows inline styles (never inline scripts).
    const policy = pagePolicy({ diagrams: true });
    expect(policy).toContain("style-src 'self' 'unsafe-inline'");
    expect(policy).toMatch(/script-src 'self' 'sha256-[^']+'(;|$)/);
    expect(pagePolicy()).not.toContain("unsafe-inline");
  });
});

function renderSearchEmpty() {
  return fromHtml(renderSearch({ ...frame, query: "zzz", hits: [] }));
}
