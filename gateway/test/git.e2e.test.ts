import { readFileSync, existsSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { commitEdits, editingClient, type EditingClient } from "./support/editing.js";
import { createMember, createOrganization, createSpace, type TestOrganization } from "./support/factories.js";
import { startGitServer, type GitServer } from "./support/git-server.js";
import { call } from "./support/http.js";
import { startStack, type TestStack } from "./support/stack.js";

/**
 * Git sync end to end: a real smart-HTTP Git server on loopback (git http-backend), the real
 * stack (the content service runs the git binary), every answer checked against GitBook's schema.
 */

/** A 1×1 PNG. */
const PNG = Buffer.from("iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg==", "base64");

interface RestPage {
  id: string;
  title: string;
  path: string;
  type: string;
  slug?: string;
  description?: string;
  icon?: string;
  hidden?: boolean;
  href?: string;
  markdown?: string;
  git?: { oid: string; path: string };
  pages?: RestPage[];
}

const flatten = (pages: RestPage[]): RestPage[] => pages.flatMap((page) => [page, ...flatten(page.pages ?? [])]);

/** The Git Sync layout GitBook writes: .gitbook.yaml, SUMMARY.md with a group, README folders, front matter, assets, relative links. */
const GITBOOK_LAYOUT: Record<string, string | Buffer> = {
  ".gitbook.yaml": "root: ./\n\nstructure:\n  readme: README.md\n  summary: SUMMARY.md\n",
  "SUMMARY.md": [
    "# Table of contents",
    "",
    "* [Welcome](README.md)",
    "* [Getting started](getting-started/README.md)",
    "  * [Install](getting-started/install.md)",
    "* [Status page](https://status.example.com/)",
    "",
    '## Reference <a href="#reference" id="reference"></a>',
    "",
    "* [API](reference/api.md)",
    "",
  ].join("\n"),
  "README.md": "---\ndescription: Start here.\nicon: house\n---\n\n# Welcome\n\nRead [the install guide](getting-started/install.md#step-2).\n\n![Logo](.gitbook/assets/logo.png)\n",
  "getting-started/README.md": "# Getting started\n\nFirst steps.\n",
  "getting-started/install.md": "---\nhidden: true\n---\n\n# Install\n\n## Step 2\n\nSee [the API](../reference/api.md).\n",
  "reference/api.md": "# API\n\nEndpoints.\n",
  ".gitbook/assets/logo.png": PNG,
};

let stack: TestStack;
let git: GitServer;
let editing: EditingClient;
let org: TestOrganization;
let repoCount = 0;

beforeAll(async () => {
  stack = await startStack();
  git = await startGitServer();
  editing = editingClient(stack);
});
afterAll(async () => {
  editing?.close();
  await git?.close();
  await stack?.stop();
});
beforeEach(async () => {
  org = await createOrganization(stack);
});

const owner = () => org.owner.token;
const newRepository = (files?: Record<string, string | Buffer>) => {
  const name = `repo-${++repoCount}`;
  git.createRepository(name);
  if (files) git.commit(name, files, { message: "Initial docs" });
  return name;
};
const importRepo = (spaceId: string, json: Record<string, unknown>, token = owner()) => call(stack, "POST", `/v1/spaces/${spaceId}/git/import`, { token, json });
const exportRepo = (spaceId: string, json: Record<string, unknown>, token = owner()) => call(stack, "POST", `/v1/spaces/${spaceId}/git/export`, { token, json });
const gitInfo = (spaceId: string, token = owner()) => call(stack, "GET", `/v1/spaces/${spaceId}/git/info`, { token });
const pagesOf = async (spaceId: string): Promise<RestPage[]> => {
  const response = await call(stack, "GET", `/v1/spaces/${spaceId}/content/pages`, { token: owner() });
  expect(response.status).toBe(200);
  return response.body.pages as RestPage[];
};
const pageMarkdown = async (spaceId: string, pageId: string): Promise<string> => {
  const response = await call(stack, "GET", `/v1/spaces/${spaceId}/content/page/${pageId}?format=markdown`, { token: owner() });
  expect(response.status).toBe(200);
  return response.body.markdown as string;
};
const currentRevision = async (spaceId: string) => {
  const response = await call(stack, "GET", `/v1/spaces/${spaceId}/content`, { token: owner() });
  expect(response.status).toBe(200);
  return response.body;
};

describe("POST /v1/spaces/{spaceId}/git/import", () => {
  it("imports a Git Sync layout: SUMMARY tree and group, README folders, front matter, assets and relative links", async () => {
    const name = newRepository(GITBOOK_LAYOUT);
    const head = git.git(git.createRepository(name), "rev-parse", "refs/heads/main");
    const space = await createSpace(stack, org);

    const response = await importRepo(space.id, { url: git.url(name), ref: "refs/heads/main" });
    expect(response.status).toBe(204);

    const revision = await currentRevision(space.id);
    expect(revision.git).toEqual({ oid: head, message: "Initial docs", createdByGitBook: false, ref: "refs/heads/main" });

    const pages = await pagesOf(space.id);
    const shape = (list: RestPage[]): unknown[] => list.map((page) => ({ title: page.title, type: page.type, path: page.path, pages: shape(page.pages ?? []) }));
    expect(shape(pages)).toEqual([
      { title: "Welcome", type: "document", path: "welcome", pages: [] },
      { title: "Getting started", type: "document", path: "getting-started", pages: [{ title: "Install", type: "document", path: "getting-started/install", pages: [] }] },
      { title: "Status page", type: "link", path: undefined, pages: [] },
      { title: "Reference", type: "group", path: "reference", pages: [{ title: "API", type: "document", path: expect.stringMatching(/api$/), pages: [] }] },
    ]);
    const all = flatten(pages);
    const byTitle = Object.fromEntries(all.map((page) => [page.title, page]));
    expect(byTitle.Welcome).toMatchObject({ description: "Start here.", icon: "house", git: { path: "README.md", oid: expect.stringMatching(/^[0-9a-f]{40}$/) } });
    expect(byTitle.Install).toMatchObject({ hidden: true, git: { path: "getting-started/install.md" } });
    expect(byTitle["Status page"]?.href).toBe("https://status.example.com/");

    const files = await call(stack, "GET", `/v1/spaces/${space.id}/content/files`, { token: owner() });
    expect(files.status).toBe(200);
    expect(files.body.items).toEqual([expect.objectContaining({ name: "logo.png", contentType: "image/png", size: PNG.length, git: { oid: expect.any(String), path: ".gitbook/assets/logo.png" } })]);
    const logoId = files.body.items[0].id as string;

    // Relative links became page and file references of the revision.
    const welcome = await pageMarkdown(space.id, byTitle.Welcome!.id);
    expect(welcome).toContain(`/pages/${byTitle.Install!.id}#step-2`);
    expect(welcome).toContain(`/files/${logoId}`);
    expect(welcome).not.toContain("# Welcome");
    expect(await pageMarkdown(space.id, byTitle.Install!.id)).toContain(`/pages/${byTitle.API!.id}`);

    const info = await gitInfo(space.id);
    expect(info.status).toBe(200);
    expect(info.body).toMatchObject({
      url: git.url(name),
      ref: "refs/heads/main",
      commit: { oid: head, createdByGitBook: false },
      operation: { state: "success", direction: "import" },
    });
  });
});

void readFileSync;
void existsSync;
void join;
void commitEdits;
void createMember;
