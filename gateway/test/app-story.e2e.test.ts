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
  shows,
  signInThroughForm,
  startAppStackWithReader,
  typeAfter,
  type AppStackWithReader,
} from "./support/app-browser.js";
import { createMember, createOrganization, createSpace, type TestOrganization, type TestUser } from "./support/factories.js";
import { call } from "./support/http.js";
import { IDP_CLIENT_ID, IDP_CLIENT_SECRET, startTestIdp, type TestIdp } from "./support/oidc-idp.js";
import { writeContent, pagesOf } from "./support/reader.js";

/**
 * The app's whole story (issue 30), in Chromium against a real stack, a real reader and a real
 * OpenID provider on loopback, each step through the pages a person uses: an admin invites a
 * writer; the writer joins, signs out and signs in with a password, edits a page with a table, a
 * code block and a hint, and asks for a review; a reviewer signs in through the organization's
 * OpenID provider, comments and approves; the writer merges (the merge rule wanted that approval);
 * the admin publishes the space as a site; the reader shows the change. Screenshots under
 * test-results/reader/app-story-*.png.
 */
const GUIDE = [
  "# Guide",
  "",
  "How to install the agent.",
  "",
  "| Setting | Default |",
  "| --- | --- |",
  "| timeout | 30 s |",
  "",
  "```sh",
  "npm install agent",
  "```",
  "",
  '{% hint style="warning" %}',
  "Restart after installing.",
  "{% endhint %}",
  "",
].join("\n");

let env: AppStackWithReader;
let idp: TestIdp;
let browser: Browser;
let org: TestOrganization;
let admin: TestUser;
let reviewer: TestUser;
let spaceId: string;

beforeAll(async () => {
  env = await startAppStackWithReader({ identityEnv: { IMPRINT_ALLOW_PRIVATE_FETCH: "true" } });
  idp = await startTestIdp(`${env.origin}/v1/auth/oidc/callback`);
  org = await createOrganization(env.stack, { title: "Acme Docs" });
  admin = await createMember(env.stack, org, { role: "admin", displayName: "Ada Admin" });
  reviewer = await createMember(env.stack, org, { role: "review", displayName: "Rita Reviewer" });
  await setPassword(env.stack, admin.email);
  const provider = await call(env.stack, "POST", `/v1/orgs/${org.organizationId}/oidc-providers`, {
    token: org.owner.token,
    json: { label: "Acme ID", issuer: idp.issuer, clientId: IDP_CLIENT_ID, clientSecret: IDP_CLIENT_SECRET },
    notInOpenApi: "Imprint's OpenID Connect sign-in (docs/api.md, extensions)",
  });
  expect(provider.status, JSON.stringify(provider.body)).toBe(201);
  spaceId = (await createSpace(env.stack, org, { title: "Handbook" })).id;
  await writeContent(env.stack, org, spaceId, pagesOf([["guide", GUIDE]]));
  // From now on, nothing merges without an approved review.
  await org.owner.api.orgs.updateOrganizationById(org.organizationId, {
    mergeRules: { type: "rules", rules: [{ rule: "require_at_least_one_approved_review" }] } as never,
  });
  browser = await launchChromium();
}, 120_000);
afterAll(async () => {
  await browser?.close();
  await idp?.stop();
  await env?.stop();
});

const orgPath = (...rest: string[]) => [`/o/${org.organizationId}`, ...rest].join("/");

/** Every control of the page has an accessible name and Tab alone reaches it. */
async function expectKeyboardReachable(page: Page, what: string): Promise<void> {
  expect(await keyboardGaps(page), what).toEqual({ unreached: [], unnamed: [] });
}

async function signedInWithPassword(path: string, email: string): Promise<Page> {
  const page = await newVisitor(browser);
  await openApp(page, path, env.origin);
  await signInThroughForm(page, email);
  await poll(() => heading(page)).not.toBe("Sign in to Imprint");
  return page;
}

