import type { Browser, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { testLogger, uniqueEmail } from "@imprint/runtime/testing";
import { launchChromium, screenshot } from "./support/browser.js";
import {
  APP_PASSWORD,
  heading,
  keyboardGaps,
  newVisitor,
  openApp,
  resetLink,
  setPassword,
  signInThroughForm,
  startAppStack,
  type AppStack,
} from "./support/app-browser.js";
import { createCollection, createMember, createOrganization, createSpace, type TestOrganization } from "./support/factories.js";
import { call } from "./support/http.js";
import { UNREACHED_RATE_LIMITS } from "./support/stack.js";
import { loadGatewayConfig, startGateway } from "../src/index.js";

/**
 * The browser app's shell through the gateway, in a real browser (Debian's Chromium through
 * playwright-core): the gateway forwards the app's paths to the app target, so the app and the API
 * share one origin; people sign in, land on the page they asked for, manage their API tokens and
 * sign out. Screenshots under test-results/reader/ (looked at, never committed).
 */
let env: AppStack;
let org: TestOrganization;
let browser: Browser;

beforeAll(async () => {
  env = await startAppStack();
  org = await createOrganization(env.stack, { title: "Acme Docs" });
  browser = await launchChromium();
}, 120_000);
afterAll(async () => {
  await browser?.close();
  await env?.stop();
});

/** A member of the organization with a password. */
async function person(role: "admin" | "edit" | "read" = "edit") {
  const member = await createMember(env.stack, org, { role, displayName: "Ada Lovelace" });
  await setPassword(env.stack, member.email);
  return member;
}

/** The shell's HTML through the gateway, and the path of its entry script. */
async function shell(path: string, headers: Record<string, string> = {}) {
  const response = await fetch(`${env.origin}${path}`, { headers });
  const html = await response.text();
  return { response, html, script: /<script type="module"[^>]* src="([^"]+)"/.exec(html)?.[1] };
}

describe("the shell and its assets, through the gateway", () => {
  it("answers every app path with the HTML shell under the app's security headers, never cached", async () => {
    for (const path of ["/", "/sign-in?return=%2Fo%2Fx%2F", `/o/${org.organizationId}/`, "/account/tokens", "/join/o/i", "/reset-password?token=t"]) {
      const { response, html, script } = await shell(path);
      expect(response.status, path).toBe(200);
      expect(response.headers.get("content-type")).toBe("text/html; charset=utf-8");
      expect(html).toContain('<div id="app">');
      expect(script).toMatch(/^\/assets\/index-[\w-]+\.js$/);
      // No inline script anywhere: the policy allows the origin's files only.
      expect(html).not.toMatch(/<script(?![^>]*\bsrc=)[^>]*>/);
      const csp = response.headers.get("content-security-policy") ?? "";
      expect(csp).toContain("script-src 'self'");
      expect(csp).toContain("frame-ancestors 'none'");
      expect(csp).not.toContain("unsafe-inline");
      expect(response.headers.get("x-content-type-options")).toBe("nosniff");
      expect(response.headers.get("referrer-policy")).toBe("same-origin");
      expect(response.headers.get("cache-control")).toBe("no-cache");
    }
  });

  it("serves hashed assets immutable and precompressed (brotli, else gzip), and 404 for an unknown one", async () => {
    const { script } = await shell("/");
    const brotli = await fetch(`${env.origin}${script}`, { headers: { "accept-encoding": "br" } });
    expect(brotli.status).toBe(200);
    expect(brotli.headers.get("content-encoding")).toBe("br");
    expect(brotli.headers.get("content-type")).toBe("text/javascript; charset=utf-8");
    expect(brotli.headers.get("cache-control")).toBe("public, max-age=31536000, immutable");
    expect(brotli.headers.get("vary")).toBe("Accept-Encoding");
    const source = await brotli.text();
    expect(source.length).toBeGreaterThan(1000);
    const gzip = await fetch(`${env.origin}${script}`, { headers: { "accept-encoding": "gzip" } });
    expect(gzip.headers.get("content-encoding")).toBe("gzip");
    expect(await gzip.text()).toBe(source);

    const missing = await fetch(`${env.origin}/assets/index-missing.js`);
    expect(missing.status).toBe(404);
    expect(missing.headers.get("cache-control")).toBe("no-store");
  });

  it("keeps the API's own answers: /v1 is JSON, a path of neither is the API's 404", async () => {
    const api = await fetch(`${env.origin}/v1/auth/session`);
    expect(api.status).toBe(401);
    expect(api.headers.get("content-security-policy")).toContain("default-src 'none'");
    const neither = await fetch(`${env.origin}/nowhere`);
    expect(neither.status).toBe(404);
    expect(((await neither.json()) as { error: { code: number } }).error.code).toBe(404);
  });

  it("answers the app's paths 404 on a gateway without GATEWAY_APP_URL", async () => {
    const gateway = await startGateway(loadGatewayConfig({ ...env.stack.upstreamEnv, IMPRINT_PORT: "0", ...UNREACHED_RATE_LIMITS }), {
      logger: testLogger("gateway without the app"),
    });
    try {
      for (const path of ["/", "/sign-in", "/assets/index.js"]) {
        const response = await fetch(`${gateway.url}${path}`);
        expect(response.status, path).toBe(404);
        expect(((await response.json()) as { error: { code: number } }).error.code).toBe(404);
      }
    } finally {
      await gateway.stop();
    }
  });
});

