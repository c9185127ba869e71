import { readdir } from "node:fs/promises";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { DEMO_SITE_BASENAME, publishDemo } from "../../scripts/lib/demo.mjs";
import { createOrganization, type TestOrganization } from "./support/factories.js";
import { call } from "./support/http.js";
import { startStack, type TestStack } from "./support/stack.js";

const REPO_ROOT = fileURLToPath(new URL("../../", import.meta.url));

let stack: TestStack;
let org: TestOrganization;

beforeAll(async () => {
  stack = await startStack();
  org = await createOrganization(stack);
});
afterAll(() => stack?.stop());

/** Every link of a JSON document's nodes, as its ref. */
function refsOf(node: unknown): { kind: string; page?: string }[] {
  if (!node || typeof node !== "object") return [];
  const record = node as Record<string, unknown>;
  const own = record.type === "link" && record.data && typeof record.data === "object" ? [(record.data as { ref: { kind: string; page?: string } }).ref] : [];
  const children = Array.isArray(record.nodes) ? record.nodes : [];
  return [...own, ...children.flatMap(refsOf)];
}

describe("npm run admin -- demo", () => {
  it("publishes README.md and docs/*.md as a site through the REST API, once", async () => {
    const result = await publishDemo({ apiUrl: stack.baseUrl, token: org.owner.token, repoRoot: REPO_ROOT });
    const docs = (await readdir(`${REPO_ROOT}docs`)).filter((name) => name.endsWith(".md"));
    expect(result).toMatchObject({ created: true, organizationId: org.organizationId, pages: docs.length + 1 });
    expect(result.url).toMatch(new RegExp(`/${DEMO_SITE_BASENAME}/$`));

    const site = await call(stack, "GET", `/v1/orgs/${org.organizationId}/sites/${result.siteId}`, { token: org.owner.token });
    expect(site.body).toMatchObject({ published: true, visibility: "public", basename: DEMO_SITE_BASENAME, siteSpaces: 1 });
    expect(site.body.urls.published).toBe(result.url);

    // Every file became a page of the space's main content, in order, the README first.
    const content = await call(stack, "GET", `/v1/spaces/${result.spaceId}/content`, { token: org.owner.token });
    const slugs = (content.body.pages as { slug: string }[]).map((page) => page.slug);
    expect(slugs).toHaveLength(docs.length + 1);
    expect(slugs.slice(0, 3)).toEqual(["overview", "architecture", "publishing"]);
    expect([...slugs].sort()).toEqual(["overview", ...docs.map((name) => name.replace(/\.md$/, ""))].sort());
    // Every page is titled by its file's leading heading.
    expect((content.body.pages as { title: string }[]).map((page) => page.title)).not.toContain("Untitled");

    // The README's links to docs/… became links to the pages.
    const overview = (content.body.pages as { id: string; slug: string }[]).find((page) => page.slug === "overview")!;
    const document = await call(stack, "GET", `/v1/spaces/${result.spaceId}/content/page/${overview.id}?format=document`, { token: org.owner.token });
    const pageLinks = refsOf(document.body.document).filter((ref) => ref.kind === "page" || (ref.kind === "anchor" && ref.page));
    const byId = new Map((content.body.pages as { id: string; slug: string }[]).map((page) => [page.id, page.slug]));
    expect(new Set(pageLinks.map((ref) => byId.get(ref.page!)))).toContain("change-requests");

    // A second run leaves the published site as it is.
    const again = await publishDemo({ apiUrl: stack.baseUrl, token: org.owner.token, repoRoot: REPO_ROOT });
    expect(again).toMatchObject({ created: false, siteId: result.siteId, url: result.url });
  });
});
