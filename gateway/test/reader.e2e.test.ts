import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { SignJWT } from "jose";
import type { ReaderHandle } from "@imprint/reader";
import { eventually, pageUpdate } from "@imprint/runtime/testing";
import { commitDraftWork, editingClient } from "./support/editing.js";
import { createOrganization, createSpace, type TestOrganization } from "./support/factories.js";
import { call } from "./support/http.js";
import { pagesOf, startTestReader, writeContent } from "./support/reader.js";
import { startStack, type TestStack } from "./support/stack.js";

/**
 * The reader over HTTP, on the real stack: sites published through the API, read as a visitor
 * would (no token of the API), each audience's rules enforced on the server.
 */
let stack: TestStack;
let org: TestOrganization;
let reader: ReaderHandle;

beforeAll(async () => {
  stack = await startStack();
  org = await createOrganization(stack);
  // Without events: every read asks publishing and content, so what a test changes shows at once.
  reader = await startTestReader(stack);
});
afterAll(async () => {
  await reader?.stop();
  await stack?.stop();
});

const owner = (json?: unknown) => ({ token: org.owner.token, ...(json === undefined ? {} : { json }) });
const read = (path: string, init: RequestInit = {}) => fetch(`${reader.url}${path}`, { redirect: "manual", ...init });

/** A published site of one space with three pages, the second linking to the third. */
async function publishedSite(basename: string): Promise<{ siteId: string; spaceId: string; base: string }> {
  const space = await createSpace(stack, org, { title: `${basename} space` });
  await writeContent(
    stack,
    org,
    space.id,
    pagesOf([
      ["welcome", "# Welcome\n\nStart here."],
      [
        "install",
        '# Install\n\n## On Linux\n\nRead [the guide](./guide.md).\n\n```js\nconst answer = 42;\n```\n\n{% hint style="warning" %}\nBack up first.\n{% endhint %}',
      ],
      ["guide", "# Guide\n\nThe guide."],
    ]),
  );
  const site = (await org.owner.api.orgs.createSite(org.organizationId, { title: `${basename} docs`, spaces: [space.id] })).data;
  await org.owner.api.orgs.updateSiteById(org.organizationId, site.id, { basename });
  await org.owner.api.orgs.publishSite(org.organizationId, site.id);
  const base = `/${org.organizationId}/${basename}/`;
  // Content learns that the space is published from publishing's announcement.
  await eventually(async () => (await read(base)).status === 200);
  return { siteId: site.id, spaceId: space.id, base };
}