describe("signing in", () => {
  it("shows the sign-in page for an organization's urls.app opened without a session, then that organization with its spaces", async () => {
    const member = await person();
    const space = await createSpace(env.stack, org, { title: "Handbook" });
    const collection = await createCollection(env.stack, org, { title: "Guides" });
    const organization = await call(env.stack, "GET", `/v1/orgs/${org.organizationId}`, { token: org.owner.token });
    const appUrl = (organization.body as { urls: { app: string } }).urls.app;
    expect(appUrl).toBe(`${env.origin}/o/${org.organizationId}/`);

    const page = await newVisitor(browser);
    await openApp(page, appUrl);
    expect(await heading(page)).toBe("Sign in to Imprint");
    // The page asked for stays in the address bar: signing in comes back to it.
    expect(page.url()).toBe(appUrl);
    await screenshot(page, "app-sign-in");
    await signInThroughForm(page, member.email);
    await expect.poll(() => heading(page)).toBe("Acme Docs");
    expect(page.url()).toBe(appUrl);
    const handbook = page.getByRole("link", { name: "Handbook" });
    expect(await handbook.getAttribute("href")).toBe(`/o/${org.organizationId}/s/${space.id}/`);
    expect(await page.getByRole("link", { name: "Guides" }).getAttribute("href")).toBe(`/o/${org.organizationId}/c/${collection.id}/`);
    await expect.poll(() => page.getByRole("button", { name: /Account/ }).textContent()).toContain("Ada Lovelace");
    await screenshot(page, "app-organization");
    expect(await keyboardGaps(page), "organization page").toEqual({ unreached: [], unnamed: [] });

    // The collection's page, by its link, without reloading the shell.
    await page.getByRole("link", { name: "Guides" }).click();
    await expect.poll(() => heading(page)).toBe("Guides");
    expect(await page.getByRole("navigation", { name: "Breadcrumb" }).textContent()).toContain("Acme Docs");
    expect(await keyboardGaps(page), "collection page").toEqual({ unreached: [], unnamed: [] });
    await page.context().close();
  });

  it("says a wrong password is wrong, and signs in with the right one", async () => {
    const member = await person();
    const page = await newVisitor(browser);
    await openApp(page, "/sign-in", env.origin);
    await signInThroughForm(page, member.email, "not the password at all");
    await expect.poll(() => page.getByRole("alert").textContent()).toContain("Wrong e-mail or password");
    await signInThroughForm(page, member.email);
    await expect.poll(() => heading(page)).toBe("Your organizations");
    expect(new URL(page.url()).pathname).toBe("/");
    expect(await page.getByRole("link", { name: "Acme Docs" }).getAttribute("href")).toBe(`/o/${org.organizationId}/`);
    await page.context().close();
  });

  it("says how long to wait once the account is locked", async () => {
    const member = await person();
    // The lockout's failures in a row (PASSWORD_LOCKOUT_FAILURES, 10 by default), through the API.
    for (let attempt = 0; attempt < 10; attempt++) {
      const failed = await call(env.stack, "POST", "/v1/auth/password", {
        json: { email: member.email, password: "a wrong password" },
        notInOpenApi: "Imprint's sign-in (docs/sign-in.md)",
      });
      expect(failed.status).toBeGreaterThanOrEqual(400);
    }
    const page = await newVisitor(browser);
    await openApp(page, "/sign-in", env.origin);
    await signInThroughForm(page, member.email);
    await expect.poll(() => page.getByRole("alert").textContent()).toMatch(/Try again in \d+ (seconds|minutes)\./);
    expect(await heading(page)).toBe("Sign in to Imprint");
    await page.context().close();
  });

  it("works with the keyboard alone: skip link, then the form by Tab and Enter", async () => {
    const member = await person();
    const page = await newVisitor(browser);
    await openApp(page, `/o/${org.organizationId}/`, env.origin);
    /** The focused element's id, or its text when it has none. */
    const focused = async () => {
      const element = page.locator(":focus");
      return (await element.getAttribute("id")) || (await element.textContent());
    };
    await page.keyboard.press("Tab");
    expect(await focused()).toBe("Skip to content");
    await page.keyboard.press("Tab");
    await page.keyboard.press("Tab");
    expect(await focused()).toBe("sign-in-email");
    await page.keyboard.type(member.email);
    await page.keyboard.press("Tab");
    expect(await focused()).toBe("sign-in-password");
    await page.keyboard.type(APP_PASSWORD);
    await page.keyboard.press("Enter");
    await expect.poll(() => heading(page)).toBe("Acme Docs");
    await page.context().close();
  });

  it("signs out: the session ends and app pages ask to sign in again", async () => {
    const member = await person();
    const page = await newVisitor(browser);
    await openApp(page, "/", env.origin);
    await signInThroughForm(page, member.email);
    await expect.poll(() => heading(page)).toBe("Your organizations");
    await page.getByRole("button", { name: /Account/ }).click();
    await page.getByRole("button", { name: "Sign out", exact: true }).click();
    await expect.poll(() => heading(page)).toBe("Sign in to Imprint");
    const session = await page.evaluate(async () => (await fetch("/v1/auth/session")).status);
    expect(session).toBe(401);
    await openApp(page, "/account/tokens", env.origin);
    expect(await heading(page)).toBe("Sign in to Imprint");
    await page.context().close();
  });

  it("sets a new password through the admin CLI's reset link, then signs in with it", async () => {
    const member = await person();
    const link = await resetLink(env.stack, member.email);
    expect(link.startsWith(`${env.origin}/reset-password?token=`)).toBe(true);
    const page = await newVisitor(browser);
    await openApp(page, link);
    expect(await heading(page)).toBe("Choose a new password");
    const fresh = "a brand new password, long enough";
    await page.getByLabel("New password", { exact: true }).fill(fresh);
    await page.getByLabel("The same password again", { exact: true }).fill(fresh);
    await page.getByRole("button", { name: "Set the new password" }).click();
    await expect.poll(() => heading(page)).toBe("Password changed");
    await page.getByRole("link", { name: "Sign in" }).click();
    await signInThroughForm(page, member.email, fresh);
    await expect.poll(() => heading(page)).toBe("Your organizations");
    await page.context().close();
  });
});

