import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import type { Browser, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { launchChromium, screenshot } from "./support/browser.js";
import { heading, keyboardGaps, newVisitor, openApp, setPassword, signInThroughForm, startAppStack, type AppStack } from "./support/app-browser.js";
import { createMember, createOrganization, type TestOrganization } from "./support/factories.js";
import { call } from "./support/http.js";

/**
 * The app's OpenAPI specification pages, in a real browser: a specification's `urls.app` opens its
 * page (source, state, versions), editors add one from a URL and delete it, readers only read.
 */
const SPEC = {
  openapi: "3.0.3",
  info: { title: "Pets", version: "1.0.0" },
  paths: { "/pets": { get: { summary: "List pets", responses: { "200": { description: "The pets" } } } } },
};

let env: AppStack;
let org: TestOrganization;
let browser: Browser;
let specServer: Server;
let specUrl: string;

beforeAll(async () => {
  specServer = createServer((_request, response) => {
    response.writeHead(200, { "content-type": "application/json" });
    response.end(JSON.stringify(SPEC));
  });
  await new Promise<void>((resolve) => specServer.listen(0, "127.0.0.1", resolve));
  specUrl = `http://127.0.0.1:${(specServer.address() as AddressInfo).port}/pets.json`;
  env = await startAppStack({ contentEnv: { IMPRINT_ALLOW_PRIVATE_FETCH: "true" } });
  org = await createOrganization(env.stack, { title: "Spec Org" });
  browser = await launchChromium();
}, 120_000);
afterAll(async () => {
  await browser?.close();
  await env?.stop();
  specServer?.closeAllConnections();
  await new Promise((resolve) => (specServer ? specServer.close(resolve) : resolve(undefined)));
});

async function signedIn(role: "admin" | "read"): Promise<Page> {
  const member = await createMember(env.stack, org, { role, displayName: role === "admin" ? "Ada Admin" : "Rita Reader" });
  await setPassword(env.stack, member.email);
  const page = await newVisitor(browser);
  await openApp(page, `/o/${org.organizationId}/openapi`, env.origin);
  await signInThroughForm(page, member.email);
  await expect.poll(() => heading(page)).toBe("OpenAPI specifications");
  return page;
}

describe("OpenAPI specification pages", () => {
  it("open from a specification's urls.app and show where it is read from, its state and its versions", async () => {
    const created = await call(env.stack, "POST", `/v1/orgs/${org.organizationId}/openapi`, {
      token: org.owner.token,
      json: { slug: "pets", source: { url: specUrl } },
    });
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    const appUrl = (created.body.urls as { app: string }).app;
    expect(appUrl).toBe(`${env.origin}/o/${org.organizationId}/openapi/pets`);

    const page = await signedIn("admin");
    await page.getByRole("link", { name: "pets", exact: true }).click();
    await expect.poll(() => heading(page)).toBe("pets");
    expect(page.url()).toBe(appUrl);
    await expect.poll(() => page.locator(".facts").textContent()).toContain(specUrl);
    // Read by content in the background: the page shows it read, with one version, once reloaded.
    await expect
      .poll(
        async () => {
          await page.reload();
          await page.locator("main h1").waitFor();
          return page.locator("main").textContent();
        },
        { timeout: 30_000 },
      )
      .toMatch(/State\s*Read.*\(current\)/s);
    await screenshot(page, "app-openapi-spec");
    expect(await keyboardGaps(page), "specification page").toEqual({ unreached: [], unnamed: [] });
  });

  it("let editors add a specification from a URL, and delete it", async () => {
    const page = await signedIn("admin");
    await page.getByLabel(/^Name/).fill("orders");
    await page.getByLabel("URL of the specification (JSON or YAML)").fill(specUrl);
    await page.getByRole("button", { name: "Add specification" }).click();
    await expect.poll(() => heading(page)).toBe("orders");
    const listed = await call(env.stack, "GET", `/v1/orgs/${org.organizationId}/openapi/orders`, { token: org.owner.token });
    expect([listed.status, listed.body.sourceURL]).toEqual([200, specUrl]);

    // A name the API refuses is said on the form, nothing is added.
    await openApp(page, `/o/${org.organizationId}/openapi`, env.origin);
    await page.getByLabel(/^Name/).fill("orders");
    await page.getByLabel("URL of the specification (JSON or YAML)").fill(specUrl);
    await page.getByRole("button", { name: "Add specification" }).click();
    await expect.poll(() => page.getByRole("alert").textContent()).toMatch(/orders|exists|already/i);

    await openApp(page, `/o/${org.organizationId}/openapi/orders`, env.origin);
    page.once("dialog", (dialog) => void dialog.accept());
    await page.getByRole("button", { name: "Delete" }).click();
    await expect.poll(() => heading(page)).toBe("OpenAPI specifications");
    expect((await call(env.stack, "GET", `/v1/orgs/${org.organizationId}/openapi/orders`, { token: org.owner.token })).status).toBe(404);
  });

  it("show readers a specification without the editing buttons", async () => {
    const page = await signedIn("read");
    await openApp(page, `/o/${org.organizationId}/openapi/pets`, env.origin);
    await expect.poll(() => heading(page)).toBe("pets");
    expect(await page.getByRole("button", { name: "Delete" }).count()).toBe(0);
    expect(await page.getByRole("button", { name: "Read again" }).count()).toBe(0);
  });
});