describe("the reader", () => {
  it("serves a public site's pages as HTML with their navigation, and as markdown, every answer with its security headers", async () => {
    const { base } = await publishedSite("handbook");
    const home = await read(base);
    expect(home.headers.get("content-type")).toContain("text/html");
    expect(home.headers.get("cache-control")).toBe("public, max-age=0, must-revalidate");
    const html = await home.text();
    expect(html).toContain("<title>Welcome · handbook docs</title>");
    expect(html).toContain(`<a href="${base}install">Install</a>`);
    expect(html).not.toContain('name="robots"');

    const install = await (await read(`${base}install`)).text();
    // The page title is its <h1>; the body's "## On Linux", its shallowest heading, is the <h2> below it.
    expect(install).toContain('<h2 id="on-linux">');
    expect(install).toContain(`<a href="${base}guide">the guide</a>`);
    expect(install).toContain('<span class="hljs-keyword">const</span>');
    // GitBook's own hint spelling renders as a hint.
    expect(install).toContain('<div class="hint hint-warning" role="alert"><p>Back up first.</p></div>');
    expect(install).toContain(`<a href="${base}install" aria-current="page">Install</a>`);
    expect(install).toMatch(/rel="prev"[^>]*>.*Welcome/s);

    const markdown = await read(`${base}install.md`);
    expect(markdown.headers.get("content-type")).toContain("text/markdown");
    expect(await markdown.text()).toContain("# Install\n\n## On Linux");
    expect((await read(`${base}no-such-page`)).status).toBe(404);
    expect((await read(`/${org.organizationId}/no-such-site/`)).status).toBe(404);

    // Security headers on every answer: a page runs only what the reader wrote, nothing is sniffed, only https pages frame it.
    const page = await read(`${base}install`);
    const policy = page.headers.get("content-security-policy") ?? "";
    const directive = (name: string) => policy.split("; ").find((entry) => entry.startsWith(`${name} `));
    expect(directive("default-src")).toBe("default-src 'self'");
    // The theme boot script is allowed by its hash: nothing inline is allowed wholesale.
    expect(directive("script-src")).toMatch(/^script-src 'self' 'sha256-[\w+/]+=*'$/);
    expect(policy).not.toContain("unsafe-inline");
    expect(directive("object-src")).toBe("object-src 'none'");
    expect(directive("base-uri")).toBe("base-uri 'self'");
    expect(directive("frame-ancestors")).toBe("frame-ancestors 'self' https:");
    for (const answer of [page, await read(`${base}install.md`), await read(`${base}no-such-page`), await read("/healthz")]) {
      expect(answer.headers.get("content-security-policy")).toContain("default-src");
      expect(answer.headers.get("x-content-type-options")).toBe("nosniff");
      expect(answer.headers.get("referrer-policy")).toBe("strict-origin-when-cross-origin");
      // Reached over plain http: no HSTS.
      expect(answer.headers.get("strict-transport-security")).toBeNull();
    }

    // Reached over https (its public URL): every answer keeps browsers on https.
    const secure = await startTestReader(stack, { env: { IMPRINT_READER_URL: "https://docs.imprint.test" } });
    try {
      expect((await fetch(`${secure.url}/healthz`)).headers.get("strict-transport-security")).toMatch(/^max-age=\d{7,}/);
    } finally {
      await secure.stop();
    }
  });

  it("speaks the space's language: its lang and the reader's own words follow it", async () => {
    const { spaceId, base } = await publishedSite("polyglot");
    await org.owner.api.spaces.updateSpaceById(spaceId, { language: "fr" as never });
    const french = await (await read(`${base}install`)).text();
    expect(french).toContain('<html lang="fr"');
    for (const words of ["Aller au contenu", "Sur cette page", "Précédent", 'placeholder="Rechercher…"']) expect(french).toContain(words);
    expect(french).not.toContain("On this page");

    await org.owner.api.spaces.updateSpaceById(spaceId, { language: "en" as never });
    const english = await (await read(`${base}install`)).text();
    expect(english).toContain('<html lang="en"');
    for (const words of ["Skip to content", "On this page", "Previous"]) expect(english).toContain(words);
  });

  it("shows a reusable content where a page includes it: in its HTML (headings in 'On this page') and in its markdown", async () => {
    const { spaceId, base } = await publishedSite("snippets");
    const guide = await call(stack, "GET", `/v1/spaces/${spaceId}/content/path/guide`, owner());
    const editing = editingClient(stack);
    try {
      await commitDraftWork(editing, { userId: org.owner.userId, spaceId }, async (draftId, caller) => {
        const { reusableContent } = await editing.setReusableContent({
          caller,
          draftId,
          reusableContentId: "",
          title: "Prerequisites",
          markdown: "## Before you start\n\nYou need a **token**.",
          delete: false,
        });
        const markdown = `The guide.\n\n{% include ".gitbook/includes/${reusableContent!.id}.md" %}`;
        await editing.updatePage({ caller, draftId, page: pageUpdate({ pageId: guide.body.id, markdown }) });
      });
    } finally {
      editing.close();
    }
    const html = await (await read(`${base}guide`)).text();
    expect(html).toContain('<div class="reusable-content"><h2 id="before-you-start">Before you start');
    expect(html).toContain("You need a <strong>token</strong>.");
    expect(html).toContain('href="#before-you-start"');
    const markdown = await (await read(`${base}guide.md`)).text();
    expect(markdown).toContain("The guide.\n\n## Before you start\n\nYou need a **token**.");
    expect(markdown).not.toContain("{% include");

    // Another space's of the organization shows too, at that space's head (GitBook's are live); another organization's shows nothing, logged once.
    const shared = await createSpace(stack, org, { title: "Shared snippets" });
    const elsewhere = await createOrganization(stack);
    const foreign = await createSpace(stack, elsewhere, { title: "Foreign snippets" });
    const edits = editingClient(stack);
    try {
      const snippet = async (spaceId: string, userId: string, text: string, reusableContentId = "") => {
        let id = "";
        await commitDraftWork(edits, { userId, spaceId }, async (draftId, caller) => {
          const written = await edits.setReusableContent({ caller, draftId, reusableContentId, title: "Snippet", markdown: text, delete: false });
          id = written.reusableContent!.id;
        });
        return id;
      };
      const sharedId = await snippet(shared.id, org.owner.userId, "Shared **v1**.");
      const foreignId = await snippet(foreign.id, elsewhere.owner.userId, "Foreign secret.");
      const includes = `{% include ".gitbook/includes/${sharedId}.md" space="${shared.id}" %}\n\n{% include ".gitbook/includes/${foreignId}.md" space="${foreign.id}" %}`;
      await commitDraftWork(edits, { userId: org.owner.userId, spaceId }, (draftId, caller) =>
        edits.updatePage({ caller, draftId, page: pageUpdate({ pageId: guide.body.id, markdown: `The guide.\n\n${includes}` }) }),
      );
      const html = await (await read(`${base}guide`)).text();
      expect(html).toContain('<div class="reusable-content"><p>Shared <strong>v1</strong>.</p></div>');
      expect(html).not.toContain("Foreign secret");
      expect(await (await read(`${base}guide.md`)).text()).toContain("The guide.\n\nShared **v1**.");
      await snippet(shared.id, org.owner.userId, "Shared **v2**.", sharedId);
      await eventually(async () => (await (await read(`${base}guide`)).text()).includes("Shared <strong>v2</strong>."));
      const live = await (await read(`${base}guide.md`)).text();
      expect(live).toContain("Shared **v2**.");
      expect(live).not.toContain("Foreign secret");
      const warnings = stack.contentLogs.filter((line) => line.level === "warn" && line.included_space_id === foreign.id);
      expect(warnings.map((line) => [line.msg, line.space_id])).toEqual([
        ["a published page includes reusable content of another organization's space: it shows nothing", spaceId],
      ]);
    } finally {
      edits.close();
    }
  });

  it("serves a share-link site only through an active link's key, and no site once unpublished", async () => {
    const { siteId, base } = await publishedSite("partners");
    await org.owner.api.orgs.updateSiteById(org.organizationId, siteId, { visibility: "share-link" as never });
    const link = (await org.owner.api.orgs.createSiteShareLink(org.organizationId, siteId, { name: "Partner" })).data;
    const key = link.urls.published!.split("/").at(-2)!;
    expect((await read(base)).status).toBe(404);
    const through = await read(`${base}${key}/install`);
    expect(through.status).toBe(200);
    const html = await through.text();
    // Links keep the key; the site is kept out of search engines.
    expect(html).toContain(`href="${base}${key}/guide"`);
    expect(html).toContain('<meta name="robots" content="noindex">');
    expect(through.headers.get("cache-control")).toBe("private, no-cache");
    await org.owner.api.orgs.updateSiteShareLinkById(org.organizationId, siteId, link.id, { active: false });
    expect((await read(`${base}${key}/install`)).status).toBe(404);

    await org.owner.api.orgs.unpublishSite(org.organizationId, siteId);
    expect((await read(`${base}${key}/`)).status).toBe(404);
  });

  it("serves a visitor-auth site to visitors with a token signed by its key, or members with theirs", async () => {
    const { siteId, base } = await publishedSite("internal");
    await org.owner.api.orgs.updateSiteById(org.organizationId, siteId, { visibility: "visitor-auth" as never });
    const { privateKey } = (await org.owner.api.orgs.getSitePublishingAuthById(org.organizationId, siteId)).data;
    const sign = (expiresIn: string | number) =>
      new SignJWT({ plan: "pro" }).setProtectedHeader({ alg: "HS256" }).setIssuedAt().setExpirationTime(expiresIn).sign(new TextEncoder().encode(privateKey));

    expect((await read(base)).status).toBe(401);
    await org.owner.api.orgs.updateSitePublishingAuthById(org.organizationId, siteId, {
      backend: "custom" as never,
      fallbackURL: "https://login.example.com/",
    });
    const refused = await read(base);
    expect(refused.status).toBe(302);
    expect(refused.headers.get("location")).toMatch(/^https:\/\/login\.example\.com\/\?location=/);

    const token = await sign("1h");
    const signedIn = await read(`${base}install?jwt_token=${token}`);
    expect(signedIn.status).toBe(200);
    const cookie = signedIn.headers.get("set-cookie")!;
    expect(cookie).toMatch(/imprint_visitor_\w+=/);
    expect(cookie).toContain(`path=${base}`);
    expect(cookie.toLowerCase()).toContain("httponly");
    // The cookie carries the visitor on; a token past its time does not.
    expect((await read(`${base}guide`, { headers: { cookie: cookie.split(";")[0]! } })).status).toBe(200);
    expect((await read(`${base}?jwt_token=${await sign(Math.floor(Date.now() / 1000) - 60)}`)).status).toBe(302);
    expect((await read(`${base}?jwt_token=${token.slice(0, -2)}xx`)).status).toBe(302);

    // Regenerating the key refuses every token it signed, at once.
    await org.owner.api.orgs.regenerateSitePublishingAuthById(org.organizationId, siteId);
    expect((await read(`${base}guide`, { headers: { cookie: cookie.split(";")[0]! } })).status).toBe(302);

    // A member reads with the token the organization ping gives.
    const ping = await call(stack, "POST", `/v1/orgs/${org.organizationId}/ping`, owner());
    expect((await read(`${base}?jwt_token=${ping.body.serviceVisitorClaims as string}`)).status).toBe(200);
  });
});

