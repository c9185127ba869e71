import type { Browser, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { launchChromium, screenshot } from "./support/browser.js";
import {
  cookieOf,
  heading,
  keyboardGaps,
  newVisitor,
  openApp,
  poll,
  setPassword,
  shows,
  signInThroughForm,
  startAppStack,
  typeAfter,
  type AppStack,
} from "./support/app-browser.js";
import { createMember, createOrganization, createSpace, type TestOrganization, type TestUser } from "./support/factories.js";
import { call } from "./support/http.js";

/**
 * The app's space, editing and change-request pages through the gateway, in Chromium: a writer
 * reads a space rendered as the reader renders it, edits a page in a change request (a
 * paragraph, a table cell, a code block, a hint), saves; the change request shows the diff; a
 * reviewer requests changes then approves; the writer merges; the space shows the new text. Two
 * tabs saving over each other see a conflict. Every kind of `urls.app` opens its page.
 * Screenshots under test-results/reader/.
 */
let env: AppStack;
let org: TestOrganization;
let browser: Browser;
let spaceId: string;
let writer: TestUser;
let reviewer: TestUser;

interface ErrorBody {
  error: { code: number; message: string };
}

const GUIDE = [
  "# Guide",
  "",
  "Intro paragraph.",
  "",
  "Some __strong__ words, untouched.",
  "",
  "* first",
  "* second",
  "",
  "| Name | Value |",
  "| --- | ---: |",
  "| alpha | one |",
  "",
  "```js",
  "const answer = 42",
  "```",
  "",
  '{% hint style="info" %}',
  "Remember this.",
  "{% endhint %}",
  "",
].join("\n");

/** A change request made, filled with `changes` and merged by the organization's owner (over the API). */
async function mergeAsOwner(changes: unknown[]): Promise<void> {
  const token = org.owner.token;
  const created = await call(env.stack, "POST", `/v1/spaces/${spaceId}/change-requests`, { token, json: { subject: "Seed" } });
  expect(created.status, JSON.stringify(created.body)).toBe(201);
  const content = await call(env.stack, "POST", `/v1/spaces/${spaceId}/change-requests/${created.body.number}/content`, { token, json: { changes } });
  expect(content.status, JSON.stringify(content.body)).toBe(200);
  const merged = await call(env.stack, "POST", `/v1/spaces/${spaceId}/change-requests/${created.body.number}/merge`, { token });
  expect(merged.status, JSON.stringify(merged.body)).toBe(200);
}

async function signedIn(person: TestUser, path: string): Promise<Page> {
  const page = await newVisitor(browser);
  await openApp(page, path, env.origin);
  await signInThroughForm(page, person.email);
  return page;
}

/** The markdown of the page titled `title` in a change request (over the API, as its owner). */
async function markdownInChangeRequest(number: number, title: string): Promise<string> {
  const token = org.owner.token;
  const pages = await call(env.stack, "GET", `/v1/spaces/${spaceId}/change-requests/${number}/content/pages`, { token });
  const page = (pages.body.pages as { id: string; title: string }[]).find((item) => item.title === title)!;
  const body = await call(env.stack, "GET", `/v1/spaces/${spaceId}/change-requests/${number}/content/page/${page.id}?format=markdown`, { token });
  return body.body.markdown as string;
}

beforeAll(async () => {
  env = await startAppStack();
  org = await createOrganization(env.stack, { title: "Acme Docs" });
  spaceId = (await createSpace(env.stack, org, { title: "Handbook" })).id;
  writer = await createMember(env.stack, org, { role: "create", displayName: "Wendy Writer" });
  reviewer = await createMember(env.stack, org, { role: "review", displayName: "Rita Reviewer" });
  await setPassword(env.stack, writer.email);
  await setPassword(env.stack, reviewer.email);
  await mergeAsOwner([
    { operation: "insert_page", title: "Guide", document: { markdown: GUIDE } },
    { operation: "insert_page", title: "FAQ", document: { markdown: "Questions and answers.\n" } },
  ]);
  browser = await launchChromium();
}, 120_000);
afterAll(async () => {
  await browser?.close();
  await env?.stop();
});

describe("the render endpoint", () => {
  it("renders a document as the reader does for a signed-in person only, refusing bad and oversized bodies in the error shape", async () => {
    const document = (await call(env.stack, "GET", `/v1/spaces/${spaceId}/content/path/guide?format=document`, { token: org.owner.token })).body.document;
    const render = (body: string, cookie?: string) =>
      fetch(`${env.origin}/_app/render`, { method: "POST", headers: { "content-type": "application/json", ...(cookie ? { cookie } : {}) }, body });
    const anonymous = await render(JSON.stringify({ document }));
    expect(anonymous.status).toBe(401);
    expect(((await anonymous.json()) as ErrorBody).error.code).toBe(401);
    const forged = await render(JSON.stringify({ document }), "imprint_session=forged");
    expect(forged.status).toBe(401);

    const page = await signedIn(writer, "/");
    await page.getByRole("link", { name: "Acme Docs" }).waitFor();
    const cookie = await cookieOf(page);
    const rendered = await render(JSON.stringify({ document }), cookie);
    expect(rendered.status).toBe(200);
    const { html } = (await rendered.json()) as { html: string };
    expect(html).toContain("<table");
    expect(html).toContain('class="hint hint-info"');
    expect(html).toContain("Intro paragraph.");
    // The right-aligned column without an inline style (the app's policy allows none).
    expect(html).toContain('data-align="right"');
    expect(html).not.toContain("style=");

    const bad = await render(JSON.stringify({ document: { object: "nope" } }), cookie);
    expect(bad.status).toBe(400);
    expect(((await bad.json()) as ErrorBody).error.message).toContain("document");
    const huge = await render(JSON.stringify({ document, padding: "x".repeat(3 * 1024 * 1024) }), cookie);
    expect(huge.status).toBe(413);
    expect(((await huge.json()) as ErrorBody).error.code).toBe(413);
    await page.context().close();
  });
});

describe("the space, editing and change-request pages", () => {
  it("opens each urls.app the API answers on its page: a space, a page, a revision, a change request", async () => {
    const token = org.owner.token;
    const space = await call(env.stack, "GET", `/v1/spaces/${spaceId}`, { token });
    const pages = await call(env.stack, "GET", `/v1/spaces/${spaceId}/content/pages`, { token });
    const faq = (pages.body.pages as { title: string; urls: { app: string } }[]).find((item) => item.title === "FAQ")!;
    const revision = await call(env.stack, "GET", `/v1/spaces/${spaceId}/content`, { token });
    const changeRequest = await call(env.stack, "POST", `/v1/spaces/${spaceId}/change-requests`, { token, json: { subject: "Links check" } });

    const page = await newVisitor(browser);
    const refused: string[] = [];
    page.on("console", (message) => {
      if (/Content Security Policy/i.test(message.text())) refused.push(message.text());
    });
    await openApp(page, space.body.urls.app);
    await signInThroughForm(page, writer.email);
    await shows(page, "Guide");
    expect(await page.locator(".page-body").textContent()).toContain("Intro paragraph.");
    // The rendered page breaks none of the app's security policy (no inline style or script), and
    // the aligned column is aligned by the stylesheet.
    expect(await page.evaluate(`getComputedStyle(document.querySelectorAll(".page-body td")[1]).textAlign`)).toBe("right");
    expect(refused).toEqual([]);
    expect(await page.getByRole("navigation", { name: "Pages" }).getByRole("link", { name: "Guide" }).getAttribute("aria-current")).toBe("page");
    await screenshot(page, "app-space");

    await openApp(page, faq.urls.app);
    await shows(page, "FAQ");
    expect(await page.locator(".page-body").textContent()).toContain("Questions and answers.");

    await openApp(page, revision.body.urls.app);
    await poll(() => page.locator(".scope-note").textContent()).toContain(`revision ${revision.body.id}`);
    expect(await heading(page)).toBe("Guide");

    await openApp(page, changeRequest.body.urls.app);
    await shows(page, `#${changeRequest.body.number} Links check`);

    // The tree by keyboard: arrows move between its links.
    await openApp(page, space.body.urls.app);
    await page.getByRole("navigation", { name: "Pages" }).getByRole("link", { name: "Guide" }).focus();
    await page.keyboard.press("ArrowDown");
    expect(await page.evaluate("document.activeElement?.textContent")).toBe("FAQ");

    // Search in the space.
    await page.getByRole("searchbox", { name: "Search this space" }).fill("Questions");
    await page.getByRole("button", { name: "Search", exact: true }).click();
    await poll(() => page.getByRole("heading", { name: "Search results" }).count()).toBe(1);
    await poll(() => page.locator("main").getByRole("link", { name: "FAQ" }).count()).toBeGreaterThan(1);
    await page.context().close();
  });

  it("edits a page in a change request, shows the diff, gets reviewed, merges, and the space shows the new text", async () => {
    await org.owner.api.orgs.updateOrganizationById(org.organizationId, {
      mergeRules: { type: "rules", rules: [{ rule: "require_at_least_one_approved_review" }] } as never,
    });
    const page = await signedIn(writer, `/o/${org.organizationId}/s/${spaceId}/guide`);
    await shows(page, "Guide");
    await page.getByRole("button", { name: "Edit", exact: true }).click();
    await shows(page, "Editing Guide");
    await page.locator(".ProseMirror").waitFor();

    // Keyboard: from the title, Tab reaches the editor's toolbar, whose buttons are named.
    await page.getByLabel("Title", { exact: true }).focus();
    let inToolbar = false;
    for (let step = 0; step < 4 && !inToolbar; step++) {
      await page.keyboard.press("Tab");
      inToolbar = await page.evaluate<boolean>(`!!document.activeElement?.closest('[role="toolbar"]') && !!document.activeElement?.getAttribute("aria-label")`);
    }
    expect(inToolbar).toBe(true);
    expect(await page.getByRole("toolbar", { name: "Formatting" }).getByRole("button", { name: "Bold" }).count()).toBe(1);

    await typeAfter(page, "Intro paragraph.", " Edited by the writer.");
    await typeAfter(page, "one", " and two");
    await typeAfter(page, "const answer = 42", "; // typed");
    await typeAfter(page, "Remember this.", " Really.");
    await page.getByRole("button", { name: "Save", exact: true }).click();
    await poll(() =>
      page
        .getByRole("status")
        .filter({ hasText: /^Saved$/ })
        .count(),
    ).toBe(1);
    await screenshot(page, "app-editor");

    // The change request: its diff names what was added and removed, in words too.
    await page
      .getByRole("link", { name: /^#\d+ Edit Guide$/ })
      .first()
      .click();
    await shows(page, /^#\d+ Edit Guide$/);
    const diff = page.getByRole("list", { name: "Changes to Guide" });
    await poll(() => diff.locator("ins").allTextContents()).toContain("+Added: Intro paragraph. Edited by the writer.");
    expect(await diff.locator("del").allTextContents()).toContain("−Removed: Intro paragraph.");
    const added = (await diff.locator("ins").allTextContents()).join("\n");
    expect(added).toContain("alpha | one and two");
    expect(added).toContain("const answer = 42; // typed");
    expect(added).toContain("Remember this. Really.");
    // The blocks left alone keep their spelling: no line of theirs is removed or written anew.
    const removed = (await diff.locator("del").allTextContents()).join("\n");
    for (const untouched of ["__strong__", "* first", "* second"]) expect(removed).not.toContain(untouched);
    for (const respelled of ["**strong**", "- first"]) expect(added).not.toContain(respelled);
    const crUrl = page.url();

    // A merge the rules refuse says why, as the API words it.
    await page.getByRole("button", { name: "Merge", exact: true }).click();
    await poll(() => page.getByRole("alert").textContent()).toContain("require_at_least_one_approved_review");

    await page.getByLabel("Reviewer", { exact: true }).selectOption({ label: "Rita Reviewer" });
    await page.getByRole("button", { name: "Request review" }).click();
    await poll(() => page.getByRole("button", { name: "Remove Rita Reviewer from the reviewers" }).count()).toBe(1);
    await page.getByLabel("New comment", { exact: true }).fill("Please check the table.");
    await page.getByRole("button", { name: "Post comment" }).click();
    await poll(() => page.locator(".thread").count()).toBe(1);
    await screenshot(page, "app-change-request");

    // The reviewer replies, requests changes, then approves.
    const other = await signedIn(reviewer, new URL(crUrl).pathname);
    await shows(other, /Edit Guide$/);
    await other.getByLabel("Reply", { exact: true }).fill("Looks right.");
    await other.getByRole("button", { name: "Post reply" }).click();
    await poll(() => other.locator(".thread .replies").textContent()).toContain("Looks right.");
    await other.getByRole("button", { name: "Resolve" }).click();
    await poll(() => other.locator(".thread").textContent()).toContain("resolved");
    await other.getByLabel("Request changes").check();
    await other.getByRole("button", { name: "Submit review" }).click();
    await poll(() => other.locator("main").textContent()).toContain("Rita Reviewer: requested changes");
    await other.getByLabel("Approve").check();
    await other.getByRole("button", { name: "Submit review" }).click();
    await poll(() => other.locator("main").textContent()).toContain("Rita Reviewer: approved");
    await other.context().close();

    // The writer merges by keyboard: the button is reachable and named.
    await page.reload();
    await poll(() => page.locator("main").textContent()).toContain("Rita Reviewer: approved");
    const merge = page.getByRole("button", { name: "Merge", exact: true });
    await merge.focus();
    await page.keyboard.press("Enter");
    await poll(() => page.getByRole("status").filter({ hasText: "Merged into the space." }).count()).toBe(1);
    await poll(() => page.locator("main").textContent()).toContain("merged");

    await openApp(page, `/o/${org.organizationId}/s/${spaceId}/guide`, env.origin);
    await poll(() => page.locator(".page-body").textContent()).toContain("Intro paragraph. Edited by the writer.");
    expect(await page.locator(".page-body table").textContent()).toContain("one and two");
    expect(await page.locator(".page-body .hint").textContent()).toContain("Remember this. Really.");

    // The history names the merge and opens the space as it was.
    await page.getByRole("link", { name: "History" }).click();
    await shows(page, "History");
    await poll(() => page.locator("main").textContent()).toContain("Wendy Writer: merged");
    await screenshot(page, "app-history");
    expect(await keyboardGaps(page), "history page").toEqual({ unreached: [], unnamed: [] });
    await page.locator("ol.history > li:nth-child(2) > a").click();
    await poll(() => page.locator(".scope-note").textContent()).toContain("As it was at revision");
    expect(await page.locator(".page-body").textContent()).not.toContain("Edited by the writer.");
    await page.context().close();
  });

  it("autosaves; a second tab saving over a moved change request sees a conflict and the first save is kept", async () => {
    const first = await signedIn(writer, `/o/${org.organizationId}/s/${spaceId}/faq`);
    await shows(first, "FAQ");
    await first.getByRole("button", { name: "Edit", exact: true }).click();
    await shows(first, "Editing FAQ");
    await first.locator(".ProseMirror").waitFor();
    const editorUrl = first.url();
    const number = Number(/\/~\/edit\/(\d+)\//.exec(editorUrl)![1]);

    const second = await first.context().newPage();
    await openApp(second, editorUrl);
    await second.locator(".ProseMirror").waitFor();

    // The first tab saves by itself a few seconds after the last keystroke.
    await typeAfter(first, "Questions and answers.", " First tab text.");
    await poll(() =>
      first
        .getByRole("status")
        .filter({ hasText: /^Saved$/ })
        .count(),
    ).toBe(1);

    await typeAfter(second, "Questions and answers.", " Second tab text.");
    await second.getByRole("button", { name: "Save", exact: true }).click();
    await poll(() => second.getByRole("alert").textContent()).toContain("Someone else saved this change request");
    // The person's text is still there to copy, and nothing was overwritten.
    expect(await second.locator(".ProseMirror").textContent()).toContain("Second tab text.");
    const saved = await markdownInChangeRequest(number, "FAQ");
    expect(saved).toContain("First tab text.");
    expect(saved).not.toContain("Second tab text.");
    await screenshot(second, "app-editor-conflict");

    await second.getByRole("button", { name: "Load the latest version" }).click();
    await poll(() => second.locator(".ProseMirror").textContent()).toContain("First tab text.");
    expect(await second.locator(".ProseMirror").textContent()).not.toContain("Second tab text.");

    // A page added in the change request opens in the editor; deleting it goes back to the change request.
    await second.getByLabel("New page title", { exact: true }).fill("Glossary");
    await second.getByRole("button", { name: "Add page" }).click();
    await shows(second, "Editing Glossary");
    second.once("dialog", (dialog) => void dialog.accept());
    await second.getByRole("button", { name: "Delete page" }).click();
    await shows(second, /^#\d+ Edit FAQ$/);
    await poll(() => second.locator("main").textContent()).toContain("Edited: FAQ");
    expect(await second.locator("main").textContent()).not.toContain("Glossary");
    await first.context().close();
  });
});