describe("the whole story, in the app", () => {
  it("invite, join, edit, review through OpenID, merge, publish, read", async () => {
    // 1. The admin invites a writer.
    const adminPage = await signedInWithPassword(orgPath("members"), admin.email);
    await shows(adminPage, "Members");
    await expectKeyboardReachable(adminPage, "members page");
    await adminPage.getByLabel("Role of people who join", { exact: true }).selectOption("create");
    await adminPage.getByRole("button", { name: "Create invite link" }).click();
    await poll(() => adminPage.getByRole("status").first().textContent()).toBe("Invite link created.");
    const inviteLink = (await adminPage.locator(".invite-link").first().textContent())!;

    // 2. The writer joins through it, signs out, and signs in again with the password.
    const writerEmail = uniqueEmail("writer");
    const writer = await newVisitor(browser);
    await openApp(writer, inviteLink);
    await shows(writer, "Join on Imprint");
    await expectKeyboardReachable(writer, "join page");
    await writer.getByLabel("Your name", { exact: true }).fill("Wendy Writer");
    await writer.getByLabel("E-mail", { exact: true }).fill(writerEmail);
    await writer.getByLabel("Password", { exact: true }).fill(APP_PASSWORD);
    await writer.getByRole("button", { name: "Create my account and join" }).click();
    await poll(() => heading(writer)).toBe("Acme Docs");
    await writer.getByRole("button", { name: /Account/ }).click();
    await writer.getByRole("button", { name: "Sign out", exact: true }).click();
    await poll(() => heading(writer)).toBe("Sign in to Imprint");
    await openApp(writer, orgPath("s", spaceId, "guide"), env.origin);
    await expectKeyboardReachable(writer, "sign-in page");
    await signInThroughForm(writer, writerEmail);
    await shows(writer, "Guide");
    await writer.locator(".page-body").waitFor();
    await expectKeyboardReachable(writer, "space page");

    // 3. The writer edits the page: its prose, a table cell, the code block and the hint.
    await writer.getByRole("button", { name: "Edit", exact: true }).click();
    await shows(writer, "Editing Guide");
    await writer.locator(".ProseMirror").waitFor();
    await expectKeyboardReachable(writer, "editor page");
    await typeAfter(writer, "How to install the agent.", " It takes a minute.");
    await typeAfter(writer, "30 s", " (60 s on slow networks)");
    await typeAfter(writer, "npm install agent", " --save");
    await typeAfter(writer, "Restart after installing.", " Twice on Windows.");
    await writer.getByRole("button", { name: "Save", exact: true }).click();
    await poll(() =>
      writer
        .getByRole("status")
        .filter({ hasText: /^Saved$/ })
        .count(),
    ).toBe(1);
    await screenshot(writer, "app-story-editor");

    // … and asks Rita for a review on the change request.
    await writer
      .getByRole("link", { name: /^#\d+ Edit Guide$/ })
      .first()
      .click();
    await shows(writer, /^#\d+ Edit Guide$/);
    const changeRequestPath = new URL(writer.url()).pathname;
    const diff = writer.getByRole("list", { name: "Changes to Guide" });
    await poll(() => diff.locator("ins").allTextContents()).toContain("+Added: How to install the agent. It takes a minute.");
    await expectKeyboardReachable(writer, "change request page");
    await writer.getByLabel("Reviewer", { exact: true }).selectOption({ label: "Rita Reviewer" });
    await writer.getByRole("button", { name: "Request review" }).click();
    await poll(() => writer.getByRole("button", { name: "Remove Rita Reviewer from the reviewers" }).count()).toBe(1);
    // Not mergeable yet: the rule wants an approval, and the app says so.
    await writer.getByRole("button", { name: "Merge", exact: true }).click();
    await poll(() => writer.getByRole("alert").textContent()).toContain("require_at_least_one_approved_review");

    // 4. Rita opens the change request's link, signs in through Acme ID, comes back to it, comments and approves.
    idp.nextLogin = { email: reviewer.email, verified: true, name: "Rita Reviewer" };
    const rita = await newVisitor(browser);
    await openApp(rita, changeRequestPath, env.origin);
    await shows(rita, "Sign in to Imprint");
    await rita.getByRole("link", { name: "Sign in with Acme ID" }).click();
    await shows(rita, /Edit Guide$/);
    expect(new URL(rita.url()).pathname).toBe(changeRequestPath);
    const session = (await rita.evaluate(async () => (await fetch("/v1/auth/session")).json())) as { user: { email: string }; method: string };
    expect([session.user.email, session.method]).toEqual([reviewer.email, expect.stringMatching(/^oidc:/)]);
    await rita.getByLabel("New comment", { exact: true }).fill("The slow-network default reads well.");
    await rita.getByRole("button", { name: "Post comment" }).click();
    await poll(() => rita.locator(".thread").textContent()).toContain("The slow-network default reads well.");
    await rita.getByLabel("Approve").check();
    await rita.getByRole("button", { name: "Submit review" }).click();
    await poll(() => rita.locator("main").textContent()).toContain("Rita Reviewer: approved");
    await screenshot(rita, "app-story-review");
    await rita.context().close();

    // 5. The writer merges.
    await writer.reload();
    await poll(() => writer.locator("main").textContent()).toContain("Rita Reviewer: approved");
    await writer.getByRole("button", { name: "Merge", exact: true }).click();
    await poll(() => writer.getByRole("status").filter({ hasText: "Merged into the space." }).count()).toBe(1);
    await writer.context().close();

    // 6. The admin publishes the space as a public site, and opens it in the reader.
    await openApp(adminPage, `${orgPath("sites")}/`, env.origin);
    await shows(adminPage, "Sites");
    await adminPage.getByLabel("Title", { exact: true }).fill("Acme Handbook");
    await adminPage.getByLabel("Space to publish", { exact: true }).selectOption({ label: "Handbook" });
    await adminPage.getByLabel("Who may read it", { exact: true }).selectOption("public");
    await adminPage.getByRole("button", { name: "Create site" }).click();
    await shows(adminPage, "Acme Handbook");
    await expectKeyboardReachable(adminPage, "site page");
    await adminPage.getByRole("button", { name: "Publish" }).click();
    await poll(() => adminPage.locator(".site-status").textContent()).toContain("Published");
    const readerLink = adminPage.getByRole("link", { name: "Open in the reader" });
    const [readerPage] = await Promise.all([adminPage.context().waitForEvent("page"), readerLink.click()]);
    await readerPage.waitForLoadState();

    // 7. The reader shows the writer's change, table, code and hint included.
    await poll(() => readerPage.locator("main").textContent()).toContain("How to install the agent. It takes a minute.");
    const text = (await readerPage.locator("main").textContent()) ?? "";
    expect(text).toContain("30 s (60 s on slow networks)");
    expect(text).toContain("npm install agent --save");
    expect(text).toContain("Restart after installing. Twice on Windows.");
    await screenshot(readerPage, "app-story-reader");
    await adminPage.context().close();
  });
});