describe("the reader's rate limit", () => {
  it("limits each client address, says its budget on every answer, and answers 429 with Retry-After past it", async () => {
    // A frozen clock: the window never rolls mid-test.
    const frozen = new Date();
    const limited = await startTestReader(stack, { env: { READER_RATE_LIMIT_PER_IP: "2" }, clock: () => frozen });
    try {
      const resetAt = Math.ceil((frozen.getTime() - (frozen.getTime() % 60_000) + 60_000) / 1000);
      const visit = (headers: Record<string, string> = {}) => fetch(`${limited.url}/no-organization/no-site/`, { headers });
      const budget = (response: Response) => [
        response.status,
        response.headers.get("x-ratelimit-limit"),
        response.headers.get("x-ratelimit-remaining"),
        response.headers.get("x-ratelimit-reset"),
      ];
      expect(budget(await visit())).toEqual([404, "2", "1", String(resetAt)]);
      // Probes are not counted; a forged X-Forwarded-For (no proxy trusted) changes nothing.
      expect((await fetch(`${limited.url}/healthz`)).headers.get("x-ratelimit-limit")).toBeNull();
      expect(budget(await visit({ "x-forwarded-for": "198.51.100.9" }))).toEqual([404, "2", "0", String(resetAt)]);
      const refused = await visit({ "x-forwarded-for": "198.51.100.10" });
      expect(budget(refused)).toEqual([429, "2", "0", String(resetAt)]);
      expect(refused.headers.get("retry-after")).toBe(String(Math.ceil((resetAt * 1000 - frozen.getTime()) / 1000)));
      expect(await refused.text()).toContain("Too many requests");
      // No site is read before the limit: the visitor's language, from Accept-Language.
      const japanese = await visit({ "accept-language": "de;q=0.5, ja-JP, en;q=0.8" });
      expect(japanese.status).toBe(429);
      expect(japanese.headers.get("vary")).toBe("Accept-Language");
      const text = await japanese.text();
      expect(text).toContain('<html lang="ja">');
      expect(text).toContain("リクエストが多すぎます");
    } finally {
      await limited.stop();
    }
  });
});

