import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { SignJWT } from "jose";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { ReaderHandle } from "@imprint/reader";
import { eventually } from "@imprint/runtime/testing";
import { commitDraftWork, editingClient } from "./support/editing.js";
import { createOrganization, createSpace, type TestOrganization } from "./support/factories.js";
import { call } from "./support/http.js";
import { PNG, publishSampleSite, startTestReader, writeContent, type SampleSite } from "./support/reader.js";
import { startStack, type TestStack } from "./support/stack.js";

/**
 * A site with sections, a variant and adaptive content, read through a reader that follows
 * events (as deployed): navigation, unsigned and signed claims, search, the agent outputs, MCP,
 * and caching with entity tags.
 */
let stack: TestStack;
let org: TestOrganization;
let reader: ReaderHandle;
let siteId: string;
let base: string;
let spaces: SampleSite["spaces"];

const read = (path: string, init: RequestInit = {}) => fetch(`${reader.url}${path}`, { redirect: "manual", ...init });
const text = async (path: string, init: RequestInit = {}) => {
  const response = await read(path, init);
  expect(response.status, `${path} answers ${response.status}`).toBe(200);
  return response.text();
};
const cookieOf = (response: Response) =>
  response.headers
    .getSetCookie()
    .map((cookie) => cookie.split(";")[0]!)
    .join("; ");

beforeAll(async () => {
  stack = await startStack();
  org = await createOrganization(stack);
  reader = await startTestReader(stack, { events: true });
  ({ siteId, base, spaces } = await publishSampleSite(stack, org, "acme", reader.url));
}, 120_000);
afterAll(async () => {
  await reader?.stop();
  await stack?.stop();
});

