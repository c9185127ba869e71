// `npm run admin -- demo`: publishes Imprint's own documentation (README.md and docs/*.md) as a
// site, through the REST API as any client would: a space, a change request whose content is
// written with updateChangeRequestContent, a merge, then a site that publishes the space.
import { readdir, readFile } from "node:fs/promises";
import { basename, join } from "node:path";

export const DEMO_SITE_BASENAME = "imprint-docs";
export const DEMO_TITLE = "Imprint documentation";

/** Pages come in this order (the rest of docs/ follows, alphabetically). */
const LEADING = ["README.md", "architecture.md", "publishing.md", "change-requests.md", "revisions.md", "git.md", "search.md"];

/** GitBook's limits for one content batch (changes), and a body well under the gateway's 1 MiB default. */
const MAX_CHANGES_PER_BATCH = 50;
const MAX_BATCH_BYTES = 512 * 1024;

export class DemoError extends Error {}

/**
 * The pages to publish, in order: the repository's README (its `docs/…` links rewritten to the
 * sibling pages they become) and every markdown file of `docs/`. Each page's ref and slug are its
 * file name without `.md`, so the relative links between the files (`git.md`, `./api.md#…`) resolve
 * to the pages when the batch is written.
 */
export async function demoPages(repoRoot) {
  const docsDir = join(repoRoot, "docs");
  const files = (await readdir(docsDir)).filter((name) => name.endsWith(".md")).sort();
  const ordered = [...LEADING.filter((name) => name === "README.md" || files.includes(name)), ...files.filter((name) => !LEADING.includes(name))];
  const pages = [];
  for (const name of ordered) {
    const path = name === "README.md" ? join(repoRoot, name) : join(docsDir, name);
    let markdown = await readFile(path, "utf8");
    if (name === "README.md") markdown = markdown.replace(/\]\(docs\//g, "](./");
    // A generator's note before the title (docs/api.md) would hide the leading heading that titles the page.
    markdown = markdown.replace(/^<!--[\s\S]*?-->\s*/, "");
    const ref = name === "README.md" ? "overview" : basename(name, ".md");
    pages.push({ ref, markdown });
  }
  return pages;
}

/** Splits insert_page changes into batches within GitBook's 50 changes and a safe body size. */
export function demoBatches(pages) {
  const batches = [];
  let batch = [];
  let bytes = 0;
  for (const page of pages) {
    const change = { operation: "insert_page", ref: page.ref, slug: page.ref, document: { markdown: page.markdown } };
    const size = Buffer.byteLength(JSON.stringify(change));
    if (batch.length > 0 && (batch.length >= MAX_CHANGES_PER_BATCH || bytes + size > MAX_BATCH_BYTES)) {
      batches.push(batch);
      batch = [];
      bytes = 0;
    }
    batch.push(change);
    bytes += size;
  }
  if (batch.length > 0) batches.push(batch);
  return batches;
}

function client(apiUrl, token) {
  return async function call(method, path, body) {
    const response = await fetch(`${apiUrl}${path}`, {
      method,
      headers: { authorization: `Bearer ${token}`, ...(body === undefined ? {} : { "content-type": "application/json" }) },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    const text = await response.text();
    const json = text ? JSON.parse(text) : undefined;
    if (!response.ok) throw new DemoError(`${method} ${path}: ${response.status} ${json?.error?.message ?? text}`);
    return json;
  };
}

/**
 * Publishes the demo site and answers what it did. When the organization already has the demo
 * site, it is left as it is and answered (`created: false`): delete it to publish again.
 */
export async function publishDemo({ apiUrl, token, repoRoot, organizationId }) {
  const call = client(apiUrl, token);
  const orgId = organizationId ?? (await call("GET", "/v1/orgs")).items[0]?.id;
  if (!orgId) throw new DemoError("the token's user belongs to no organization: pass --org <organizationId>");

  const sites = await call("GET", `/v1/orgs/${orgId}/sites?limit=100`);
  const existing = sites.items.find((site) => site.basename === DEMO_SITE_BASENAME);
  if (existing) return { created: false, organizationId: orgId, siteId: existing.id, url: existing.urls.published ?? null, pages: 0 };

  const pages = await demoPages(repoRoot);
  const space = await call("POST", `/v1/orgs/${orgId}/spaces`, { title: DEMO_TITLE, emoji: "📘" });
  const changeRequest = await call("POST", `/v1/spaces/${space.id}/change-requests`, { subject: "Publish Imprint's documentation" });
  for (const changes of demoBatches(pages)) {
    await call("POST", `/v1/spaces/${space.id}/change-requests/${changeRequest.id}/content`, { changes });
  }
  await call("POST", `/v1/spaces/${space.id}/change-requests/${changeRequest.id}/merge`);

  const site = await call("POST", `/v1/orgs/${orgId}/sites`, { title: DEMO_TITLE, visibility: "public", spaces: [space.id] });
  await call("PATCH", `/v1/orgs/${orgId}/sites/${site.id}`, { basename: DEMO_SITE_BASENAME });
  const published = await call("POST", `/v1/orgs/${orgId}/sites/${site.id}/publish`);
  return { created: true, organizationId: orgId, siteId: site.id, spaceId: space.id, url: published.urls?.published ?? null, pages: pages.length };
}