describe("the reader's OpenAPI blocks", () => {
  it("renders OpenAPI blocks from a spec stored through the API (by slug) or fetched by content (by URL) as an API reference, and as markdown", async () => {
    const spec = {
      openapi: "3.1.0",
      info: { title: "Pets", version: "1" },
      servers: [{ url: "https://pets.example.com/v1" }],
      paths: {
        "/pets/{petId}": {
          get: {
            summary: "Get a pet",
            parameters: [
              { name: "petId", in: "path", required: true, schema: { type: "string" } },
              { name: "fields", in: "query", description: "Fields to include", schema: { type: "string" } },
            ],
            responses: {
              "200": { description: "The pet", content: { "application/json": { schema: { type: "object", properties: { name: { type: "string" } } } } } },
            },
          },
        },
      },
    };
    // Served to the content service from loopback (the stack allows private fetches).
    const server = createServer((_request, response) => {
      response.writeHead(200, { "content-type": "application/json" });
      response.end(JSON.stringify(spec));
    });
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    try {
      const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/pets.json`;
      await org.owner.api.orgs.createOrUpdateOpenApiSpecBySlug(org.organizationId, "pets", { source: { url } });
      await eventually(async () => (await org.owner.api.orgs.getOpenApiSpecBySlug(org.organizationId, "pets")).data.lastVersion !== undefined, 15_000);

      const space = await createSpace(stack, org, { title: "API space" });
      // A YAML spec that is a file of the space (as Git Sync imports a repository's own spec file).
      const editing = editingClient(stack);
      let specFileId = "";
      try {
        await commitDraftWork(editing, { userId: org.owner.userId, spaceId: space.id }, async (draftId, caller) => {
          const yaml =
            "openapi: 3.0.3\ninfo: {title: Store, version: '1'}\nservers: [{url: 'https://store.example.com'}]\npaths:\n  /orders:\n    get:\n      summary: List orders\n      responses: {'200': {description: The orders}}\n";
          specFileId = (
            await editing.uploadFile({ caller, draftId, fileId: "", name: "store.yaml", contentType: "application/yaml", content: Buffer.from(yaml) })
          ).file!.id;
        });
      } finally {
        editing.close();
      }
      const block = '{% openapi-operation spec="pets" path="/pets/{petId}" method="get" %}\n{% endopenapi-operation %}';
      await writeContent(
        stack,
        org,
        space.id,
        pagesOf([
          [
            "reference",
            `# Reference\n\nThe API.\n\n${block}\n\n{% openapi-operation spec="nothing" path="/x" method="post" %}\n{% endopenapi-operation %}\n\n{% openapi src="${url.replace("pets.json", "external.json")}" path="/pets/{petId}" method="get" %}\n{% endopenapi %}\n\n{% swagger src="/files/${specFileId}" path="/orders" method="get" %}\n{% endswagger %}`,
          ],
        ]),
      );
      const site = (await org.owner.api.orgs.createSite(org.organizationId, { title: "API docs", spaces: [space.id] })).data;
      await org.owner.api.orgs.updateSiteById(org.organizationId, site.id, { basename: "api-docs" });
      await org.owner.api.orgs.publishSite(org.organizationId, site.id);
      const base = `/${org.organizationId}/api-docs/`;
      await eventually(async () => (await read(base)).status === 200);

      const page = await read(base);
      const html = await page.text();
      expect(html).toContain('<span class="method method-get">GET</span> <code>/pets/{petId}</code>');
      expect(html).toContain('<th scope="row"><code>petId</code></th><td>path</td>');
      expect(html).toContain("<td>Fields to include</td>");
      expect(html).toContain("curl -X GET 'https://pets.example.com/v1/pets/{petId}'");
      // A spec that does not exist: a note with the method and path, not an error.
      expect(html).toContain("<code>POST /x</code>: this API operation's specification or the operation in it could not be found.");
      // A spec no stored specification has, named by its URL: content fetches it through its fetch guard.
      expect(html.match(/<span class="method method-get">GET<\/span> <code>\/pets\/\{petId\}<\/code>/g)).toHaveLength(2);
      // A YAML spec that is a file of the space, named by a swagger block.
      expect(html).toContain('<span class="method method-get">GET</span> <code>/orders</code>');
      expect(html).toContain("curl -X GET 'https://store.example.com/orders'");
      // The "Test it" script is the reader's own, and the page may call the API it documents.
      expect(html).toMatch(/<script src="[^"]*\/_assets\/openapi\.[\w-]{12}\.js" async><\/script>/);
      expect(page.headers.get("content-security-policy")).toContain("connect-src 'self' https://pets.example.com https://store.example.com;");

      const markdown = await (await read(`${base}reference.md`)).text();
      expect(markdown).toContain("### `GET /pets/{petId}`");
      expect(markdown).toContain("| `petId` | path | string | yes |  |");
      expect(markdown).toContain("### `GET /orders`");
      expect(await (await read(`${base}llms-full.txt`)).text()).toContain("### `GET /pets/{petId}`\n\nGet a pet");

      // In the space's language: the reference, the "Test it" panel and the words its script shows, the markdown.
      await org.owner.api.spaces.updateSpaceById(space.id, { language: "fr" as never });
      const french = await (await read(base)).text();
      for (const words of [
        "<h3>Paramètres</h3>",
        '<th scope="row"><code>petId</code></th><td>chemin</td>',
        "<td>Obligatoire</td>",
        "<h3>Exemples de code</h3>",
      ])
        expect(french).toContain(words);
      expect(french).toContain("<code>POST /x</code> : la spécification de cette opération d’API");
      expect(french).toMatch(
        /<form class="openapi-try"[^>]* aria-label="Tester GET \/pets\/\{petId\}"[^>]* data-sending="Envoi…" data-failed="La requête a échoué : \{error\}/,
      );
      expect(french).toContain("<h3>Tester</h3>");
      expect(french).toContain('<button type="submit">Envoyer</button>');
      expect(french).toContain('data-copy="Copier"');
      expect(french).not.toMatch(/>(Parameters|Test it|Send|Responses)</);
      expect(await (await read(`${base}reference.md`)).text()).toContain("| `petId` | chemin | string | oui |  |");
      await org.owner.api.spaces.updateSpaceById(space.id, { language: "ja" as never });
      const japanese = await (await read(base)).text();
      for (const words of [
        "<h3>パラメーター</h3>",
        "<td>パス</td>",
        "<h3>試してみる</h3>",
        'data-sending="送信中…"',
        '<button type="submit">送信</button>',
        'data-copy="コピー"',
      ])
        expect(japanese).toContain(words);
      expect(await (await read(`${base}reference.md`)).text()).toContain("| パラメーター | 場所 | 型 | 必須 | 説明 |");
    } finally {
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    }
  });
});
