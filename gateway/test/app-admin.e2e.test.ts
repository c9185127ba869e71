import { execFileSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { Browser, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { uniqueEmail } from "@imprint/runtime/testing";
import { launchChromium, screenshot } from "./support/browser.js";
import {
  APP_PASSWORD,
  heading,
  keyboardGaps,
  newVisitor,
  openApp,
  poll,
  setPassword,
  signInThroughForm,
  startAppStackWithReader,
  type AppStackWithReader,
} from "./support/app-browser.js";
import { createMember, createOrganization, createSpace, type TestOrganization, type TestUser } from "./support/factories.js";
import { call } from "./support/http.js";
import { pagesOf, writeContent } from "./support/reader.js";

/**
 * The app's sites and administration pages through the gateway, in a real browser (Debian's
 * Chromium through playwright-core), with a reader serving what the sites publish: an admin
 * creates a site from a space, publishes it, reads it in the reader, shares it and unpublishes it;
 * invites a writer, who joins through the join page; changes a member's role; adds an OpenID
 * provider, which the sign-in page then offers; others meet the admin-only page. Screenshots under
 * test-results/reader/ (looked at, never committed).
 */
let env: AppStackWithReader;
let org: TestOrganization;
let browser: Browser;
let admin: TestUser;

beforeAll(async () => {
  env = await startAppStackWithReader({ identityEnv: { IMPRINT_ALLOW_PRIVATE_FETCH: "true" } });
  org = await createOrganization(env.stack, { title: "Acme Docs" });
  admin = await createMember(env.stack, org, { role: "admin", displayName: "Ada Admin" });
  await setPassword(env.stack, admin.email);
  browser = await launchChromium();
}, 120_000);
afterAll(async () => {
  await browser?.close();
  await env?.stop();
});

/** A fresh browser signed in as `email`, on `path`. */
async function signedIn(path: string, email = admin.email): Promise<Page> {
  const page = await newVisitor(browser);
  await openApp(page, path, env.origin);
  await signInThroughForm(page, email);
  await poll(() => heading(page)).not.toBe("Sign in to Imprint");
  return page;
}

/** A fresh self-signed certificate (openssl), as an identity provider's signing certificate. */
function selfSignedCertificate(): string {
  const dir = mkdtempSync(join(tmpdir(), "imprint-app-saml-"));
  try {
    const args = [
      "req",
      "-x509",
      "-newkey",
      "rsa:2048",
      "-nodes",
      "-keyout",
      join(dir, "idp.key"),
      "-out",
      join(dir, "idp.pem"),
      "-days",
      "2",
      "-subj",
      "/CN=idp",
    ];
    execFileSync("openssl", args, { stdio: "ignore" });
    return readFileSync(join(dir, "idp.pem"), "utf8");
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

const orgPath = (...rest: string[]) => [`/o/${org.organizationId}`, ...rest].join("/");

interface ApiSite {
  id: string;
  title: string;
  published: boolean;
  urls: { app: string; published?: string };
}

async function apiSite(siteId: string): Promise<ApiSite> {
  const answer = await call(env.stack, "GET", `/v1/orgs/${org.organizationId}/sites/${siteId}`, { token: org.owner.token });
  expect(answer.status).toBe(200);
  return answer.body as ApiSite;
}

describe("sites", () => {
  it("creates a site from a space, publishes it, opens it in the reader, shares it, and unpublishes it", async () => {
    const space = await createSpace(env.stack, org, { title: "Handbook" });
    await writeContent(env.stack, org, space.id, pagesOf([["welcome", "# Welcome aboard\n\nThe handbook's first page, for readers."]]));
    const second = await createSpace(env.stack, org, { title: "Release notes" });

    const page = await signedIn(`${orgPath("sites")}/`);
    expect(await heading(page)).toBe("Sites");
    await page.getByLabel("Title", { exact: true }).fill("Acme Handbook");
    await page.getByLabel("Space to publish", { exact: true }).selectOption({ label: "Handbook" });
    await page.getByLabel("Who may read it", { exact: true }).selectOption("public");
    await page.getByRole("button", { name: "Create site" }).click();
    await poll(() => heading(page)).toBe("Acme Handbook");

    // The site's urls.app, from the API's answer, is the page the app opened.
    const sites = await call(env.stack, "GET", `/v1/orgs/${org.organizationId}/sites`, { token: org.owner.token });
    const created = (sites.body.items as ApiSite[]).find((site) => site.title === "Acme Handbook")!;
    expect(page.url()).toBe(created.urls.app);
    expect(await page.locator(".site-status").textContent()).toContain("Not published");
    expect(await page.getByRole("link", { name: "Open in the reader" }).count()).toBe(0);
    expect(await page.locator("ol.structure").textContent()).toContain("Handbook /handbook (default)");

    // Its structure: a second space added, then moved before the first.
    await page.getByLabel("Space", { exact: true }).selectOption({ label: "Release notes" });
    await page.getByRole("button", { name: "Add space" }).click();
    await poll(() => page.getByRole("status").first().textContent()).toBe("Space added to the site.");
    await page.getByRole("button", { name: "Move Release notes up" }).click();
    await poll(() => page.getByRole("status").first().textContent()).toBe("Release notes moved up.");
    const structure = await call(env.stack, "GET", `/v1/orgs/${org.organizationId}/sites/${created.id}/structure`, { token: org.owner.token });
    expect((structure.body.structure as { space: { id: string } }[]).map((item) => item.space.id)).toEqual([second.id, space.id]);
    await page.getByRole("button", { name: "Remove Release notes from the site" }).click();
    await poll(() => page.getByRole("status").first().textContent()).toBe("Release notes removed from the site.");

    // Its look: a primary colour and a logo, kept in the rest of the customization.
    await page.getByLabel("Primary colour (links, the current page)", { exact: true }).fill("#aa3311");
    await page.getByLabel("Logo URL (empty: the title shows instead)", { exact: true }).fill("https://example.com/acme-logo.svg");
    await page.getByRole("button", { name: "Save look" }).click();
    await poll(() => page.getByRole("status").first().textContent()).toBe("The site's look is saved.");
    const look = await call(env.stack, "GET", `/v1/orgs/${org.organizationId}/sites/${created.id}/customization`, { token: org.owner.token });
    expect(look.body).toMatchObject({
      styling: { primaryColor: { light: "#AA3311", dark: "#AA3311" }, theme: "clean" },
      header: { logo: { light: "https://example.com/acme-logo.svg", dark: "https://example.com/acme-logo.svg" }, preset: "default" },
    });

    await page.getByRole("button", { name: "Publish" }).click();
    await poll(() => page.locator(".site-status").textContent()).toContain("Published");
    const published = await apiSite(created.id);
    expect(published.published).toBe(true);
    const readerLink = page.getByRole("link", { name: "Open in the reader" });
    expect(await readerLink.getAttribute("href")).toBe(published.urls.published);
    expect(published.urls.published!.startsWith(env.reader.url)).toBe(true);
    await screenshot(page, "app-site");

    // The reader, opened from the app, shows the space's page.
    const [readerPage] = await Promise.all([page.context().waitForEvent("page"), readerLink.click()]);
    await readerPage.waitForLoadState();
    await poll(() => readerPage.locator("main").textContent()).toContain("The handbook's first page, for readers.");
    expect(await readerPage.locator('img[src="https://example.com/acme-logo.svg"]').count()).toBeGreaterThan(0);
    await screenshot(readerPage, "app-site-in-reader");
    await readerPage.close();

    // A share link: created, its link shown, listed by the API; then revoked.
    await page.getByLabel("Name", { exact: true }).fill("Partners");
    await page.getByRole("button", { name: "Create share link" }).click();
    await poll(() => page.getByRole("status").first().textContent()).toBe("Share link created.");
    const links = await call(env.stack, "GET", `/v1/orgs/${org.organizationId}/sites/${created.id}/share-links`, { token: org.owner.token });
    const partners = (links.body.items as { id: string; name: string; urls: { published: string } }[]).find((link) => link.name === "Partners")!;
    expect(await page.locator("li", { hasText: "Partners" }).locator("code").textContent()).toBe(partners.urls.published);
    await page.getByRole("button", { name: "Revoke Partners" }).click();
    await poll(() => page.getByRole("status").first().textContent()).toBe("Share link revoked.");
    const after = await call(env.stack, "GET", `/v1/orgs/${org.organizationId}/sites/${created.id}/share-links`, { token: org.owner.token });
    expect(after.body.items).toEqual([]);

    // Unpublished: the reader no longer shows it.
    await page.getByRole("button", { name: "Unpublish" }).click();
    await poll(() => page.locator(".site-status").textContent()).toContain("Not published");
    expect((await apiSite(created.id)).published).toBe(false);
    const gone = await fetch(published.urls.published!);
    expect(gone.status).toBe(404);
    expect(await gone.text()).not.toContain("The handbook's first page");

    // The preview lists what readers will see, each space opening in the app.
    await page.getByRole("link", { name: "Preview" }).click();
    await poll(() => heading(page)).toBe("Preview of Acme Handbook");
    expect(await page.getByRole("link", { name: "Handbook", exact: true }).getAttribute("href")).toBe(`${orgPath("s", space.id)}/`);

    // The site's urls.app opened directly (a fresh load) shows the site page.
    await openApp(page, created.urls.app);
    expect(await heading(page)).toBe("Acme Handbook");
    const gaps = await keyboardGaps(page);
    expect(gaps.unnamed).toEqual([]);
    expect(gaps.unreached).toEqual([]);
    await page.context().close();
  });

  it("gives a site sections, a group of sections, and reorders them", async () => {
    const guide = await createSpace(env.stack, org, { title: "Guide" });
    await createSpace(env.stack, org, { title: "API reference" });
    const created = await call(env.stack, "POST", `/v1/orgs/${org.organizationId}/sites`, {
      token: org.owner.token,
      json: { title: "Developer docs", spaces: [guide.id] },
    });
    expect(created.status).toBe(201);
    const siteId = created.body.id as string;
    const page = await signedIn(`${orgPath("sites", siteId)}/`);
    expect(await heading(page)).toBe("Developer docs");

    // The first section takes the site's spaces (a section titled like the site); a second one.
    await page.getByLabel("Its first space", { exact: true }).selectOption({ label: "API reference" });
    await page.getByLabel("Section title (optional: the space's)", { exact: true }).fill("Reference");
    await page.getByRole("button", { name: "Add section" }).click();
    await poll(() => page.getByRole("status").first().textContent()).toBe("Section added.");
    await poll(() => page.locator("ol.structure").first().textContent()).toContain("Section Reference");
    await page.getByRole("button", { name: "Move Reference up" }).click();
    await poll(() => page.getByRole("status").first().textContent()).toBe("Reference moved up.");
    const sections = async () => {
      const answer = await call(env.stack, "GET", `/v1/orgs/${org.organizationId}/sites/${siteId}/structure`, { token: org.owner.token });
      return answer.body as { type: string; structure: { object: string; title: string; children?: { title: string }[] }[] };
    };
    expect((await sections()).structure.map((item) => item.title)).toEqual(["Reference", "Developer docs"]);

    // A group, and the Reference section moved into it.
    await page.getByLabel("Group title", { exact: true }).fill("Build");
    await page.getByRole("button", { name: "Add group" }).click();
    await poll(() => page.getByRole("status").first().textContent()).toBe("Group added.");
    await page.getByRole("button", { name: "Move Reference into Build" }).click();
    await poll(() => page.getByRole("status").first().textContent()).toBe("Reference moved into Build.");
    const grouped = (await sections()).structure.find((item) => item.object === "site-section-group")!;
    expect(grouped.children!.map((child) => child.title)).toEqual(["Reference"]);
    await screenshot(page, "app-site-sections");

    // The section removed: the group is left empty, the site keeps its first section.
    await page.getByRole("button", { name: "Remove the section Reference" }).click();
    await poll(() => page.getByRole("status").first().textContent()).toBe("Section Reference removed.");
    expect((await sections()).structure.map((item) => item.title)).not.toContain("Reference");
    await page.context().close();
  });

  it("lets members read sites but not change them", async () => {
    const reader = await createMember(env.stack, org, { role: "read", displayName: "Rita Reader" });
    await setPassword(env.stack, reader.email);
    const created = await call(env.stack, "POST", `/v1/orgs/${org.organizationId}/sites`, { token: org.owner.token, json: { title: "Internal docs" } });
    expect(created.status).toBe(201);
    const page = await signedIn(`${orgPath("sites", created.body.id as string)}/`, reader.email);
    expect(await heading(page)).toBe("Internal docs");
    expect(await page.getByText("Only admins change a site.").count()).toBe(1);
    expect(await page.getByRole("button", { name: "Publish" }).count()).toBe(0);
    await page.context().close();
  });
});

describe("members, invites and teams", () => {
  it("invites a writer through an invite link the join page takes, then changes a member's role", async () => {
    const page = await signedIn(orgPath("members"));
    expect(await heading(page)).toBe("Members");
    await page.getByLabel("Role of people who join", { exact: true }).selectOption("edit");
    await page.getByRole("button", { name: "Create invite link" }).click();
    await poll(() => page.getByRole("status").first().textContent()).toBe("Invite link created.");
    const link = (await page.locator(".invite-link").first().textContent())!;
    expect(link).toMatch(new RegExp(`^${env.origin}/join/${org.organizationId}/[\\w-]+$`));
    await screenshot(page, "app-members");

    // A new person joins through it, on the app's join page.
    const email = uniqueEmail("writer");
    const joiner = await newVisitor(browser);
    await openApp(joiner, link);
    expect(await heading(joiner)).toBe("Join on Imprint");
    await joiner.getByLabel("Your name", { exact: true }).fill("Grace Writer");
    await joiner.getByLabel("E-mail", { exact: true }).fill(email);
    await joiner.getByLabel("Password", { exact: true }).fill(APP_PASSWORD);
    await joiner.getByRole("button", { name: "Create my account and join" }).click();
    await poll(() => heading(joiner)).toBe("Acme Docs");
    await joiner.context().close();

    // The admin finds the writer, and makes them a reviewer.
    await page.getByLabel("Search", { exact: true }).fill("Grace Writer");
    await page.getByRole("button", { name: "Filter" }).click();
    const role = page.getByLabel("Role of Grace Writer", { exact: true });
    await poll(() => role.inputValue()).toBe("edit");
    await role.selectOption("review");
    await poll(() => page.getByRole("status").first().textContent()).toBe("Grace Writer is now Reviewer.");
    const members = await call(env.stack, "GET", `/v1/orgs/${org.organizationId}/members?search=${encodeURIComponent(email)}`, { token: org.owner.token });
    expect((members.body.items as { role: string; user: { email: string } }[]).map((member) => [member.user.email, member.role])).toEqual([[email, "review"]]);

    // The invite link revoked: it no longer joins anyone.
    await page.getByRole("button", { name: "Revoke the Editor invite link" }).first().click();
    await poll(() => page.getByText("No active invite links.").count()).toBe(1);
    const inviteId = link.split("/").at(-1)!;
    const refused = await call(env.stack, "POST", "/v1/auth/join", {
      json: { organizationId: org.organizationId, invite: inviteId, email: uniqueEmail("late"), password: APP_PASSWORD, displayName: "Late" },
      notInOpenApi: "Imprint's sign-in (docs/sign-in.md)",
    });
    expect(refused.status).toBeGreaterThanOrEqual(400);
    expect(refused.status).toBeLessThan(500);

    const gaps = await keyboardGaps(page);
    expect(gaps.unnamed).toEqual([]);
    expect(gaps.unreached).toEqual([]);

    // E-mail domains that join by themselves, with their role.
    await page.getByLabel("Domains (separated by commas)", { exact: true }).fill("acme.test, docs.acme.test");
    await page.getByLabel("Default role", { exact: true }).selectOption("comment");
    await page.getByRole("button", { name: "Save e-mail domains" }).click();
    await poll(() => page.getByRole("status").filter({ hasText: "E-mail domains saved." }).count()).toBe(1);
    const organization = await call(env.stack, "GET", `/v1/orgs/${org.organizationId}`, { token: org.owner.token });
    expect(organization.body).toMatchObject({ emailDomains: ["acme.test", "docs.acme.test"], defaultRole: "comment" });

    // The writer removed: no longer a member.
    await page.getByRole("button", { name: "Remove Grace Writer" }).click();
    await poll(() => page.getByText("No member matches.").count()).toBe(1);
    const gone = await call(env.stack, "GET", `/v1/orgs/${org.organizationId}/members?search=${encodeURIComponent(email)}`, { token: org.owner.token });
    expect(gone.body.items).toEqual([]);
    await page.context().close();
  });

  it("creates a team, adds a member to it, renames it and deletes it", async () => {
    const page = await signedIn(orgPath("members"));
    await page.getByLabel("New team", { exact: true }).fill("Writers");
    await page.getByRole("button", { name: "Create team" }).click();
    await poll(() => page.getByRole("status").first().textContent()).toBe("Team created.");
    await page.getByRole("button", { name: "Manage Writers" }).click();
    await page.getByLabel("Add a member", { exact: true }).selectOption({ label: "Ada Admin" });
    await page.getByRole("button", { name: "Add to team" }).click();
    await poll(() => page.getByRole("button", { name: "Remove Ada Admin from Writers" }).count()).toBe(1);
    const teams = await call(env.stack, "GET", `/v1/orgs/${org.organizationId}/teams`, { token: org.owner.token });
    const team = (teams.body.items as { id: string; title: string; members: number }[]).find((item) => item.title === "Writers")!;
    expect(team.members).toBe(1);

    await page.getByLabel("Name", { exact: true }).fill("Tech writers");
    await page.getByRole("button", { name: "Rename" }).click();
    await poll(() => page.getByRole("button", { name: "Delete the team Tech writers" }).count()).toBe(1);
    await page.getByRole("button", { name: "Delete the team Tech writers" }).click();
    await poll(() => page.getByText("No teams.").count()).toBe(1);
    expect((await call(env.stack, "GET", `/v1/orgs/${org.organizationId}/teams/${team.id}`, { token: org.owner.token })).status).toBe(404);
    await page.context().close();
  });

  it("answers the admin-only page to anyone else, never a blank page", async () => {
    const writer = await createMember(env.stack, org, { role: "edit", displayName: "Walt Writer" });
    await setPassword(env.stack, writer.email);
    const page = await signedIn(orgPath("members"), writer.email);
    expect(await heading(page)).toBe("You need to be an admin");
    expect(await page.locator("main").textContent()).toContain("Only admins of Acme Docs see members.");
    await screenshot(page, "app-admin-only");
    await openApp(page, orgPath("settings", "sign-in"), env.origin);
    expect(await heading(page)).toBe("You need to be an admin");
    // The organization's page links them to what they may open, not to the admin pages.
    await openApp(page, `${orgPath()}/`, env.origin);
    expect(await page.getByRole("navigation", { name: "Organization" }).getByRole("link").allTextContents()).toEqual(["Sites", "Integrations", "OpenAPI"]);
    await page.context().close();

    // An admin of another organization: this one's members page is not found, in words.
    const elsewhere = await createOrganization(env.stack, { title: "Elsewhere" });
    const outsider = await createMember(env.stack, elsewhere, { role: "admin", displayName: "Otto Outsider" });
    await setPassword(env.stack, outsider.email);
    const outside = await signedIn(orgPath("members"), outsider.email);
    expect(await heading(outside)).toBe("Organization not found");
    expect(await outside.getByRole("alert").count()).toBe(1);
    const site = await call(env.stack, "POST", `/v1/orgs/${org.organizationId}/sites`, { token: org.owner.token, json: { title: "Not theirs" } });
    await openApp(outside, (site.body.urls as { app: string }).app);
    expect(await heading(outside)).toBe("Site not found");
    await outside.context().close();
  });
});

describe("sign-in settings", () => {
  it("adds an OpenID provider, shows the redirect URI to register, never the secret, and the sign-in page offers it", async () => {
    const page = await signedIn(`${orgPath()}/`);
    await page.getByRole("navigation", { name: "Organization" }).getByRole("link", { name: "Sign-in settings" }).click();
    await poll(() => heading(page)).toBe("Sign-in settings");
    await page.getByLabel('Label (shown as "Sign in with …")', { exact: true }).fill("Acme ID");
    await page.getByLabel("Issuer URL", { exact: true }).fill("http://127.0.0.1:9/realms/docs");
    await page.getByLabel("Client ID", { exact: true }).fill("imprint-docs");
    await page.getByLabel("Client secret", { exact: true }).fill("a very secret client secret");
    await page.getByRole("button", { name: "Add provider" }).click();
    await poll(() => page.getByRole("status").first().textContent()).toBe('Acme ID added: people now see "Sign in with Acme ID".');
    expect(await page.locator("#oidc-redirect-uri").textContent()).toBe(`${env.origin}/v1/auth/oidc/callback`);
    expect(await page.getByRole("button", { name: "Copy the redirect URI" }).count()).toBe(1);
    expect(await page.locator("main").textContent()).not.toContain("a very secret client secret");
    const providers = await call(env.stack, "GET", `/v1/orgs/${org.organizationId}/oidc-providers`, {
      token: org.owner.token,
      notInOpenApi: "Imprint's OpenID providers",
    });
    const items = providers.body.items as Record<string, unknown>[];
    expect(items.map((item) => [item.label, item.issuer, item.clientId, item.redirectUri])).toEqual([
      ["Acme ID", "http://127.0.0.1:9/realms/docs", "imprint-docs", `${env.origin}/v1/auth/oidc/callback`],
    ]);
    expect(JSON.stringify(items)).not.toContain("a very secret client secret");
    await screenshot(page, "app-sign-in-settings");

    // Signed out, the organization's sign-in page offers it.
    const visitor = await newVisitor(browser);
    await openApp(visitor, `${orgPath()}/`, env.origin);
    expect(await heading(visitor)).toBe("Sign in to Imprint");
    await poll(() => visitor.getByRole("link", { name: "Sign in with Acme ID" }).count()).toBe(1);
    await visitor.context().close();

    const gaps = await keyboardGaps(page);
    expect(gaps.unnamed).toEqual([]);
    expect(gaps.unreached).toEqual([]);

    // Renamed (the secret kept: none typed), then deleted.
    await page.getByRole("button", { name: "Edit Acme ID" }).click();
    await page.getByRole("listitem").filter({ hasText: "Acme ID" }).getByLabel("Label", { exact: true }).fill("Acme SSO");
    await page.getByRole("button", { name: "Save Acme ID" }).click();
    await poll(() => page.getByRole("button", { name: "Delete Acme SSO" }).count()).toBe(1);
    const renamed = await call(env.stack, "GET", `/v1/orgs/${org.organizationId}/oidc-providers`, {
      token: org.owner.token,
      notInOpenApi: "Imprint's OpenID providers",
    });
    expect((renamed.body.items as { label: string }[]).map((item) => item.label)).toEqual(["Acme SSO"]);
    await page.getByRole("button", { name: "Delete Acme SSO" }).click();
    await poll(() => page.getByText("No OpenID providers.").count()).toBe(1);
    await page.context().close();
  });

  it("allows only the chosen sign-in methods, and keeps SAML providers: added, edited, deleted", async () => {
    const page = await signedIn(orgPath("settings", "sign-in"));
    expect(await heading(page)).toBe("Sign-in settings");
    await page.getByLabel("SAML single sign-on — the SAML identity providers below", { exact: true }).uncheck();
    await page.getByRole("button", { name: "Save sign-in methods" }).click();
    await poll(() => page.getByRole("status").first().textContent()).toBe("Sign-in methods saved.");
    const organization = await call(env.stack, "GET", `/v1/orgs/${org.organizationId}`, { token: org.owner.token });
    expect(organization.body.signInMethods).toEqual(["password", "oidc"]);

    // The add form's fields (each provider's edit form has fields of the same names).
    await page.locator("#saml-label").fill("Corporate SAML");
    await page.locator("#saml-entity-id").fill("https://idp.example.com/metadata");
    await page.locator("#saml-sso-url").fill("https://idp.example.com/login");
    await page.locator("#saml-certificate").fill(selfSignedCertificate());
    await page.getByRole("button", { name: "Add SAML provider" }).click();
    await poll(() => page.getByRole("button", { name: "Delete Corporate SAML" }).count()).toBe(1);
    const provider = page.getByRole("listitem").filter({ hasText: "Corporate SAML" });
    const providers = await call(env.stack, "GET", `/v1/orgs/${org.organizationId}/saml`, { token: org.owner.token });
    const saml = (providers.body.items as { id: string; service: { acsURL: string } }[])[0]!;
    expect(await provider.textContent()).toContain(saml.service.acsURL);

    await page.getByRole("button", { name: "Edit Corporate SAML" }).click();
    await provider.getByLabel("Identity provider sign-in URL", { exact: true }).fill("https://idp.example.com/sso");
    await page.getByRole("button", { name: "Save Corporate SAML" }).click();
    await poll(() => page.getByRole("status").filter({ hasText: "Corporate SAML saved." }).count()).toBe(1);
    const edited = await call(env.stack, "GET", `/v1/orgs/${org.organizationId}/saml/${saml.id}`, { token: org.owner.token });
    expect(edited.body).toMatchObject({ label: "Corporate SAML", entityID: "https://idp.example.com/metadata", ssoURL: "https://idp.example.com/sso" });

    await page.getByRole("button", { name: "Delete Corporate SAML" }).click();
    await poll(() => page.getByText("No SAML providers.").count()).toBe(1);
    await page.getByLabel("SAML single sign-on — the SAML identity providers below", { exact: true }).check();
    await page.getByRole("button", { name: "Save sign-in methods" }).click();
    await poll(async () => (await call(env.stack, "GET", `/v1/orgs/${org.organizationId}`, { token: org.owner.token })).body.signInMethods as string[]).toEqual(
      ["password", "oidc", "saml"],
    );
    await page.context().close();
  });
});

describe("integrations", () => {
  it("installs an integration, shows it installed with its scope, opens its page and uninstalls it", async () => {
    const name = `notes-${Date.now().toString(36)}`;
    const space = await createSpace(env.stack, org, { title: "Changelog" });
    const published = await org.owner.api.integrations.publishIntegration(name, {
      organization: org.organizationId,
      title: "Release notes bot",
      description: "Posts release notes.",
      scopes: ["space:content:read"] as never,
      script: "export default { async fetch() { return new Response('OK'); } }",
    });
    expect(published.status).toBe(200);

    const page = await signedIn(orgPath("integrations"));
    expect(await heading(page)).toBe("Integrations");
    await poll(() => page.getByText("No integration is installed.").count()).toBe(1);
    await page.getByRole("button", { name: "Install Release notes bot" }).click();
    await poll(() => page.getByRole("status").first().textContent()).toBe("Release notes bot installed.");
    const installed = page.getByRole("listitem").filter({ has: page.getByRole("link", { name: "Release notes bot" }) });
    await poll(() => installed.first().textContent()).toContain("hears the spaces it is installed on and the sites it is installed on");
    await screenshot(page, "app-integrations");

    // Its page: what it may do, where it is installed; uninstalled from there.
    await page.getByRole("link", { name: "Release notes bot" }).click();
    await poll(() => heading(page)).toBe("Release notes bot");
    expect(new URL(page.url()).pathname).toBe(orgPath("integrations", name));
    expect(await page.locator("main").textContent()).toContain("space:content:read");

    // Installed on a space, then what it hears: every site; then uninstalled from the space.
    await page.getByLabel("Install on the space", { exact: true }).selectOption({ label: "Changelog" });
    await page.getByRole("button", { name: "Install on space" }).click();
    await poll(() => page.getByRole("status").first().textContent()).toBe("Installed on Changelog.");
    expect(await page.getByRole("link", { name: "Changelog", exact: true }).getAttribute("href")).toBe(`${orgPath("s", space.id)}/`);
    await page.getByLabel("Sites it hears", { exact: true }).selectOption("all");
    await page.getByRole("button", { name: "Save", exact: true }).click();
    await poll(() => page.getByRole("status").first().textContent()).toBe("Saved.");
    const listed = await call(env.stack, "GET", `/v1/orgs/${org.organizationId}/installations`, { token: org.owner.token });
    expect((listed.body.items as { installation: { site_selection: string; spaces: number } }[]).map((item) => item.installation)).toMatchObject([
      { site_selection: "all", spaces: 1 },
    ]);
    const gaps = await keyboardGaps(page);
    expect(gaps.unnamed).toEqual([]);
    expect(gaps.unreached).toEqual([]);
    await page.getByRole("button", { name: "Uninstall from Changelog" }).click();
    await poll(() => page.getByRole("status").first().textContent()).toBe("Uninstalled from Changelog.");

    await page.getByRole("button", { name: "Uninstall Release notes bot" }).click();
    await poll(() => page.getByText("Not installed.").count()).toBe(1);
    const installations = await call(env.stack, "GET", `/v1/orgs/${org.organizationId}/installations`, { token: org.owner.token });
    expect(installations.body.items).toEqual([]);

    // The integration's own urls.app (outside any organization) says what it is and leads to it in each of the person's organizations.
    const integration = await call(env.stack, "GET", `/v1/integrations/${name}`, { token: org.owner.token });
    const appUrl = (integration.body.urls as { app: string }).app;
    expect(appUrl).toBe(`${env.origin}/integrations/${name}`);
    await openApp(page, appUrl);
    await poll(() => heading(page)).toBe("Release notes bot");
    expect(await page.locator("main").textContent()).toContain("space:content:read");
    await page.getByRole("link", { name: "Release notes bot in Acme Docs" }).click();
    await poll(() => new URL(page.url()).pathname).toBe(orgPath("integrations", name));
    await poll(() => page.getByText("Not installed.").count()).toBe(1);
    await page.context().close();
  });
});
