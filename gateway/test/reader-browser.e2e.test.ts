import { mkdir, writeFile } from "node:fs/promises";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { join } from "node:path";
import { SignJWT } from "jose";
import type { Browser, BrowserContextOptions, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { ReaderHandle } from "@imprint/reader";
import { eventually, patient } from "@imprint/runtime/testing";
import { launchChromium, screenshot, SCREENSHOT_DIR } from "./support/browser.js";
import { createOrganization, createSpace, type TestOrganization } from "./support/factories.js";
import { pagesOf, publishSampleSite, startTestReader, writeContent, type SampleSite } from "./support/reader.js";
import { startStack, type TestStack } from "./support/stack.js";

/**
 * The reader in a real browser (Debian's Chromium through playwright-core): a visitor reads the
 * sample site by clicking, searches with and without JavaScript, and meets each audience's rules.
 * Every scene's screenshot is saved under test-results/reader/ (looked at, never committed).
 */
let stack: TestStack;
let org: TestOrganization;
let reader: ReaderHandle;
let browser: Browser;
let site: SampleSite;
/** A stand-in for a customer's sign-in page: visitor-auth sites send visitors without a token here. */
let signIn: { server: Server; url: string };

const TIMEOUT = patient(10_000);
const url = (path: string) => `${reader.url}${path}`;

beforeAll(async () => {
  stack = await startStack();
  org = await createOrganization(stack);
  reader = await startTestReader(stack, { events: true });
  site = await publishSampleSite(stack, org, "acme", reader.url);
  browser = await launchChromium();
  const server = createServer((_request, response) => {
    response.writeHead(200, { "content-type": "text/html; charset=utf-8" });
    response.end("<!doctype html><title>Sign in</title><h1>Sign in to Acme</h1>");
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  signIn = { server, url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/login` };
  // Search reads content's index, fed by events: wait until the sample site's words are in it.
  await eventually(async () => ((await (await fetch(url(`${site.base}?q=frobnicator&format=json`))).json()) as unknown[]).length > 0, 15_000);
}, patient(120_000));
afterAll(async () => {
  await browser?.close();
  signIn?.server.close();
  await reader?.stop();
  await stack?.stop();
});

/** A fresh visitor (own cookies), with its first page. */
async function visitor(options: BrowserContextOptions = {}): Promise<Page> {
  const context = await browser.newContext({ viewport: { width: 1280, height: 900 }, ...options });
  context.setDefaultTimeout(TIMEOUT);
  return context.newPage();
}
const heading = (page: Page) => page.locator("main h1").first().textContent();
const pathOf = (page: Page) => new URL(page.url()).pathname + new URL(page.url()).search + new URL(page.url()).hash;

/** Switches the site's audience (and back in `finally`), waiting until the reader sees it. */
async function withVisibility(visibility: "share-link" | "visitor-auth", scene: () => Promise<void>): Promise<void> {
  const api = org.owner.api.orgs;
  await api.updateSiteById(org.organizationId, site.siteId, { visibility: visibility as never });
  try {
    await eventually(async () => (await fetch(url(site.base), { redirect: "manual" })).status !== 200);
    await scene();
  } finally {
    await api.updateSiteById(org.organizationId, site.siteId, { visibility: "public" as never });
    await eventually(async () => (await fetch(url(site.base))).status === 200);
  }
}

describe("the reader in a browser", () => {
  it("navigates a public site by the sidebar, previous and next, its variants and its sections", async () => {
    const page = await visitor();
    await page.goto(url(site.base));
    expect(await page.title()).toBe("Welcome · Acme docs");
    await page.locator("aside.tree").getByRole("link", { name: "Install" }).click();
    await page.waitForURL(url(`${site.base}install`));
    expect(await heading(page)).toBe("Install");
    expect(await page.locator("aside.tree [aria-current=page]").textContent()).toBe("Install");
    await screenshot(page, "public-page");

    await page.locator("nav.pagination a.next").click();
    await page.waitForURL(url(`${site.base}configure`));
    expect(await heading(page)).toBe("Configure");
    await page.locator("nav.pagination a.previous").click();
    await page.waitForURL(url(`${site.base}install`));

    // The variant switcher leads to v2's edition of the section.
    await page.locator("nav.variants").getByRole("link", { name: "Guide v2" }).click();
    await page.waitForURL(url(`${site.base}v2/`));
    expect(await heading(page)).toBe("Welcome to v2");
    await screenshot(page, "variant");

    // A visitor who opts into the beta (an unsigned claim) sees its section and moves to it.
    await page.goto(url(`${site.base}?visitor.beta=true`));
    await page.locator("nav.sections").getByRole("link", { name: "Beta" }).click();
    await page.waitForURL(url(`${site.base}beta/`));
    expect(await heading(page)).toBe("Preview");
    await page.locator("nav.sections").getByRole("link", { name: "Guide" }).click();
    await page.waitForURL(url(site.base));
    await screenshot(page, "sections");

    // The keyboard reaches the content first.
    await page.keyboard.press("Tab");
    // Expressions run in the page (this file is compiled without the DOM's types).
    expect(await page.evaluate("document.activeElement?.textContent")).toBe("Skip to content");
    await page.context().close();
  });

  it("shows math as MathML without script, draws a mermaid diagram, and loads mermaid only on the page that holds one", async () => {
    await writeContent(
      stack,
      org,
      site.spaces.guideV2,
      pagesOf([
        [
          "formulas",
          "# Formulas\n\nEnergy is $$E = mc^2$$ in a sentence.\n\n$$\n\\int_0^1 x^2\\,dx = \\frac{1}{3}\n$$\n\n```mermaid\ngraph LR\n  Write-->Review-->Publish\n```",
        ],
        ["long-read", `# Long read\n\n${"A paragraph that fills the screen.\n\n".repeat(80)}\`\`\`mermaid\ngraph LR\n  Far-->Down\n\`\`\``],
        [
          "layout",
          '# Layout\n\n{% columns %}\n{% column %}\nThe left column.\n{% endcolumn %}\n{% column %}\nThe right column.\n{% endcolumn %}\n{% endcolumns %}\n\n{% updates format="full" %}\n{% update date="2025-12-25" tags="beta" %}\n## Shipped\n\nThe release.\n{% endupdate %}\n{% endupdates %}',
        ],
      ]),
    );
    await eventually(async () => (await fetch(url(`${site.base}v2/formulas`))).status === 200, 15_000);
    // Agents read the formulas as written.
    const markdown = await (await fetch(url(`${site.base}v2/formulas.md`))).text();
    expect(markdown).toContain("Energy is $$E = mc^2$$ in a sentence.");
    expect(markdown).toContain("$$\n\\int_0^1 x^2\\,dx = \\frac{1}{3}\n$$");
    const page = await visitor();
    const requested: string[] = [];
    const refused: string[] = [];
    page.on("request", (request) => requested.push(new URL(request.url()).pathname));
    page.on("console", (message) => {
      if (message.type() === "error") refused.push(message.text());
    });
    await page.goto(url(`${site.base}install`));
    await page.waitForLoadState("networkidle");
    expect(requested.filter((path) => /mermaid|diagrams\./.test(path))).toEqual([]);

    await page.goto(url(`${site.base}v2/formulas`));
    expect(await page.locator("article math").count()).toBe(2);
    expect(await page.locator("article p .math-inline annotation").textContent()).toBe("E = mc^2");
    // MathML is laid out by the browser itself: the fraction has a height of its own.
    expect(await page.evaluate(`document.querySelector("article .math mfrac").getBoundingClientRect().height`)).toBeGreaterThan(10);
    // Mermaid replaces the source with its drawing, whose nodes carry the diagram's words.
    await page.locator("article pre.mermaid svg .node").last().waitFor();
    expect(await page.locator("article pre.mermaid svg .node").allTextContents()).toEqual(["Write", "Review", "Publish"]);
    expect(requested.some((path) => /\/_assets\/mermaid-[^/]+\/mermaid\.esm\.min\.mjs$/.test(path))).toBe(true);
    expect(refused).toEqual([]);
    await screenshot(page, "math-and-diagram");
    await page.context().close();

    // A diagram far down the page: mermaid is fetched only once the visitor scrolls near it.
    const reading = await visitor();
    const fetched: string[] = [];
    reading.on("request", (request) => fetched.push(new URL(request.url()).pathname));
    await reading.goto(url(`${site.base}v2/long-read`));
    await reading.waitForLoadState("networkidle");
    expect(fetched.some((path) => /diagrams\./.test(path))).toBe(true);
    expect(fetched.filter((path) => /\/_assets\/mermaid-/.test(path))).toEqual([]);
    await reading.locator("article pre.mermaid").scrollIntoViewIfNeeded();
    await reading.locator("article pre.mermaid svg .node").last().waitFor();
    expect(await reading.locator("article pre.mermaid svg .node").allTextContents()).toEqual(["Far", "Down"]);
    await reading.context().close();

    // Without script the formulas are the same MathML, and the diagram's source stays readable.
    const withoutScript = await visitor({ javaScriptEnabled: false });
    await withoutScript.goto(url(`${site.base}v2/formulas`));
    expect(await withoutScript.locator("article math").count()).toBe(2);
    expect(await withoutScript.locator("article pre.mermaid").textContent()).toBe("graph LR\n  Write-->Review-->Publish");
    await screenshot(withoutScript, "math-and-diagram-without-javascript");
    await withoutScript.context().close();

    // Columns sit side by side on a wide screen and stack on a narrow one; updates show their date.
    const columnTops = async (width: number) => {
      const reader = await visitor({ viewport: { width, height: 900 } });
      await reader.goto(url(`${site.base}v2/layout`));
      const tops = await reader.evaluate<number[]>(`[...document.querySelectorAll("article div.column")].map((column) => column.getBoundingClientRect().top)`);
      expect(await reader.locator("article.update time").textContent()).toBe("December 25, 2025");
      await screenshot(reader, `columns-and-updates-${width}`);
      await reader.context().close();
      return tops;
    };
    const [left, right] = await columnTops(1280);
    expect(right).toBe(left);
    const [above, below] = await columnTops(400);
    expect(below).toBeGreaterThan(above ?? Number.POSITIVE_INFINITY);
  });

  it("searches as the visitor types, and through the form with JavaScript off", async () => {
    const page = await visitor();
    await page.goto(url(`${site.base}configure`));
    await page.locator("header #q").pressSequentially("frobnicator");
    const live = page.locator("ul.live-results a").first();
    await live.waitFor();
    expect(await live.locator("strong").textContent()).toBe("Install");
    expect(await live.locator("small").textContent()).toContain("frobnicator");
    await screenshot(page, "search-as-you-type");
    // The keyboard reaches the results: down to the first, Enter opens it.
    await page.keyboard.press("ArrowDown");
    await page.keyboard.press("Enter");
    await page.waitForURL(url(`${site.base}install#requirements`));
    await page.context().close();

    const withoutScript = await visitor({ javaScriptEnabled: false });
    await withoutScript.goto(url(site.base));
    await withoutScript.locator("header #q").fill("frobnicator");
    await withoutScript.locator("header #q").press("Enter");
    await withoutScript.waitForURL(url(`${site.base}?q=frobnicator`));
    expect(await heading(withoutScript)).toBe("Results for “frobnicator”");
    await withoutScript.locator("ol.hits").getByRole("link", { name: "Install" }).click();
    await withoutScript.waitForURL(url(`${site.base}install#requirements`));
    await screenshot(withoutScript, "search-without-javascript");
    await withoutScript.context().close();
  });

  it("opens a share-link site only through its link's key, which every link keeps", async () => {
    await withVisibility("share-link", async () => {
      const link = (await org.owner.api.orgs.createSiteShareLink(org.organizationId, site.siteId, { name: "Partner" })).data;
      const key = link.urls.published!.split("/").at(-2)!;
      const page = await visitor();
      expect((await page.goto(url(site.base)))!.status()).toBe(404);
      await screenshot(page, "share-link-without-key");
      expect((await page.goto(url(`${site.base}${key}/`)))!.status()).toBe(200);
      await page.locator("aside.tree").getByRole("link", { name: "Install" }).click();
      await page.waitForURL(url(`${site.base}${key}/install`));
      expect(await heading(page)).toBe("Install");
      await screenshot(page, "share-link-with-key");
      await page.context().close();
    });
  });

  it("signs visitors of a visitor-auth site in with a token and shows each the pages their claims allow", async () => {
    await org.owner.api.orgs.updateSitePublishingAuthById(org.organizationId, site.siteId, { backend: "custom" as never, fallbackURL: signIn.url });
    await withVisibility("visitor-auth", async () => {
      const { privateKey } = (await org.owner.api.orgs.getSitePublishingAuthById(org.organizationId, site.siteId)).data;
      const sign = (claims: Record<string, unknown>, expires: string | number) =>
        new SignJWT(claims).setProtectedHeader({ alg: "HS256" }).setExpirationTime(expires).sign(new TextEncoder().encode(privateKey));

      const anonymous = await visitor();
      await anonymous.goto(url(`${site.base}install`));
      expect(anonymous.url().startsWith(`${signIn.url}?location=`)).toBe(true);
      expect(await anonymous.locator("h1").textContent()).toBe("Sign in to Acme");
      await anonymous.context().close();

      const expired = await visitor();
      await expired.goto(url(`${site.base}?jwt_token=${await sign({ plan: "pro" }, Math.floor(Date.now() / 1000) - 60)}`));
      expect(expired.url().startsWith(signIn.url)).toBe(true);
      await expired.context().close();

      // A pro visitor sees the Pro section; the token rides in a cookie from the first page on.
      const pro = await visitor();
      await pro.goto(url(`${site.base}?jwt_token=${await sign({ plan: "pro" }, "1h")}`));
      await pro.locator("nav.sections").getByRole("link", { name: "Pro" }).click();
      await pro.waitForURL(url(`${site.base}pro/`));
      expect(await heading(pro)).toBe("Billing");
      await screenshot(pro, "visitor-auth-pro");
      await pro.context().close();

      // A free visitor does not: not in the navigation, and 404 by URL.
      const free = await visitor();
      await free.goto(url(`${site.base}?jwt_token=${await sign({ plan: "free" }, "1h")}`));
      expect(await heading(free)).toBe("Welcome");
      expect(await free.locator("nav.sections").getByRole("link", { name: "Pro" }).count()).toBe(0);
      expect((await free.goto(url(`${site.base}pro/billing`)))!.status()).toBe(404);
      await screenshot(free, "visitor-auth-free-hidden-page");
      await free.context().close();
    });
  });

  it("follows the visitor's colour scheme, and the toggle switches it", async () => {
    const background = (page: Page) => page.evaluate("getComputedStyle(document.body).backgroundColor");
    const dark = await visitor({ colorScheme: "dark" });
    await dark.goto(url(`${site.base}install`));
    expect(await background(dark)).toBe("rgb(17, 17, 20)");
    await screenshot(dark, "dark-mode");
    await dark.context().close();

    const light = await visitor({ colorScheme: "light" });
    await light.goto(url(`${site.base}install`));
    expect(await background(light)).toBe("rgb(255, 255, 255)");
    await light.locator("button.theme").click();
    expect(await background(light)).toBe("rgb(17, 17, 20)");
    // The choice is kept for the next page.
    await light.goto(url(`${site.base}configure`));
    expect(await background(light)).toBe("rgb(17, 17, 20)");
    expect(pathOf(light)).toBe(`${site.base}configure`);
    await light.context().close();
  });

  it("runs and styles nothing its Content-Security-Policy refuses, and all the reader wrote: the site's colours, a table's alignment, the script", async () => {
    const api = org.owner.api.orgs;
    const customization = (await api.getSiteCustomizationById(org.organizationId, site.siteId)).data;
    const coloured = { ...customization, styling: { ...customization.styling, primaryColor: { light: "#0A7C66", dark: "#35D0B0" } } };
    await api.updateSiteCustomizationById(org.organizationId, site.siteId, coloured);
    try {
      await eventually(async () => (await (await fetch(url(`${site.base}install`))).text()).includes("#0A7C66"));
      const page = await visitor({ colorScheme: "light" });
      const refused: string[] = [];
      page.on("console", (message) => {
        if (message.text().includes("Content Security Policy")) refused.push(message.text());
      });
      const answer = await page.goto(url(`${site.base}install`));
      expect(answer!.headers()["content-security-policy"]).not.toContain("unsafe-inline");
      // The inline colours apply (the current page's link is in the accent colour), so does the column's alignment.
      expect(await page.evaluate('getComputedStyle(document.querySelector("aside.tree a[aria-current]")).color')).toBe("rgb(10, 124, 102)");
      expect(await page.evaluate('getComputedStyle(document.querySelectorAll("main td")[1]).textAlign')).toBe("right");
      // The reader's script runs: it shows the toggle and adds copy buttons.
      await page.locator("button.theme").click();
      expect(await page.locator("figure.code button.copy").count()).toBeGreaterThan(0);
      expect(refused).toEqual([]);
      await page.context().close();
    } finally {
      await api.updateSiteCustomizationById(org.organizationId, site.siteId, customization);
    }
  });

  it("tests an OpenAPI operation from the page: the panel sends the form to the API and shows the status and body", async () => {
    // A stand-in API on loopback that allows any origin (as an API documented for browsers must), and its spec.
    const calls: string[] = [];
    const api = createServer((request, response) => {
      calls.push(`${request.method} ${request.url} ${String(request.headers["x-trace"] ?? "")}`);
      const cors = { "access-control-allow-origin": "*", "access-control-allow-headers": "x-trace, content-type" };
      if (request.method === "OPTIONS") {
        response.writeHead(204, cors);
        response.end();
        return;
      }
      if (request.url === "/spec.json") {
        response.writeHead(200, { "content-type": "application/json" });
        response.end(JSON.stringify(spec));
        return;
      }
      response.writeHead(200, { ...cors, "content-type": "application/json" });
      response.end(JSON.stringify({ id: request.url?.split("/")[2]?.split("?")[0], name: "Rex" }));
    });
    await new Promise<void>((resolve) => api.listen(0, "127.0.0.1", resolve));
    const origin = `http://127.0.0.1:${(api.address() as AddressInfo).port}`;
    const spec = {
      openapi: "3.1.0",
      info: { title: "Pets", version: "1" },
      servers: [{ url: origin }],
      paths: {
        "/pets/{petId}": {
          get: {
            summary: "Get a pet",
            parameters: [
              { name: "petId", in: "path", required: true, schema: { type: "string" } },
              { name: "X-Trace", in: "header", schema: { type: "string" } },
            ],
            responses: { "200": { description: "The pet" } },
          },
        },
      },
    };
    try {
      const orgs = org.owner.api.orgs;
      await orgs.createOrUpdateOpenApiSpecBySlug(org.organizationId, "browser-pets", { source: { url: `${origin}/spec.json` } });
      await eventually(async () => (await orgs.getOpenApiSpecBySlug(org.organizationId, "browser-pets")).data.lastVersion !== undefined, 15_000);
      const space = await createSpace(stack, org, { title: "Pets API" });
      await writeContent(
        stack,
        org,
        space.id,
        pagesOf([["pets", '# Pets\n\n{% openapi-operation spec="browser-pets" path="/pets/{petId}" method="get" %}\n{% endopenapi-operation %}']]),
      );
      const apiSite = (await orgs.createSite(org.organizationId, { title: "Pets docs", spaces: [space.id] })).data;
      await orgs.updateSiteById(org.organizationId, apiSite.id, { basename: "pets-docs" });
      await orgs.publishSite(org.organizationId, apiSite.id);
      const base = `/${org.organizationId}/pets-docs/`;
      await eventually(async () => (await fetch(url(base))).status === 200);

      const page = await visitor();
      const refused: string[] = [];
      page.on("console", (message) => {
        if (message.text().includes("Content Security Policy")) refused.push(message.text());
      });
      await page.goto(url(base));
      const panel = page.getByRole("form", { name: "Test GET /pets/{petId}" });
      await panel.getByLabel("petId (path, required)").fill("p-42");
      await panel.getByLabel("X-Trace (header)").fill("trace-1");
      await panel.getByRole("button", { name: "Send" }).click();
      await expect.poll(() => panel.locator("output").textContent(), { timeout: TIMEOUT }).toContain("200 OK");
      expect(JSON.parse((await panel.locator("output pre").textContent()) ?? "")).toEqual({ id: "p-42", name: "Rex" });
      expect(calls).toContain("GET /pets/p-42 trace-1");
      expect(refused).toEqual([]);
      await screenshot(page, "openapi-test-it");
      await page.context().close();
    } finally {
      api.closeAllConnections();
      await new Promise((resolve) => api.close(resolve));
    }
  });

  it("shows the site's look: its self-hosted font, its dark logo in dark mode and by the toggle, and a 404 in its frame", async () => {
    // The site's logos, served as a customer's CDN would.
    const logos = createServer((request, response) => {
      const dark = request.url?.includes("dark");
      response.writeHead(200, { "content-type": "image/svg+xml" });
      response.end(`<svg xmlns="http://www.w3.org/2000/svg" width="160" height="32"><rect width="160" height="32" fill="${dark ? "#fff" : "#000"}"/></svg>`);
    });
    await new Promise<void>((resolve) => logos.listen(0, "127.0.0.1", resolve));
    const logoBase = `http://127.0.0.1:${(logos.address() as AddressInfo).port}`;
    const api = org.owner.api.orgs;
    // When it was last updated is no setting to send back.
    const { updatedAt: _updatedAt, ...customization } = (await api.getSiteCustomizationById(org.organizationId, site.siteId)).data;
    await api.updateSiteCustomizationById(org.organizationId, site.siteId, {
      ...customization,
      header: { ...customization.header, logo: { light: `${logoBase}/logo-light.svg`, dark: `${logoBase}/logo-dark.svg` } },
    });
    const shownLogo = (page: Page) =>
      page.evaluate('[...document.querySelectorAll("header .brand img")].filter((img) => img.offsetParent !== null).map((img) => img.className).join()');
    try {
      await eventually(async () => (await (await fetch(url(`${site.base}install`))).text()).includes("logo-dark.svg"));
      const fonts: string[] = [];
      const dark = await visitor({ colorScheme: "dark" });
      dark.on("request", (request) => {
        if (request.resourceType() === "font") fonts.push(request.url());
      });
      await dark.goto(url(`${site.base}install`));
      expect(await shownLogo(dark)).toBe("logo-dark");
      // The font is the reader's own file (GitBook's default, Inter), loaded and used; nothing from elsewhere.
      expect(await dark.evaluate("document.fonts.ready.then(() => document.fonts.check('16px \"Inter Variable\"'))")).toBe(true);
      expect(await dark.evaluate("getComputedStyle(document.body).fontFamily")).toMatch(/^"Inter Variable"/);
      expect(fonts.length).toBe(1);
      expect(fonts[0]!.startsWith(`${reader.url}/_assets/font-inter.`)).toBe(true);
      await screenshot(dark, "look-dark-logo");
      // The page's link-preview card, kept beside the screenshots.
      const card = await fetch((await dark.locator('meta[property="og:image"]').getAttribute("content"))!);
      expect(card.headers.get("content-type")).toBe("image/png");
      await mkdir(SCREENSHOT_DIR, { recursive: true });
      await writeFile(join(SCREENSHOT_DIR, "look-og-card.png"), Buffer.from(await card.arrayBuffer()));
      // The toggle to light shows the light logo, whatever the system prefers.
      await dark.locator("button.theme").click();
      expect(await shownLogo(dark)).toBe("logo-light");
      await dark.context().close();

      const light = await visitor({ colorScheme: "light" });
      await light.goto(url(`${site.base}install`));
      expect(await shownLogo(light)).toBe("logo-light");
      // An unknown page: 404, with the site's header, search and navigation, which still lead somewhere.
      expect((await light.goto(url(`${site.base}no-such-page`)))!.status()).toBe(404);
      expect(await heading(light)).toBe("Page not found");
      expect(await light.locator("header form.search input").isVisible()).toBe(true);
      await screenshot(light, "look-not-found");
      await light.locator("aside.tree a", { hasText: "Install" }).click();
      await light.waitForURL((address) => address.pathname === `${site.base}install`);
      expect(await heading(light)).toBe("Install");
      await light.context().close();
    } finally {
      await api.updateSiteCustomizationById(org.organizationId, site.siteId, customization);
      logos.close();
    }
  });
});