describe("a site with sections, variants and adaptive content", () => {
  it("shows the sections and variants a visitor may see, and nothing else, even by URL", async () => {
    const home = await text(base);
    expect(home).toContain(`<a href="${base}" aria-current="page">Guide</a>`);
    expect(home).not.toContain(">Beta<");
    expect(home).toContain(`<a href="${base}v2/">Guide v2</a>`);
    expect(home).toContain(`<a href="${base}" aria-current="page">Guide</a></li><li><a href="${base}v2/">`);
    expect(await text(`${base}v2/`)).toContain("The second edition.");
    // Links between pages keep the anchor; tables render as tables.
    const configure = await text(`${base}configure`);
    expect(configure).toContain(`<a href="${base}install#requirements">install</a>`);
    expect(await text(`${base}install`)).toContain("<table>");
    expect((await read(`${base}beta/`)).status).toBe(404);
    expect((await read(`${base}beta/preview`)).status).toBe(404);

    // An unsigned claim from the query opens the beta section, and a cookie keeps it.
    const opened = await read(`${base}beta/?visitor.beta=true`);
    expect(opened.status).toBe(200);
    expect(await opened.text()).toContain("The quuxification preview.");
    const cookie = cookieOf(opened);
    expect(opened.headers.get("set-cookie")).toContain(`path=${base}`);
    expect(opened.headers.get("cache-control")).toBe("private, no-cache");
    const withCookie = await text(`${base}install`, { headers: { cookie } });
    expect(withCookie).toContain(`<a href="${base}beta/">Beta</a>`);
    expect((await read(`${base}beta/preview`, { headers: { cookie } })).status).toBe(200);
    // Claims the visitor sends are theirs only: the anonymous page did not change.
    expect(await text(`${base}install`)).not.toContain(">Beta<");
  });

  it("shows pages to visitors by their signed claims on a visitor-auth site", async () => {
    const api = org.owner.api.orgs;
    await api.updateSiteById(org.organizationId, siteId, { visibility: "visitor-auth" as never });
    try {
      const { privateKey } = (await api.getSitePublishingAuthById(org.organizationId, siteId)).data;
      const sign = (claims: Record<string, unknown>) =>
        new SignJWT(claims).setProtectedHeader({ alg: "HS256" }).setExpirationTime("1h").sign(new TextEncoder().encode(privateKey));
      const pro = await eventually(async () => {
        const response = await read(`${base}pro/billing?jwt_token=${await sign({ plan: "pro" })}`);
        return response.status === 200 ? response : null;
      });
      expect(await pro.text()).toContain("Invoices for pro customers.");
      const free = await read(`${base}pro/billing?jwt_token=${await sign({ plan: "free" })}`);
      expect(free.status).toBe(404);
      const freeHome = await read(`${base}?jwt_token=${await sign({ plan: "free" })}`);
      expect(freeHome.status).toBe(200);
      expect(await freeHome.text()).not.toContain(">Pro<");
      expect((await read(`${base}pro/billing`)).status).toBe(401);
    } finally {
      await api.updateSiteById(org.organizationId, siteId, { visibility: "public" as never });
      await eventually(async () => (await read(base)).status === 200);
    }
  });

  it("serves the space's files its pages show: images inline, other files as downloads, sandboxed", async () => {
    const home = await text(base);
    const image = /<img src="([^"]+)" alt="The diagram"/.exec(home)?.[1];
    expect(image).toMatch(new RegExp(`^${base}~files/[\\w-]+$`));
    const png = await read(image!);
    expect(png.status).toBe(200);
    expect(png.headers.get("content-type")).toBe("image/png");
    expect(png.headers.get("content-security-policy")).toBe("sandbox; default-src 'none'");
    expect(Buffer.from(await png.arrayBuffer())).toEqual(PNG);
    expect((await read(image!, { headers: { "if-none-match": png.headers.get("etag")! } })).status).toBe(304);

    const script = /<a href="([^"]+)">the script<\/a>/.exec(home)?.[1];
    const download = await read(script!);
    expect(download.headers.get("content-disposition")).toMatch(/^attachment; filename="setup.sh"/);
    expect(await download.text()).toBe("echo hello\n");
    expect((await read(`${base}~files/no-such-file`)).status).toBe(404);
    // A file is read only where the visitor may read its space.
    expect((await read(`${base}beta/~files/no-such-file`)).status).toBe(404);
  });

  it("searches what the visitor may see, as a page without script and as JSON for search as you type", async () => {
    const hits = await eventually(async () => {
      const response = await read(`${base}?q=frobnicator&format=json`);
      const body = (await response.json()) as { title: string; url: string; excerpt: string }[];
      return body.length > 0 ? body : null;
    }, 15_000);
    expect(hits[0]).toMatchObject({ title: "Install", url: `${base}install#requirements` });
    expect(hits[0]!.excerpt).toContain("frobnicator");
    const page = await text(`${base}?q=frobnicator`);
    expect(page).toContain("Results for “frobnicator”");
    expect(page).toContain(`<a href="${base}install#requirements">Install</a>`);
    expect(page).toContain('<meta name="robots" content="noindex">');

    // The beta section's page is found only by a visitor who sees the section.
    const cookie = cookieOf(await read(`${base}beta/?visitor.beta=true`));
    await eventually(
      async () => ((await (await read(`${base}?q=quuxification&format=json`, { headers: { cookie } })).json()) as unknown[]).length === 1,
      15_000,
    );
    expect(await (await read(`${base}?q=quuxification&format=json`)).json()).toEqual([]);
    expect(await text(`${base}?q=quuxification`)).toContain("No page matches.");
  });

  it("serves robots.txt, sitemap.xml, llms.txt, llms-full.txt and markdown to crawlers and agents", async () => {
    expect(await text(`${base}robots.txt`)).toBe(`User-agent: *\nAllow: /\n\nSitemap: ${reader.url}${base}sitemap.xml\n`);
    const sitemap = await text(`${base}sitemap.xml`);
    expect(sitemap).toContain(`<loc>${reader.url}${base}install</loc>`);
    expect(sitemap).toContain(`<loc>${reader.url}${base}v2/</loc>`);
    expect(sitemap).not.toContain("beta");
    // A noIndex page is left out of the sitemap and asks crawlers to leave it out, as HTML and as markdown.
    expect(sitemap).not.toContain("changelog");
    expect(await text(`${base}changelog`)).toContain('<meta name="robots" content="noindex">');
    expect(await text(`${base}install`)).not.toContain('name="robots"');
    expect((await read(`${base}changelog.md`)).headers.get("x-robots-tag")).toBe("noindex");

    const llms = await text(`${base}llms.txt`);
    expect(llms.startsWith("# Acme docs\n")).toBe(true);
    expect(llms).toContain("## Guide\n");
    expect(llms).toContain(`## Guide · Guide v2\n\n- [Welcome to v2](${reader.url}${base}v2/welcome.md)`);
    expect(llms).toContain(`- [Install](${reader.url}${base}install.md)`);
    expect(llms).not.toContain("Preview");
    const full = await text(`${base}llms-full.txt`);
    expect(full).toContain("# Install\n\n## Requirements\n\nThe frobnicator needs Linux.");
    expect(full).toContain("# Configure");
    expect(full).not.toContain("The second edition.");

    const negotiated = await read(`${base}install`, { headers: { accept: "text/markdown" } });
    expect(negotiated.headers.get("content-type")).toContain("text/markdown");
    expect(await negotiated.text()).toContain("The frobnicator needs Linux.");
    expect(await text(`${base}install.md`)).toContain("# Install");
  });

  it("answers the MCP tools over the visitor's view of the site", async () => {
    const client = new Client({ name: "reader-e2e", version: "1.0.0" });
    await client.connect(new StreamableHTTPClientTransport(new URL(`${reader.url}${base}~gitbook/mcp`)));
    try {
      const { tools } = await client.listTools();
      expect(tools.map((tool) => tool.name).sort()).toEqual(["getPage", "searchDocumentation"]);
      const found = await eventually(async () => {
        const result = (await client.callTool({ name: "searchDocumentation", arguments: { query: "frobnicator" } })) as { content: { text: string }[] };
        return result.content[0]!.text.includes("URL:") ? result.content[0]!.text : null;
      }, 15_000);
      expect(found).toContain(`URL: ${reader.url}${base}install#requirements`);
      const page = (await client.callTool({ name: "getPage", arguments: { url: `${reader.url}${base}install` } })) as {
        content: { text: string }[];
        isError?: boolean;
      };
      expect(page.isError).toBeFalsy();
      expect(page.content[0]!.text).toContain("The frobnicator needs Linux.");
      const hidden = (await client.callTool({ name: "getPage", arguments: { url: `${base}beta/preview` } })) as { isError?: boolean };
      expect(hidden.isError).toBe(true);
    } finally {
      await client.close();
    }
  });

  it("answers 413 to an MCP post past its bound, which the client still sending reads (declared or streamed)", async () => {
    const large = Buffer.alloc(4 * 1024 * 1024, 0x20);
    const streamed = () =>
      new ReadableStream<Uint8Array>({
        start(controller) {
          for (let offset = 0; offset < large.length; offset += 256 * 1024) controller.enqueue(large.subarray(offset, offset + 256 * 1024));
          controller.close();
        },
      });
    for (const [kind, body] of [
      ["declared", () => large],
      ["streamed", streamed],
    ] as const) {
      const response = await fetch(`${reader.url}${base}~gitbook/mcp`, {
        method: "POST",
        headers: { "content-type": "application/json", accept: "application/json, text/event-stream" },
        body: body(),
        duplex: "half",
      });
      // The rest of the body is read and discarded: the connection is not closed under the client.
      expect([kind, response.status, response.headers.get("connection"), ((await response.json()) as { error: { message: string } }).error.message]).toEqual([
        kind,
        413,
        "keep-alive",
        "request body over 1048576 bytes",
      ]);
    }
  });

  it("keeps agents out when agentsContext is excluded", async () => {
    // agentsContext is Imprint's (interface.md); GitBook's client does not know it.
    const setAgentsContext = async (agentsContext: string) =>
      expect((await call(stack, "PATCH", `/v1/orgs/${org.organizationId}/sites/${siteId}`, { token: org.owner.token, json: { agentsContext } })).status).toBe(
        200,
      );
    await setAgentsContext("excluded");
    try {
      await eventually(async () => (await read(`${base}llms.txt`)).status === 404);
      expect((await read(`${base}llms-full.txt`)).status).toBe(404);
      expect((await read(`${base}install.md`)).status).toBe(404);
      const mcp = await read(`${base}~gitbook/mcp`, {
        method: "POST",
        headers: { "content-type": "application/json", accept: "application/json, text/event-stream" },
        body: "{}",
      });
      expect(mcp.status).toBe(404);
      expect((await read(`${base}install`)).status).toBe(200);
    } finally {
      await setAgentsContext("included");
    }
  });

  it("stops serving a share link's key as soon as the link is deactivated", async () => {
    const api = org.owner.api.orgs;
    await api.updateSiteById(org.organizationId, siteId, { visibility: "share-link" as never });
    try {
      const link = (await api.createSiteShareLink(org.organizationId, siteId, { name: "Partner" })).data;
      const key = link.urls.published!.split("/").at(-2)!;
      await eventually(async () => (await read(`${base}${key}/install`)).status === 200);
      await api.updateSiteShareLinkById(org.organizationId, siteId, link.id, { active: false });
      // The link's event reaches the reader, which drops what it knew of the key.
      await eventually(async () => (await read(`${base}${key}/install`)).status === 404);
    } finally {
      await api.updateSiteById(org.organizationId, siteId, { visibility: "public" as never });
      await eventually(async () => (await read(base)).status === 200);
    }
  });

  it("answers an unknown page with a 404 in the site's frame (navigation, search, its fonts) and the space's language", async () => {
    await org.owner.api.spaces.updateSpaceById(spaces.guide, { language: "de" as never });
    try {
      const missing = await eventually(async () => {
        const response = await read(`${base}no-such-page`);
        return response.status === 404 && (await response.clone().text()).includes('lang="de"') ? response : null;
      });
      expect(missing.headers.get("cache-control")).toBe("no-store");
      const html = await missing.text();
      for (const words of ["Seite nicht gefunden", "Zur Startseite", 'role="search"', 'class="tree"', ">Install<"]) expect(html).toContain(words);
      // The page's own policy allows its inline style (the site's look) by hash.
      expect(missing.headers.get("content-security-policy")).toMatch(/style-src 'self' 'sha256-/);
      // The site's font (GitBook's default, Inter) comes from the reader itself, cached forever.
      const font = /<link rel="preload" href="([^"]+\.woff2)"/.exec(html)![1]!;
      expect(font.startsWith(`${new URL(reader.url).pathname.replace(/\/$/, "")}/_assets/font-inter.`)).toBe(true);
      const file = await read(font);
      expect([file.status, file.headers.get("content-type"), file.headers.get("cache-control")]).toEqual([
        200,
        "font/woff2",
        "public, max-age=31536000, immutable",
      ]);
      expect(
        Buffer.from(await file.arrayBuffer())
          .subarray(0, 4)
          .toString("latin1"),
      ).toBe("wOF2");
      // A missing file of the site too; outside any site, the bare page.
      expect(await (await read(`${base}~files/no-such-file`)).text()).toContain("Seite nicht gefunden");
      expect(await (await read(`/${org.organizationId}/no-such-site/`)).text()).not.toContain('role="search"');
      // A visitor-auth site's sign-in page speaks its language too (and shows none of its content).
      await org.owner.api.orgs.updateSiteById(org.organizationId, siteId, { visibility: "visitor-auth" as never });
      try {
        const signIn = await eventually(async () => {
          const response = await read(`${base}install`);
          return response.status === 401 ? response.text() : null;
        });
        expect(signIn).toContain('<html lang="de">');
        expect(signIn).toContain("Melden Sie sich an, um diese Seite zu lesen");
        expect(signIn).not.toContain("Install");
      } finally {
        await org.owner.api.orgs.updateSiteById(org.organizationId, siteId, { visibility: "public" as never });
        await eventually(async () => (await read(base)).status === 200);
      }
    } finally {
      await org.owner.api.spaces.updateSpaceById(spaces.guide, { language: "en" as never });
    }
  });

  it("links each page's generated card as og:image: a PNG with the site's and page's titles, immutable under its hash, read under the page's rules", async () => {
    const imageOf = (html: string) => /<meta property="og:image" content="([^"]+)"/.exec(html)?.[1];
    const image = imageOf(await text(`${base}install`))!;
    expect(image).toMatch(new RegExp(`^${reader.url}${base}~og/[\\w-]+\\.png\\?v=[\\w-]{16}$`));
    expect(await text(`${base}install`)).toContain(`<meta name="twitter:image" content="${image}">`);
    const card = await read(new URL(image).pathname + new URL(image).search);
    expect([card.status, card.headers.get("content-type"), card.headers.get("cache-control")]).toEqual([
      200,
      "image/png",
      "public, max-age=31536000, immutable",
    ]);
    const png = Buffer.from(await card.arrayBuffer());
    expect(png.subarray(1, 4).toString("latin1")).toBe("PNG");
    expect([png.readUInt32BE(16), png.readUInt32BE(20)]).toEqual([1200, 630]);
    expect((await read(new URL(image).pathname, { headers: { "if-none-match": card.headers.get("etag")! } })).status).toBe(304);
    // Each page its own card; a page the visitor may not read has none.
    expect(imageOf(await text(`${base}configure`))).not.toBe(image);
    const preview = await read(`${base}beta/?visitor.beta=true`);
    const hidden = imageOf(await preview.text())!;
    expect((await read(new URL(hidden).pathname)).status).toBe(404);
    expect((await read(new URL(hidden).pathname, { headers: { cookie: cookieOf(preview) } })).status).toBe(200);
    expect((await read(`${base}~og/no-such-page.png`)).status).toBe(404);
  });

  it("answers 304 to a visitor holding the page, and the new page soon after a change is merged", async () => {
    const first = await read(`${base}configure`);
    const etag = first.headers.get("etag")!;
    expect(etag).toMatch(/^"[\w-]+"$/);
    expect(first.headers.get("cache-control")).toBe("public, max-age=0, must-revalidate");
    const again = await read(`${base}configure`, { headers: { "if-none-match": etag } });
    expect(again.status).toBe(304);

    const configure = (await org.owner.api.spaces.getPageByPath(spaces.guide, "configure")).data;
    await writeContent(stack, org, spaces.guide, [
      { operation: "update_page", page: configure.id, document: { markdown: "# Configure\n\nEdit `acme.toml`." } },
    ]);
    // The revision's event reaches the reader: the page is rendered anew, under a new tag.
    const changed = await eventually(async () => {
      const response = await read(`${base}configure`, { headers: { "if-none-match": etag } });
      return response.status === 200 ? response : null;
    });
    expect(changed.headers.get("etag")).not.toBe(etag);
    expect(await changed.text()).toContain("acme.toml");

    // Another space's reusable content follows that space's head: a merge there is an event, and the page shows it.
    const shared = await createSpace(stack, org, { title: "Shared snippets" });
    const edits = editingClient(stack);
    try {
      const snippet = async (text: string, reusableContentId = "") => {
        let id = "";
        await commitDraftWork(edits, { userId: org.owner.userId, spaceId: shared.id }, async (draftId, caller) => {
          id = (await edits.setReusableContent({ caller, draftId, reusableContentId, title: "Snippet", markdown: text, delete: false })).reusableContent!.id;
        });
        return id;
      };
      const snippetId = await snippet("Shared first.");
      await writeContent(stack, org, spaces.guide, [
        {
          operation: "update_page",
          page: configure.id,
          document: { markdown: `# Configure\n\n{% include ".gitbook/includes/${snippetId}.md" space="${shared.id}" %}` },
        },
      ]);
      await eventually(async () => (await text(`${base}configure`)).includes("<p>Shared first.</p>"));
      await snippet("Shared second.", snippetId);
      await eventually(async () => (await text(`${base}configure`)).includes("<p>Shared second.</p>"));
      expect(await text(`${base}configure.md`)).toContain("Shared second.");
    } finally {
      edits.close();
    }
  });

  it("shows a conditional block (GitBook's if) only to visitors its expression holds for, in the page, its markdown, llms-full.txt and search; and one on the space's variables once they hold", async () => {
    await writeContent(stack, org, spaces.guide, [
      {
        operation: "insert_page",
        ref: "early",
        slug: "early-access",
        document: {
          markdown: "# Early access\n\nEveryone reads this.\n\n{% if visitor.claims.unsigned.beta %}\n## Beta programme\n\nThe zorblax switch.\n{% endif %}",
        },
      },
      {
        operation: "insert_page",
        ref: "plans",
        slug: "plans",
        document: {
          markdown: '# Plans\n\nEvery plan.\n\n{% if space.vars.plan == "pro" %}\nThe quillwort dial.\n{% endif %}',
        },
      },
    ]);
    const anonymous = await eventually(async () => {
      const response = await read(`${base}early-access`);
      return response.status === 200 ? response.text() : null;
    });
    expect(anonymous).toContain("Everyone reads this.");
    expect(anonymous).not.toContain("zorblax");
    expect(anonymous).not.toContain("Beta programme");
    const cookie = cookieOf(await read(`${base}?visitor.beta=true`));
    const beta = await text(`${base}early-access`, { headers: { cookie } });
    expect(beta).toContain('<h2 id="beta-programme">');
    expect(beta).toContain("The zorblax switch.");
    // Each visitor's variant is kept apart (the cache key holds the claims): the anonymous page did not change.
    expect(await text(`${base}early-access`)).not.toContain("zorblax");

    expect(await text(`${base}early-access.md`)).not.toContain("zorblax");
    const markdown = await text(`${base}early-access.md`, { headers: { cookie } });
    expect(markdown).toContain("## Beta programme\n\nThe zorblax switch.");
    expect(markdown).not.toContain("{% if");
    expect(await text(`${base}llms-full.txt`)).not.toContain("zorblax");
    expect(await text(`${base}llms-full.txt`, { headers: { cookie } })).toContain("The zorblax switch.");

    // Content's index holds the hidden block too: the reader finds the page by it only for a visitor who sees it.
    const found = await eventually(async () => {
      const hits = (await (await read(`${base}?q=zorblax&format=json`, { headers: { cookie } })).json()) as { excerpt: string }[];
      return hits.length === 1 ? hits : null;
    }, 15_000);
    expect(found[0]!.excerpt).toContain("zorblax");
    expect(await (await read(`${base}?q=zorblax&format=json`)).json()).toEqual([]);
    const everyone = (await (await read(`${base}?q=everyone&format=json`)).json()) as { title: string; excerpt: string }[];
    expect(everyone.map((hit) => hit.title)).toEqual(["Early access"]);
    expect(everyone[0]!.excerpt).not.toContain("zorblax");

    // A condition on the space's variables: hidden until the space's revision sets the variable, then shown to everyone.
    const plans = await text(`${base}plans`);
    expect(plans).toContain("Every plan.");
    expect(plans).not.toContain("quillwort");
    const edits = editingClient(stack);
    try {
      await commitDraftWork(edits, { userId: org.owner.userId, spaceId: spaces.guide }, (draftId, caller) =>
        edits.setVariables({ caller, draftId, variables: { plan: "pro" } }),
      );
    } finally {
      edits.close();
    }
    await eventually(async () => (await text(`${base}plans`)).includes("The quillwort dial."));
    expect(await text(`${base}plans.md`)).toContain("The quillwort dial.");
  });
});
