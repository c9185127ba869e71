import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { markdownToDocument, type ContentRef, type JsonDocument } from "../src/index.js";
import { documentToHtml, safeUrl } from "../src/html.js";

/** Pages resolve to /docs/<id>, files to /files/<id>, anchors to #anchor; the page "hidden" does not resolve. */
const resolveRef = (ref: ContentRef): string | null => {
  if (ref.kind === "page") return ref.page === "hidden" ? null : `/docs/${ref.page}`;
  if (ref.kind === "file") return `/files/${ref.file}`;
  if (ref.kind === "anchor") return ref.page ? `/docs/${ref.page}#${ref.anchor}` : `#${ref.anchor}`;
  return ref.url;
};
const render = (markdown: string) => documentToHtml(markdownToDocument(markdown), { resolveRef });

describe("documentToHtml", () => {
  it("renders headings below the page's title with anchors, and answers them as the table of contents", () => {
    const { html, toc } = render("# Install\n\nText.\n\n## On Linux\n\n### Debian\n\n## On Linux\n");
    expect(html).toContain('<h2 id="install">Install<a class="anchor" href="#install" aria-label="Link to Install">#</a></h2>');
    expect(html).toContain('<h3 id="on-linux">');
    expect(html).toContain('<h4 id="debian">');
    expect(toc).toEqual([
      { id: "install", title: "Install", depth: 1 },
      { id: "on-linux", title: "On Linux", depth: 2 },
      { id: "debian", title: "Debian", depth: 3 },
      { id: "on-linux-1", title: "On Linux", depth: 2 },
    ]);
  });

  it("never skips a heading level under the page's title: the body's shallowest heading is its <h2>", () => {
    const { html, toc } = render("## Requirements\n\n### Linux\n\n## Steps\n");
    expect(html).toContain('<h2 id="requirements">');
    expect(html).toContain('<h3 id="linux">');
    expect(html).toContain('<h2 id="steps">');
    expect(toc.map((entry) => entry.depth)).toEqual([1, 2, 1]);
  });

  it("renders every block and mark of the model", () => {
    const { html } = render(
      [
        "A **bold**, *italic*, `code` and ~~struck~~ paragraph.",
        "- one\n- two",
        "3. three\n4. four",
        "- [x] done\n- [ ] to do",
        "> Quoted.",
        "> [!WARNING]\n> Careful.",
        "---",
        "| Name | Size |\n|:-----|-----:|\n| a | 1 |\n| b | 2 |",
        "![A diagram](https://example.com/d.png)",
      ].join("\n\n"),
    );
    expect(html).toContain("<p>A <strong>bold</strong>, <em>italic</em>, <code>code</code> and <del>struck</del> paragraph.</p>");
    expect(html).toMatch(/<ul><li><p>one<\/p><\/li><li><p>two<\/p><\/li><\/ul>/);
    expect(html).toContain('<ol start="3">');
    expect(html).toContain('<ul class="tasks"><li class="task"><input type="checkbox" disabled checked aria-label="done">');
    expect(html).toContain("<blockquote><p>Quoted.</p></blockquote>");
    expect(html).toContain('<div class="hint hint-warning" role="alert"><p>Careful.</p></div>');
    expect(html).toContain("<hr>");
    expect(html).toContain('<th scope="col">Name</th><th scope="col" style="text-align: right">Size</th>');
    expect(html).toContain('<tr><td><p>a</p></td><td style="text-align: right"><p>1</p></td></tr><tr><td><p>b</p></td>');
    expect(html).toContain('<figure class="image"><img src="https://example.com/d.png" alt="A diagram" loading="lazy" decoding="async"></figure>');
  });

  it('renders block and inline math as MathML on the server, a formula it cannot read as its source in <code class="math-error">', () => {
    const { html } = render("Energy $$E = mc^2$$ here, and $$\\frac{1}{$$ is no formula.\n\n$$\n\\sum_{i=1}^n i\n$$");
    expect(html).toContain('<span class="math-inline"><span class="katex"><math xmlns="http://www.w3.org/1998/Math/MathML"><semantics><mrow><mi>E</mi>');
    expect(html).toContain('<annotation encoding="application/x-tex">E = mc^2</annotation>');
    expect(html).toContain('<span class="math-inline"><code class="math-error" title="This formula could not be read">\\frac{1}{</code></span> is no formula.');
    expect(html).toContain('<div class="math"><span class="katex"><math xmlns="http://www.w3.org/1998/Math/MathML" display="block">');
    expect(html).toContain("<munderover><mo>∑</mo>");
    // KaTeX's trust stays off: a formula's \\href is no link, its \\htmlClass no class.
    const untrusted = render("$$\\href{javascript:alert(1)}{x} \\htmlClass{evil}{y}$$").html;
    expect(untrusted).not.toMatch(/<a |href=|class="evil"/);
    // A formula too long to render on a page is its source.
    expect(render(`$$${"x+".repeat(6000)}x$$`).html).toContain('<code class="math-error"');
  });

  it('renders a mermaid code block as its source in <pre class="mermaid"> and says the page holds a diagram', () => {
    const diagram = render("```mermaid\ngraph TD\n  A-->B\n```");
    expect(diagram.html).toBe('<figure class="diagram"><pre class="mermaid" tabindex="0">graph TD\n  A-->B</pre></figure>');
    expect(diagram.hasDiagram).toBe(true);
    expect(render("```js\nconst mermaid = 1;\n```\n\ngraph TD").hasDiagram).toBe(false);
  });

  it("renders tabs as titled sections, expandables as <details>, embeds as link cards and math as MathML", () => {
    const { html, toc } = render(
      [
        "{% tabs %}",
        '{% tab title="Windows <10>" %}',
        "## Install",
        "",
        "Run **it**.",
        "{% endtab %}",
        '{% tab title="Linux" %}',
        "{% endtab %}",
        "{% endtabs %}",
        "",
        "<details open>",
        "<summary>Why &amp; how</summary>",
        "",
        "### Reasons",
        "",
        "</details>",
        "",
        "<details><summary>Closed</summary>",
        "",
        "</details>",
        "",
        '{% embed url="https://example.com/video?a=1&b=2" %}',
        "",
        "$$",
        "a < b",
        "$$",
      ].join("\n"),
    );
    expect(html).toBe(
      [
        '<div class="tabs">',
        '<section class="tab"><p class="tab-title">Windows &#x3C;10></p><h2 id="install">Install<a class="anchor" href="#install" aria-label="Link to Install">#</a></h2><p>Run <strong>it</strong>.</p></section>',
        '<section class="tab"><p class="tab-title">Linux</p><p></p></section>',
        "</div>",
        '<details class="expandable" open><summary>Why &#x26; how</summary><h3 id="reasons">Reasons<a class="anchor" href="#reasons" aria-label="Link to Reasons">#</a></h3></details>',
        '<details class="expandable"><summary>Closed</summary><p></p></details>',
        '<figure class="embed"><a href="https://example.com/video?a=1&#x26;b=2" rel="noopener">https://example.com/video?a=1&#x26;b=2</a></figure>',
        '<div class="math"><span class="katex"><math xmlns="http://www.w3.org/1998/Math/MathML" display="block"><semantics><mrow><mi>a</mi><mo>&#x3C;</mo><mi>b</mi></mrow><annotation encoding="application/x-tex">a &#x3C; b</annotation></semantics></math></span></div>',
      ].join(""),
    );
    // Tab titles are not headings: the table of contents lists the headings inside tabs and expandables.
    expect(toc).toEqual([
      { id: "install", title: "Install", depth: 1 },
      { id: "reasons", title: "Reasons", depth: 2 },
    ]);
  });

  it("renders steppers as an ordered list of steps, cards as links, files as download links", () => {
    const { html, toc } = render(
      [
        "{% stepper %}\n{% step %}\n### Install\n\nRun it.\n{% endstep %}\n{% step %}\nDone.\n{% endstep %}\n{% endstepper %}",
        '{% content-ref url="/pages/p1" %}\n[p1](/pages/p1)\n{% endcontent-ref %}',
        '{% content-ref url="/pages/hidden" %}\n{% endcontent-ref %}',
        '{% file src="/files/f1" %}\n{% endfile %}',
      ].join("\n\n"),
    );
    expect(html).toContain(
      '<ol class="stepper"><li class="step"><h2 id="install">Install<a class="anchor" href="#install" aria-label="Link to Install">#</a></h2><p>Run it.</p></li><li class="step"><p>Done.</p></li></ol>',
    );
    expect(toc).toEqual([{ id: "install", title: "Install", depth: 1 }]);
    expect(html).toContain('<p class="card"><a href="/docs/p1">/docs/p1</a></p>');
    const titled = documentToHtml(markdownToDocument('{% content-ref url="/pages/p1" %}\n{% endcontent-ref %}'), {
      resolveRef,
      titleOf: (ref) => (ref.kind === "page" ? `Page ${ref.page}` : null),
    });
    expect(titled.html).toBe('<p class="card"><a href="/docs/p1">Page p1</a></p>');
    expect(html).not.toContain("hidden");
    expect(html).toContain('<p class="file"><a href="/files/f1" download>Download f1</a></p>');
  });

  it("renders a reusable content's blocks where it is included, its headings in the table of contents; an unknown one, or one including itself again, shows nothing", () => {
    const included: Record<string, string> = {
      intro: "## Before you start\n\nYou need a token.",
      loop: 'Looping.\n\n{% include ".gitbook/includes/loop.md" %}',
    };
    const options = {
      resolveRef,
      reusableContent: (ref: { reusableContent: string }) => (included[ref.reusableContent] ? markdownToDocument(included[ref.reusableContent]!) : null),
    };
    const { html, toc } = documentToHtml(
      markdownToDocument('## Setup\n\n{% include ".gitbook/includes/intro.md" %}\n\n{% include ".gitbook/includes/gone.md" %}'),
      options,
    );
    expect(html).toBe(
      '<h2 id="setup">Setup<a class="anchor" href="#setup" aria-label="Link to Setup">#</a></h2>' +
        '<div class="reusable-content"><h2 id="before-you-start">Before you start<a class="anchor" href="#before-you-start" aria-label="Link to Before you start">#</a></h2><p>You need a token.</p></div>',
    );
    expect(toc.map((entry) => entry.id)).toEqual(["setup", "before-you-start"]);
    expect(documentToHtml(markdownToDocument('{% include ".gitbook/includes/loop.md" %}'), options).html).toBe(
      '<div class="reusable-content"><p>Looping.</p></div>',
    );
    // Without the option, nothing.
    expect(documentToHtml(markdownToDocument('{% include ".gitbook/includes/intro.md" %}'), { resolveRef }).html).toBe("");
  });

  it("renders a conditional (if) block's blocks only when the caller's showIf says so; without it, nothing (nor its headings in the table of contents)", () => {
    const document = markdownToDocument("{% if visitor.claims.beta %}\n### Beta\n\nfor beta visitors\n{% endif %}\n\n## Everyone");
    const shown = documentToHtml(document, { resolveRef: () => null, showIf: (expression) => expression === "visitor.claims.beta" });
    expect(shown.html).toContain('<div class="conditional"><h3 id="beta">');
    expect(shown.html).toContain("<p>for beta visitors</p>");
    expect(shown.toc.map((entry) => entry.title)).toEqual(["Beta", "Everyone"]);
    for (const options of [{ resolveRef: () => null }, { resolveRef: () => null, showIf: () => false }]) {
      const hidden = documentToHtml(document, options);
      expect(hidden.html).not.toContain("beta");
      // The heading levels follow what is shown: "Everyone" is the body's top heading, its <h2>.
      expect(hidden.html).toContain('<h2 id="everyone">');
      expect(hidden.toc).toEqual([{ id: "everyone", title: "Everyone", depth: 1 }]);
    }
  });

  it("renders columns as a columns layout, updates as dated entries with their tags, drawings as the image of their file", () => {
    const document = markdownToDocument(
      '{% columns %}\n{% column width="60%" %}\nleft\n{% endcolumn %}\n{% column %}\nright\n{% endcolumn %}\n{% endcolumns %}\n\n{% updates format="full" %}\n{% update date="2025-12-25" tags="beta,api" %}\n## Shipped\n{% endupdate %}\n{% endupdates %}',
    );
    const drawing = { object: "block", type: "drawing", isVoid: true, data: { ref: { kind: "file", file: "d1" } } } as const;
    const { html, toc } = documentToHtml(
      { ...document, nodes: [...document.nodes, drawing] },
      { resolveRef: (ref) => (ref.kind === "file" ? `/files/${ref.file}` : null) },
    );
    expect(html).toContain('<div class="columns"><div class="column"><p>left</p></div><div class="column"><p>right</p></div></div>');
    expect(html).toContain(
      '<div class="updates"><article class="update"><p class="update-date"><time datetime="2025-12-25T00:00:00.000Z">December 25, 2025</time></p><ul class="update-tags" aria-label="Tags"><li>beta</li><li>api</li></ul><h2 id="shipped">',
    );
    expect(toc.map((entry) => entry.title)).toEqual(["Shipped"]);
    expect(html).toContain('<figure class="image drawing"><img src="/files/d1" alt="Drawing" loading="lazy" decoding="async"></figure>');
    const dated = (format: string) =>
      documentToHtml(markdownToDocument(`{% updates format="${format}" %}\n{% update date="2025-12-25" %}\n{% endupdate %}\n{% endupdates %}`), {
        resolveRef: () => null,
      }).html;
    expect(dated("short")).toContain(">Dec 25, 2025</time>");
    expect(dated("numeric")).toContain(">12/25/2025</time>");
    // In the page's language, with the caller's words.
    const words = { taskDone: "fait", taskToDo: "à faire", download: (name: string) => name, downloadFile: "", linkTo: (heading: string) => heading };
    const french = documentToHtml(
      { ...document, nodes: [...document.nodes, drawing] },
      {
        resolveRef: (ref) => (ref.kind === "file" ? `/files/${ref.file}` : null),
        words: { ...words, dateLocale: "fr-FR", tags: "Étiquettes", drawing: "Dessin" },
      },
    ).html;
    expect(french).toContain('>25 décembre 2025</time></p><ul class="update-tags" aria-label="Étiquettes">');
    expect(french).toContain('alt="Dessin"');
  });

  it("renders a block type it does not know as its text, and tells the caller once per type", () => {
    const unknown = (text: string) => ({
      object: "block",
      type: "integration",
      data: {},
      nodes: [
        { object: "text", leaves: [{ object: "leaf", text, marks: [] }] },
        { object: "block", type: "paragraph", data: {}, nodes: [{ object: "text", leaves: [{ object: "leaf", text: "inner", marks: [] }] }] },
      ],
    });
    const told: string[] = [];
    const { html } = documentToHtml({ object: "document", data: {}, nodes: [unknown("GET /pets"), unknown("POST /pets")] } as unknown as JsonDocument, {
      resolveRef,
      onUnknownBlock: (type) => told.push(type),
    });
    expect(html).toBe("<div><p>GET /pets</p><p>inner</p></div><div><p>POST /pets</p><p>inner</p></div>");
    expect(told).toEqual(["integration"]);
  });

  it("renders an embed only for an http(s) URL, with a caption a document carries", () => {
    const embed = (data: Record<string, unknown>) =>
      documentToHtml({ object: "document", data: {}, nodes: [{ object: "block", type: "embed", isVoid: true, data }] }, { resolveRef }).html;
    for (const url of ["javascript:alert(1)", " JaVaScRiPt:alert(1)", "data:text/html,x", "/pages/p1", "mailto:a@example.com", "//evil.example", "", 3]) {
      expect(embed({ url }), String(url)).toBe("");
    }
    expect(embed({ url: "http://example.com/x", caption: "A <video>" })).toBe(
      '<figure class="embed"><a href="http://example.com/x" rel="noopener">http://example.com/x</a><figcaption>A &#x3C;video></figcaption></figure>',
    );
  });

  it("highlights code on the server, and leaves unknown languages plain", () => {
    const { html } = render("```ts\nconst answer: number = 42;\n```\n\n```nonsense\n<b>x</b>\n```");
    expect(html).toContain('<pre tabindex="0"><code class="hljs language-ts"><span class="hljs-keyword">const</span>');
    expect(html).toContain('<span class="hljs-number">42</span>');
    expect(html).toContain('<code class="hljs language-nonsense">&#x3C;b>x&#x3C;/b></code>');
  });

  it("resolves page, file and anchor links, and leaves what does not resolve as text", () => {
    const document: JsonDocument = {
      object: "document",
      data: {},
      nodes: [
        {
          object: "block",
          type: "paragraph",
          data: {},
          nodes: [
            {
              object: "inline",
              type: "link",
              isVoid: false,
              data: { ref: { kind: "page", page: "p1" } },
              nodes: [{ object: "text", leaves: [{ object: "leaf", text: "page", marks: [] }] }],
            },
            {
              object: "inline",
              type: "link",
              isVoid: false,
              data: { ref: { kind: "file", file: "f1" } },
              nodes: [{ object: "text", leaves: [{ object: "leaf", text: "file", marks: [] }] }],
            },
            {
              object: "inline",
              type: "link",
              isVoid: false,
              data: { ref: { kind: "anchor", anchor: "top" } },
              nodes: [{ object: "text", leaves: [{ object: "leaf", text: "anchor", marks: [] }] }],
            },
            {
              object: "inline",
              type: "link",
              isVoid: false,
              data: { ref: { kind: "page", page: "hidden" } },
              nodes: [{ object: "text", leaves: [{ object: "leaf", text: "hidden", marks: [] }] }],
            },
          ],
        },
      ],
    };
    expect(documentToHtml(document, { resolveRef }).html).toBe('<p><a href="/docs/p1">page</a><a href="/files/f1">file</a><a href="#top">anchor</a>hidden</p>');
  });

  it("never emits script: hostile URLs are dropped and text is escaped", () => {
    const { html } = render(
      "[x](javascript:alert(1)) [y](JaVa\tScRiPt:alert(1)) [z](data:text/html,<script>) <script>alert(1)</script> <img src=x onerror=alert(1)>",
    );
    expect(html).not.toMatch(/<script|javascript:|data:text|<img src="x"|onerror="/i);
    expect(html).toContain("&#x3C;script>");
    expect(safeUrl(" https://example.com/a ")).toBe("https://example.com/a");
    expect(safeUrl("//evil.example")).toBeNull();
    expect(safeUrl("vbscript:x")).toBeNull();
    expect(safeUrl("../guide")).toBe("../guide");
  });

  it("renders any input without throwing and without script, a property", () => {
    const leaf = fc.record({
      object: fc.constant("leaf"),
      text: fc.string(),
      marks: fc.array(fc.record({ object: fc.constant("mark"), type: fc.constantFrom("bold", "italic", "code", "strikethrough", "x") }), { maxLength: 3 }),
    });
    const ref = fc.oneof(
      fc.record({ kind: fc.constant("url"), url: fc.oneof(fc.string(), fc.constant("javascript:alert(1)"), fc.webUrl()) }),
      fc.record({ kind: fc.constant("page"), page: fc.string() }),
      fc.record({ kind: fc.constant("file"), file: fc.string() }),
    );
    const inline = fc.oneof(
      fc.record({ object: fc.constant("text"), leaves: fc.array(leaf, { maxLength: 3 }) }),
      fc.record({
        object: fc.constant("inline"),
        type: fc.constant("link"),
        data: fc.record({ ref }),
        nodes: fc.array(fc.record({ object: fc.constant("text"), leaves: fc.array(leaf, { maxLength: 2 }) }), { maxLength: 2 }),
      }),
      fc.record({ object: fc.constant("inline"), type: fc.constant("inline-image"), data: fc.record({ ref, alt: fc.string() }) }),
      fc.record({
        object: fc.constant("inline"),
        type: fc.constant("inline-math"),
        data: fc.record({ formula: fc.oneof(fc.string(), fc.constant("</annotation><script>"), fc.constant("\\htmlData{onclick=x}{y}")) }),
      }),
    );
    const block = fc.letrec((tie) => ({
      block: fc.record({
        object: fc.constant("block"),
        type: fc.constantFrom(
          "paragraph",
          "heading-1",
          "heading-2",
          "list-unordered",
          "list-item",
          "code",
          "hint",
          "blockquote",
          "images",
          "image",
          "table",
          "tabs",
          "tabs-item",
          "expandable",
          "embed",
          "math",
          "stepper",
          "stepper-step",
          "content-ref",
          "file",
          "unknown",
        ),
        data: fc.oneof(
          fc.constant({}),
          fc.record({ syntax: fc.constantFrom("js", "html", "x") }),
          fc.record({ style: fc.string() }),
          fc.record({ ref, alt: fc.string() }),
          fc.record({ title: fc.oneof(fc.string(), fc.constant("<script>alert(1)</script>")) }),
          fc.record({ url: fc.oneof(fc.string(), fc.constant("javascript:alert(1)"), fc.webUrl()), caption: fc.string() }),
          fc.record({ formula: fc.oneof(fc.string(), fc.constant("</code><script>")) }),
          fc.record({ defaultExpanded: fc.anything() }),
          fc.dictionary(fc.string(), fc.anything()),
        ),
        // Depth-bounded: the generator recurses through `tie`.
        nodes: fc.array(fc.oneof({ depthSize: "small", maxDepth: 3 }, inline, tie("block")), { maxLength: 3 }),
        fragments: fc.array(
          fc.record({
            object: fc.constant("fragment"),
            fragment: fc.constantFrom("expandable-title", "expandable-body", "caption", "fragment-1"),
            nodes: fc.array(fc.oneof({ depthSize: "small", maxDepth: 2 }, inline, tie("block")), { maxLength: 2 }),
          }),
          { maxLength: 2 },
        ),
      }),
    }));
    fc.assert(
      fc.property(fc.array(block.block, { maxLength: 4 }), (nodes) => {
        const { html } = documentToHtml({ object: "document", data: {}, nodes } as unknown as JsonDocument, {
          resolveRef: (r) => (r.kind === "page" ? `/docs/${r.page}` : null),
        });
        expect(html).not.toMatch(/<script|javascript:/i);
        // An event handler is an attribute of a tag; text inside a quoted value (an aria-label naming
        // "…on…=") is not one, so values are emptied before looking.
        expect(html.replace(/="[^"]*"/g, '=""')).not.toMatch(/<[^>]*\son[a-z]+=/i);
      }),
      { numRuns: 300 },
    );
  });
});