describe("joining through an invite link", () => {
  it("creates the account, joins and opens the organization; a second visit with that e-mail is told to sign in", async () => {
    const invite = await call(env.stack, "POST", `/v1/orgs/${org.organizationId}/link-invites`, { token: org.owner.token, json: { role: "edit" } });
    expect(invite.status).toBe(201);
    const link = `/join/${org.organizationId}/${invite.body.id as string}`;
    const email = uniqueEmail("joiner");
    const page = await newVisitor(browser);
    await openApp(page, link, env.origin);
    expect(await heading(page)).toBe("Join on Imprint");
    await page.getByLabel("Your name", { exact: true }).fill("Grace Hopper");
    await page.getByLabel("E-mail", { exact: true }).fill(email);
    await page.getByLabel("Password", { exact: true }).fill(APP_PASSWORD);
    await page.getByRole("button", { name: "Create my account and join" }).click();
    await expect.poll(() => heading(page)).toBe("Acme Docs");
    expect(new URL(page.url()).pathname).toBe(`/o/${org.organizationId}/`);
    await page.context().close();

    const again = await newVisitor(browser);
    await openApp(again, link, env.origin);
    await again.getByLabel("Your name", { exact: true }).fill("Grace Hopper");
    await again.getByLabel("E-mail", { exact: true }).fill(email);
    await again.getByLabel("Password", { exact: true }).fill(APP_PASSWORD);
    await again.getByRole("button", { name: "Create my account and join" }).click();
    await expect.poll(() => again.getByRole("alert").count()).toBe(1);
    await again.context().close();
  });
});

describe("API tokens", () => {
  it("creates a token whose secret, shown once, works as a Bearer token, and revokes it", async () => {
    const member = await person();
    const page: Page = await newVisitor(browser);
    await openApp(page, "/account/tokens", env.origin);
    await signInThroughForm(page, member.email);
    await expect.poll(() => heading(page)).toBe("API tokens");
    await page.getByLabel("Label", { exact: true }).fill("CI deploys");
    await page.getByRole("button", { name: "Create token" }).click();
    const secret = (await page.locator(".token-secret").textContent()) ?? "";
    expect(secret.length).toBeGreaterThan(20);
    await expect.poll(() => page.getByRole("cell", { name: "CI deploys", exact: true }).count()).toBe(1);
    await screenshot(page, "app-tokens");
    expect(await keyboardGaps(page), "tokens page").toEqual({ unreached: [], unnamed: [] });

    const user = await fetch(`${env.origin}/v1/user`, { headers: { authorization: `Bearer ${secret}` } });
    expect(user.status).toBe(200);
    expect(((await user.json()) as { id: string }).id).toBe(member.userId);

    await page.getByRole("button", { name: "Revoke CI deploys" }).click();
    await expect.poll(() => page.getByRole("cell", { name: "CI deploys", exact: true }).count()).toBe(0);
    expect(await page.getByRole("alert").count()).toBe(0);
    await expect.poll(async () => (await fetch(`${env.origin}/v1/user`, { headers: { authorization: `Bearer ${secret}` } })).status).toBe(401);
    await page.context().close();
  });
});
