import { execFileSync } from "node:child_process";
import { createHmac, randomUUID } from "node:crypto";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { CreatePageInput } from "@imprint/proto/content/v1/editing";
import { PublishedContentServiceService } from "@imprint/proto/content/v1/published";
import { eventually, pageUpdate, testClient } from "@imprint/runtime/testing";
import { PageType } from "@imprint/proto/content/v1/revisions";
import { gitSyncLayoutFiles } from "@imprint/runtime/infrastructure";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { commitDraftWork, editingClient, type EditingClient } from "./support/editing.js";
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
  "README.md":
    "---\ndescription: Start here.\nicon: house\n---\n\n# Welcome\n\nRead [the install guide](getting-started/install.md#step-2).\n\n![Logo](.gitbook/assets/logo.png)\n",
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
const importRepo = (spaceId: string, json: Record<string, unknown>, token = owner()) =>
  call(stack, "POST", `/v1/spaces/${spaceId}/git/import`, { token, json });
const exportRepo = (spaceId: string, json: Record<string, unknown>, token = owner()) =>
  call(stack, "POST", `/v1/spaces/${spaceId}/git/export`, { token, json });
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
interface RestRevision {
  id: string;
  parents: string[];
  git?: Record<string, unknown>;
}
const currentRevision = async (spaceId: string): Promise<RestRevision> => {
  const response = await call(stack, "GET", `/v1/spaces/${spaceId}/content`, { token: owner() });
  expect(response.status).toBe(200);
  return response.body as RestRevision;
};

describe("POST /v1/spaces/{spaceId}/git/import", () => {
  it("runs one Git operation per space at a time: another import or export answers 409 meanwhile", async () => {
    const name = newRepository(GITBOOK_LAYOUT);
    const space = await createSpace(stack, org);
    const held = git.hold();
    const first = importRepo(space.id, { url: git.url(name), ref: "main" });
    try {
      await held.reached;
      for (const second of [
        await importRepo(space.id, { url: git.url(name), ref: "main" }),
        await exportRepo(space.id, { url: git.url(name), ref: "main", commitMessage: "x" }),
      ]) {
        expect(second.status).toBe(409);
        expect(second.body.error.message).toBe("a Git import or export of this space is running; try again when it has ended");
      }
      // Another space is not held up by it (its request waits at the server like every other, then completes).
      const other = await createSpace(stack, org);
      const elsewhere = importRepo(other.id, { url: git.url(name), ref: "main" });
      held.release();
      expect((await elsewhere).status).toBe(204);
    } finally {
      held.release();
    }
    expect((await first).status).toBe(204);
    expect((await gitInfo(space.id)).body).toMatchObject({ operation: { state: "success", direction: "import" } });
    expect((await importRepo(space.id, { url: git.url(name), ref: "main" })).status).toBe(204);
  });

  it("tells the reader where each imported page's file is, once the space is published (GetPublishedSpace's git_source, for edit links)", async () => {
    const name = newRepository(GITBOOK_LAYOUT);
    const space = await createSpace(stack, org);
    expect((await importRepo(space.id, { url: git.url(name), ref: "main" })).status).toBe(204);
    const site = (await org.owner.api.orgs.createSite(org.organizationId, { title: "Synced", spaces: [space.id] })).data;
    await org.owner.api.orgs.publishSite(org.organizationId, site.id);
    const published = testClient(PublishedContentServiceService, stack.contentAddress);
    try {
      const answer = await eventually(() => published.getPublishedSpace({ spaceId: space.id, knownRevisionId: "" }).catch(() => null));
      expect(answer.gitSource).toMatchObject({ url: git.url(name), gitRef: "refs/heads/main" });
      const byPath = Object.fromEntries(Object.entries(answer.gitSource!.pagePaths).map(([pageId, path]) => [path, pageId]));
      const pages = await pagesOf(space.id);
      expect(byPath["README.md"]).toBe(pages[0]!.id);
      expect(byPath["getting-started/README.md"]).toBe(pages.find((page) => page.title === "Getting started")!.id);
      // Also when the pages are not modified: the source can change without a revision.
      expect((await published.getPublishedSpace({ spaceId: space.id, knownRevisionId: answer.revisionId })).gitSource?.url).toBe(git.url(name));
    } finally {
      published.close();
    }
  });

  it("imports a Git Sync layout: SUMMARY tree and group, README folders, front matter, assets and relative links", async () => {
    const name = newRepository(GITBOOK_LAYOUT);
    const head = git.git(git.createRepository(name), "rev-parse", "refs/heads/main");
    const space = await createSpace(stack, org);
    expect(space.gitSync).toBeUndefined();

    const response = await importRepo(space.id, { url: git.url(name), ref: "refs/heads/main" });
    expect(response.status).toBe(204);

    const revision = await currentRevision(space.id);
    expect(revision.git).toEqual({ oid: head, message: "Initial docs", createdByGitBook: false, ref: "refs/heads/main" });

    const pages = await pagesOf(space.id);
    const shape = (list: RestPage[]): unknown[] =>
      list.map((page) => ({ title: page.title, type: page.type, path: page.path, pages: shape(page.pages ?? []) }));
    expect(shape(pages)).toEqual([
      { title: "Welcome", type: "document", path: "welcome", pages: [] },
      {
        title: "Getting started",
        type: "document",
        path: "getting-started",
        pages: [{ title: "Install", type: "document", path: "getting-started/install", pages: [] }],
      },
      { title: "Status page", type: "link", path: undefined, pages: [] },
      { title: "Reference", type: "group", path: "reference", pages: [{ title: "API", type: "document", path: expect.stringMatching(/api$/), pages: [] }] },
    ]);
    const all = flatten(pages);
    const byTitle = Object.fromEntries(all.map((page) => [page.title, page]));
    expect(byTitle.Welcome).toMatchObject({
      description: "Start here.",
      icon: "house",
      git: { path: "README.md", oid: expect.stringMatching(/^[0-9a-f]{40}$/) },
    });
    expect(byTitle.Install).toMatchObject({ hidden: true, git: { path: "getting-started/install.md" } });
    expect(byTitle["Status page"]?.href).toBe("https://status.example.com/");

    const files = await call(stack, "GET", `/v1/spaces/${space.id}/content/files`, { token: owner() });
    expect(files.status).toBe(200);
    expect(files.body.items).toEqual([
      expect.objectContaining({
        name: "logo.png",
        contentType: "image/png",
        size: PNG.length,
        git: { oid: expect.any(String), path: ".gitbook/assets/logo.png" },
      }),
    ]);
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
    // The space object carries the same state as its gitSync.
    const read = await call(stack, "GET", `/v1/spaces/${space.id}`, { token: owner() });
    expect(read.status).toBe(200);
    expect(read.body.gitSync).toEqual(info.body);
    expect(read.body.gitSync).toMatchObject({ installationId: space.id, installationProvider: "github", installationStatus: "active", repoName: name });
  });

  it("imports a foreign docs folder without SUMMARY.md: the tree follows the folders", async () => {
    const name = newRepository({
      "README.md": "# My project\n\nIntro. See [usage](docs/usage.md).\n",
      "docs/usage.md": "# Usage\n\n![Flow](images/flow.png)\n",
      "docs/images/flow.png": PNG,
      "docs/advanced/config.md": "# Configuration\n\nKeys.\n",
      "docs/advanced/tuning.md": "Tuning without a heading.\n",
      "package.json": "{}\n",
      "src/index.js": "export {};\n",
    });
    const space = await createSpace(stack, org);
    expect((await importRepo(space.id, { url: git.url(name), ref: "main" })).status).toBe(204);

    const pages = await pagesOf(space.id);
    const shape = (list: RestPage[]): unknown[] => list.map((page) => ({ title: page.title, path: page.path, pages: shape(page.pages ?? []) }));
    expect(shape(pages)).toEqual([
      { title: "My project", path: "my-project", pages: [] },
      {
        title: "Docs",
        path: "docs",
        pages: [
          {
            title: "Advanced",
            path: "docs/advanced",
            pages: [
              { title: "Configuration", path: "docs/advanced/config", pages: [] },
              { title: "Tuning", path: "docs/advanced/tuning", pages: [] },
            ],
          },
          { title: "Usage", path: "docs/usage", pages: [] },
        ],
      },
    ]);
    const byTitle = Object.fromEntries(flatten(pages).map((page) => [page.title, page]));
    const files = await call(stack, "GET", `/v1/spaces/${space.id}/content/files`, { token: owner() });
    expect(files.body.items.map((file: { name: string }) => file.name)).toEqual(["flow.png"]);
    expect(await pageMarkdown(space.id, byTitle["My project"]!.id)).toContain(`/pages/${byTitle.Usage!.id}`);
    expect(await pageMarkdown(space.id, byTitle.Usage!.id)).toContain(`/files/${files.body.items[0].id}`);
    expect(await pageMarkdown(space.id, byTitle.Tuning!.id)).toBe("Tuning without a heading.\n");
  });

  it("imports GitBook's blocks whole: hints, steppers, cards and files become their blocks, references of the revision", async () => {
    const name = newRepository({
      "README.md": [
        "# Home",
        "",
        '{% hint style="warning" %}',
        "Back up first.",
        "{% endhint %}",
        "",
        "{% stepper %}",
        "{% step %}",
        "Install.",
        "{% endstep %}",
        "{% endstepper %}",
        "",
        '{% content-ref url="other.md" %}',
        "[other.md](other.md)",
        "{% endcontent-ref %}",
        "",
        '{% file src=".gitbook/assets/report.pdf" %}',
        "{% endfile %}",
        "",
      ].join("\n"),
      "other.md": "# Other\n\nText.\n",
      ".gitbook/assets/report.pdf": "%PDF-1.4\n",
    });
    const space = await createSpace(stack, org);
    expect((await importRepo(space.id, { url: git.url(name), ref: "refs/heads/main" })).status).toBe(204);
    const byTitle = Object.fromEntries(flatten(await pagesOf(space.id)).map((page) => [page.title, page]));
    const files = await call(stack, "GET", `/v1/spaces/${space.id}/content/files`, { token: owner() });
    const reportId = (files.body.items as { id: string; name: string }[]).find((file) => file.name === "report.pdf")!.id;
    const read = await call(stack, "GET", `/v1/spaces/${space.id}/content/page/${byTitle.Home!.id}?format=document`, { token: owner() });
    expect(read.status).toBe(200);
    const nodes = read.body.document.nodes as { type: string; data: Record<string, unknown> }[];
    expect(nodes.map((node) => [node.type, node.data])).toEqual([
      ["hint", { style: "warning" }],
      ["stepper", {}],
      ["content-ref", { ref: { kind: "page", page: byTitle.Other!.id } }],
      ["file", { ref: { kind: "file", file: reportId } }],
    ]);
  });

  it("re-imports after one page changed: the same pages, only that one gets a new version", async () => {
    const name = newRepository(GITBOOK_LAYOUT);
    const space = await createSpace(stack, org);
    expect((await importRepo(space.id, { url: git.url(name), ref: "refs/heads/main" })).status).toBe(204);
    const before = flatten(await pagesOf(space.id));
    const firstRevision = (await currentRevision(space.id)).id;

    const changed = git.commit(name, { "reference/api.md": "# API\n\nEndpoints, now documented.\n" }, { message: "Document the API" });
    expect((await importRepo(space.id, { url: git.url(name), ref: "refs/heads/main" })).status).toBe(204);
    const revision = await currentRevision(space.id);
    expect(revision.id).not.toBe(firstRevision);
    expect(revision.parents).toEqual([firstRevision]);
    expect(revision.git).toMatchObject({ oid: changed, message: "Document the API" });

    const after = flatten(await pagesOf(space.id));
    expect(after.map((page) => page.id)).toEqual(before.map((page) => page.id));
    for (const { pages: _children, ...page } of after) {
      const { pages: _oldChildren, ...old } = before.find((candidate) => candidate.id === page.id)!;
      if (page.title === "API") {
        expect(page.git?.oid).not.toBe(old.git?.oid);
        expect(page.markdown).toContain("now documented");
        expect((page as { updatedAt?: string }).updatedAt).not.toBe((old as { updatedAt?: string }).updatedAt);
      } else {
        // Unchanged pages keep their version: same metadata, same update time.
        expect(page).toEqual(old);
      }
    }

    // Importing the same commit again writes nothing.
    expect((await importRepo(space.id, { url: git.url(name), ref: "refs/heads/main" })).status).toBe(204);
    expect((await currentRevision(space.id)).id).toBe(revision.id);
  });

  it("merges edits made in the space since the last sync with the repository's, and answers 409 naming the page on a real conflict", async () => {
    const name = newRepository(GITBOOK_LAYOUT);
    const space = await createSpace(stack, org);
    expect((await importRepo(space.id, { url: git.url(name), ref: "main" })).status).toBe(204);
    const byTitle = Object.fromEntries(flatten(await pagesOf(space.id)).map((page) => [page.title, page]));

    // The space edits one page, the repository another.
    await commitDraftWork(editing, { userId: org.owner.userId, spaceId: space.id }, (draftId, caller) =>
      editing.updatePage({ caller, draftId, page: pageUpdate({ pageId: byTitle.API!.id, markdown: "Endpoints, edited in the space.\n" }) }),
    );
    git.commit(name, { "getting-started/README.md": "# Getting started\n\nFirst steps, edited in Git.\n" }, { message: "Edit in Git" });
    expect((await importRepo(space.id, { url: git.url(name), ref: "main" })).status).toBe(204);
    const merged = await currentRevision(space.id);
    expect(merged.parents).toHaveLength(2);
    expect(await pageMarkdown(space.id, byTitle.API!.id)).toBe("Endpoints, edited in the space.\n");
    expect(await pageMarkdown(space.id, byTitle["Getting started"]!.id)).toContain("edited in Git");

    // Both sides change the same lines of one page: 409 naming it, nothing written.
    await commitDraftWork(editing, { userId: org.owner.userId, spaceId: space.id }, (draftId, caller) =>
      editing.updatePage({
        caller,
        draftId,
        page: pageUpdate({ pageId: byTitle.Install!.id, markdown: "## Step 2\n\nThe space's version.\n" }),
      }),
    );
    const head = (await currentRevision(space.id)).id;
    git.commit(name, { "getting-started/install.md": "---\nhidden: true\n---\n\n# Install\n\n## Step 2\n\nGit's version.\n" }, { message: "Conflicting edit" });
    const conflict = await importRepo(space.id, { url: git.url(name), ref: "main" });
    expect(conflict.status).toBe(409);
    expect(conflict.body.error.message).toContain('"Install"');
    expect((await currentRevision(space.id)).id).toBe(head);
    const info = await gitInfo(space.id);
    expect(info.body.operation).toMatchObject({ state: "failure", direction: "import", error: expect.stringContaining("Install") });
  });

  it("imports into a change request's branch, leaving the space's content alone; a merged change request answers 412", async () => {
    const name = newRepository(GITBOOK_LAYOUT);
    const space = await createSpace(stack, org);
    const spaceRevision = (await currentRevision(space.id)).id;
    const created = await call(stack, "POST", `/v1/spaces/${space.id}/change-requests`, { token: owner(), json: { subject: "From Git" } });
    expect(created.status).toBe(201);
    const changeRequestId = created.body.id as string;

    expect((await importRepo(space.id, { url: git.url(name), ref: "main", changeRequest: created.body.number as number })).status).toBe(204);
    const crPages = await call(stack, "GET", `/v1/spaces/${space.id}/change-requests/${changeRequestId}/content/pages`, { token: owner() });
    expect(crPages.status).toBe(200);
    expect(flatten(crPages.body.pages).map((page: RestPage) => page.title)).toContain("Install");
    expect((await currentRevision(space.id)).id).toBe(spaceRevision);

    expect((await call(stack, "POST", `/v1/spaces/${space.id}/change-requests/${changeRequestId}/merge`, { token: owner() })).status).toBe(200);
    const late = await importRepo(space.id, { url: git.url(name), ref: "main", changeRequest: changeRequestId });
    expect(late.status).toBe(412);
    expect(late.body.error.message).toContain("change_request");
  });

  it("answers 400 naming the field for a bad URL or ref, and a missing ref", async () => {
    const name = newRepository(GITBOOK_LAYOUT);
    const space = await createSpace(stack, org);
    const ssh = await importRepo(space.id, { url: "ssh://git@example.com/repo.git", ref: "main" });
    expect(ssh.status).toBe(400);
    expect(ssh.body.error.message).toMatch(/^url: /);
    const file = await importRepo(space.id, { url: "file:///etc", ref: "main" });
    expect(file.status).toBe(400);
    const badRef = await importRepo(space.id, { url: git.url(name), ref: "refs/heads/../x" });
    expect(badRef.status).toBe(400);
    expect(badRef.body.error.message).toMatch(/^ref: /);
    const missing = await importRepo(space.id, { url: git.url(name), ref: "refs/heads/nope" });
    expect(missing.status).toBe(400);
    expect(missing.body.error.message).toMatch(/^ref: /);
    const noRepository = await importRepo(space.id, { url: git.url("does-not-exist"), ref: "main" });
    expect(noRepository.status).toBe(400);
    expect(noRepository.body.error.message).toMatch(/^url: /);
    expect((await importRepo(space.id, { ref: "main" })).status).toBe(400);
  });
});

describe("POST /v1/spaces/{spaceId}/git/export", () => {
  /** A space with nested pages, front-matter fields, a group, a link page, a file and links between them. */
  async function seedSpace(spaceId: string): Promise<void> {
    await commitDraftWork(editing, { userId: org.owner.userId, spaceId }, async (draftId, caller) => {
      const page = (fields: Partial<CreatePageInput>) => editing.createPage({ caller, draftId, page: CreatePageInput.fromPartial(fields) });
      const fileId = (await editing.uploadFile({ caller, draftId, fileId: "", name: "diagram.png", contentType: "image/png", content: PNG })).file!.id;
      await page({
        pageId: "intro",
        title: "Introduction",
        slug: "intro",
        description: "What it is.",
        icon: "book",
        markdown: "Welcome. Go to [setup](/pages/setup#first-run).\n\n![Diagram](/files/" + fileId + ")",
      });
      await page({ pageId: "guide", title: "Guide", slug: "guide", markdown: "The guide." });
      await page({
        pageId: "setup",
        parentPageId: "guide",
        title: "Setup",
        slug: "setup",
        hidden: true,
        markdown: "## First run\n\nBack to [the intro](/pages/intro).",
      });
      await page({ pageId: "deep", parentPageId: "setup", title: "Deep page", slug: "deep", markdown: "Deep." });
      await page({ pageId: "status", title: "Status", type: PageType.PAGE_TYPE_LINK, href: "https://status.example.com/" });
      await page({ pageId: "ref", title: "Reference", slug: "reference", type: PageType.PAGE_TYPE_GROUP });
      await page({ pageId: "api", parentPageId: "ref", title: "API", slug: "api", markdown: "Endpoints." });
    });
  }

  it("writes the space as one commit in the Git Sync layout, pushes it, and re-exports only what changed", async () => {
    const space = await createSpace(stack, org);
    await seedSpace(space.id);
    const name = newRepository();
    const response = await exportRepo(space.id, { url: git.url(name), ref: "refs/heads/main", commitMessage: "Export from Imprint" });
    expect(response.status).toBe(204);

    const clone = git.clone(name);
    const read = (path: string) => readFileSync(join(clone, path), "utf8");
    expect(git.git(clone, "log", "--format=%s|%an")).toBe("Export from Imprint|Imprint");
    expect(read("SUMMARY.md")).toBe(
      [
        "# Table of contents",
        "",
        "* [Introduction](intro.md)",
        "* [Guide](guide/README.md)",
        "  * [Setup](guide/setup/README.md)",
        "    * [Deep page](guide/setup/deep.md)",
        "* [Status](https://status.example.com/)",
        "",
        '## Reference <a href="#reference" id="reference"></a>',
        "",
        "* [API](reference/api.md)",
        "",
      ].join("\n"),
    );
    expect(read(".gitbook.yaml")).toContain("readme: intro.md");
    expect(read("intro.md")).toBe(
      "---\ndescription: What it is.\nicon: book\n---\n\n# Introduction\n\nWelcome. Go to [setup](guide/setup/README.md#first-run).\n\n![Diagram](.gitbook/assets/diagram.png)\n",
    );
    expect(read("guide/setup/README.md")).toBe("---\nhidden: true\n---\n\n# Setup\n\n## First run\n\nBack to [the intro](../../intro.md).\n");
    expect(readFileSync(join(clone, ".gitbook/assets/diagram.png")).equals(PNG)).toBe(true);
    const firstCommit = git.git(clone, "rev-parse", "HEAD");

    const info = await gitInfo(space.id);
    expect(info.body).toMatchObject({
      url: git.url(name),
      commit: { oid: firstCommit, createdByGitBook: true },
      operation: { state: "success", direction: "export" },
    });

    // Nothing changed: nothing pushed.
    expect((await exportRepo(space.id, { url: git.url(name), ref: "refs/heads/main", commitMessage: "Again" })).status).toBe(204);
    expect(git.git(git.clone(name), "rev-list", "--count", "HEAD")).toBe("1");

    // One page changed: one commit on top; the other files keep their blobs.
    await commitDraftWork(editing, { userId: org.owner.userId, spaceId: space.id }, (draftId, caller) =>
      editing.updatePage({ caller, draftId, page: pageUpdate({ pageId: "api", markdown: "Endpoints, revised." }) }),
    );
    expect((await exportRepo(space.id, { url: git.url(name), ref: "refs/heads/main", commitMessage: "Revise the API" })).status).toBe(204);
    const second = git.clone(name);
    expect(git.git(second, "log", "--format=%s")).toBe("Revise the API\nExport from Imprint");
    expect(git.git(second, "diff", "--name-only", "HEAD~1", "HEAD")).toBe("reference/api.md");
  });

  it("refuses with 409 when the repository moved since the last sync, and exports on top once it was imported", async () => {
    const space = await createSpace(stack, org);
    await seedSpace(space.id);
    const name = newRepository();
    expect((await exportRepo(space.id, { url: git.url(name), ref: "main", commitMessage: "First" })).status).toBe(204);
    const remote = git.commit(name, { "reference/api.md": "# API\n\nEdited in Git.\n" }, { message: "Edit in Git" });

    const refused = await exportRepo(space.id, { url: git.url(name), ref: "main", commitMessage: "Second" });
    expect(refused.status).toBe(409);
    expect(refused.body.error.message).toContain("import");
    expect(git.git(git.clone(name), "rev-parse", "HEAD")).toBe(remote);

    expect((await importRepo(space.id, { url: git.url(name), ref: "main" })).status).toBe(204);
    expect(await pageMarkdown(space.id, "api")).toContain("Edited in Git.");
    // The space now holds the repository's content: an export has nothing to push.
    expect((await exportRepo(space.id, { url: git.url(name), ref: "main", commitMessage: "Nothing" })).status).toBe(204);
    expect(git.git(git.clone(name), "rev-parse", "HEAD")).toBe(remote);
    await commitDraftWork(editing, { userId: org.owner.userId, spaceId: space.id }, (draftId, caller) =>
      editing.updatePage({ caller, draftId, page: pageUpdate({ pageId: "guide", markdown: "The guide, edited after the import." }) }),
    );
    expect((await exportRepo(space.id, { url: git.url(name), ref: "main", commitMessage: "Second" })).status).toBe(204);
    const clone = git.clone(name);
    expect(git.git(clone, "rev-parse", "HEAD~1")).toBe(remote);
    expect(git.git(clone, "log", "-1", "--format=%s")).toBe("Second");
    expect(readFileSync(join(clone, "reference/api.md"), "utf8")).toContain("Edited in Git.");

    // A repository with commits this space never synced with is not overwritten either.
    const other = newRepository({ "README.md": "# Someone else's\n" });
    const foreign = await exportRepo(space.id, { url: git.url(other), ref: "main", commitMessage: "Clobber" });
    expect(foreign.status).toBe(409);
  });

  it("imports reusable contents from .gitbook/includes/ as the pages include them, exports them back there, and re-imports them as the same", async () => {
    const name = newRepository({
      "README.md": '# Home\n\nBefore.\n\n{% include ".gitbook/includes/prerequisites.md" %}\n',
      "guide/setup.md": '# Setup\n\n{% include "../.gitbook/includes/prerequisites.md" %}\n',
      ".gitbook/includes/prerequisites.md": "---\ntitle: Prerequisites\n---\n\nYou need a [token](../../README.md).\n",
    });
    const space = await createSpace(stack, org);
    expect((await importRepo(space.id, { url: git.url(name), ref: "refs/heads/main" })).status).toBe(204);
    const reusables = (await currentRevision(space.id)) as RestRevision & { reusableContents: { id: string; title: string }[] };
    expect(reusables.reusableContents.map((item) => item.title)).toEqual(["Prerequisites"]);
    const reusableId = reusables.reusableContents[0]!.id;
    const byTitle = Object.fromEntries(flatten(await pagesOf(space.id)).map((page) => [page.title, page]));
    for (const title of ["Home", "Setup"]) {
      const read = await call(stack, "GET", `/v1/spaces/${space.id}/content/page/${byTitle[title]!.id}?format=document`, { token: owner() });
      const blocks = read.body.document.nodes as { type: string; data: Record<string, unknown> }[];
      expect(blocks.at(-1)).toMatchObject({ type: "reusable-content", data: { ref: { kind: "reusable-content", reusableContent: reusableId } } });
    }
    // Its own link to a page became a reference, as a page's do.
    const included = await call(stack, "GET", `/v1/spaces/${space.id}/revisions/${reusables.id}/reusable-contents/${reusableId}/document`, {
      token: owner(),
    });
    expect(included.status).toBe(200);
    expect(JSON.stringify(included.body)).toContain(`{"kind":"page","page":"${byTitle.Home!.id}"}`);

    const exported = newRepository();
    expect((await exportRepo(space.id, { url: git.url(exported), ref: "main", commitMessage: "Export" })).status).toBe(204);
    const clone = git.clone(exported);
    const read = (path: string) => readFileSync(join(clone, path), "utf8");
    // The home page is written as home.md (.gitbook.yaml names it the readme): links follow it there.
    expect(read(".gitbook/includes/prerequisites.md")).toBe("---\ntitle: Prerequisites\n---\n\nYou need a [token](../../home.md).\n");
    expect(read("home.md")).toContain('{% include ".gitbook/includes/prerequisites.md" %}');
    expect(read("guide/setup.md")).toContain('{% include "../.gitbook/includes/prerequisites.md" %}');

    // Imported again (a changed title in Git), it is the same reusable content.
    git.commit(name, { ".gitbook/includes/prerequisites.md": "---\ntitle: Before you start\n---\n\nYou need a token.\n" }, { message: "Rename" });
    expect((await importRepo(space.id, { url: git.url(name), ref: "refs/heads/main" })).status).toBe(204);
    const again = (await currentRevision(space.id)) as RestRevision & { reusableContents: { id: string; title: string }[] };
    expect(again.reusableContents).toMatchObject([{ id: reusableId, title: "Before you start" }]);
  });

  it("round trip: an exported space imports into another space with the same pages, paths, bodies, files and links", async () => {
    const source = await createSpace(stack, org);
    await seedSpace(source.id);
    const name = newRepository();
    expect((await exportRepo(source.id, { url: git.url(name), ref: "main", commitMessage: "Export" })).status).toBe(204);
    const target = await createSpace(stack, org);
    expect((await importRepo(target.id, { url: git.url(name), ref: "main" })).status).toBe(204);
    // The commit came from an export of Imprint: the imported revision says so.
    expect((await currentRevision(target.id)).git).toMatchObject({ message: "Export", createdByGitBook: true });

    const sourcePages = flatten(await pagesOf(source.id));
    const targetPages = flatten(await pagesOf(target.id));
    const fields = (page: RestPage) => ({
      title: page.title,
      type: page.type,
      path: page.path,
      description: page.description,
      icon: page.icon,
      hidden: page.hidden,
      href: page.href,
    });
    expect(targetPages.map(fields)).toEqual(sourcePages.map(fields));

    const sourceFiles = (await call(stack, "GET", `/v1/spaces/${source.id}/content/files`, { token: owner() })).body.items;
    const targetFiles = (await call(stack, "GET", `/v1/spaces/${target.id}/content/files`, { token: owner() })).body.items;
    const fileFields = (file: { name: string; size: number; contentType: string }) => ({ name: file.name, size: file.size, contentType: file.contentType });
    expect(targetFiles.map(fileFields)).toEqual(sourceFiles.map(fileFields));

    // Bodies equal once each space's page and file ids are replaced by the path they name.
    const idToPath = (pages: RestPage[], files: { id: string; name: string }[]) => (markdown: string) =>
      markdown
        .replace(/\/pages\/([A-Za-z0-9_-]+)/g, (_match, id: string) => `page:${pages.find((page) => page.id === id)?.path ?? "?"}`)
        .replace(/\/files\/([A-Za-z0-9_-]+)/g, (_match, id: string) => `file:${files.find((file) => file.id === id)?.name ?? "?"}`);
    const normalizeSource = idToPath(sourcePages, sourceFiles);
    const normalizeTarget = idToPath(targetPages, targetFiles);
    for (const [index, page] of sourcePages.entries()) {
      if (page.type !== "document") continue;
      const sourceMarkdown = normalizeSource(await pageMarkdown(source.id, page.id));
      const targetMarkdown = normalizeTarget(await pageMarkdown(target.id, targetPages[index]!.id));
      expect(targetMarkdown.trim()).toBe(sourceMarkdown.trim());
    }
    expect(normalizeTarget(await pageMarkdown(target.id, targetPages.find((page) => page.path === "intro")!.id))).toContain("page:guide/setup#first-run");
  });

  it("round trip through a project directory: export writes under it, import reads from it", async () => {
    const source = await createSpace(stack, org);
    await seedSpace(source.id);
    const name = newRepository();
    expect((await exportRepo(source.id, { url: git.url(name), ref: "main", commitMessage: "Into docs/site", repoProjectDirectory: "docs/site" })).status).toBe(
      204,
    );
    const clone = git.clone(name);
    expect(git.git(clone, "ls-files", "--", "SUMMARY.md", "docs/site/SUMMARY.md", "docs/site/intro.md", "docs/site/.gitbook/assets/diagram.png")).toBe(
      "docs/site/.gitbook/assets/diagram.png\ndocs/site/SUMMARY.md\ndocs/site/intro.md",
    );
    const target = await createSpace(stack, org);
    expect((await importRepo(target.id, { url: git.url(name), ref: "main", repoProjectDirectory: "docs/site" })).status).toBe(204);
    const paths = (pages: RestPage[]) => flatten(pages).map((page) => `${page.type}:${page.path ?? page.title}`);
    expect(paths(await pagesOf(target.id))).toEqual(paths(await pagesOf(source.id)));
  });
});

describe("a 1,000-page round trip", () => {
  it("imports 1,000 pages in the Git Sync layout, exports them to an empty repository, and imports that into a second space: same pages, paths, titles and bodies", async () => {
    const name = newRepository(Object.fromEntries(gitSyncLayoutFiles(1_000)));
    const first = await createSpace(stack, org);
    expect((await importRepo(first.id, { url: git.url(name), ref: "main" })).status).toBe(204);
    const exported = newRepository();
    expect((await exportRepo(first.id, { url: git.url(exported), ref: "main", commitMessage: "Round trip" })).status).toBe(204);
    const second = await createSpace(stack, org);
    expect((await importRepo(second.id, { url: git.url(exported), ref: "main" })).status).toBe(204);

    const fields = (page: RestPage) => ({ title: page.title, type: page.type, path: page.path, description: page.description, file: page.git?.path });
    const firstPages = flatten(await pagesOf(first.id));
    expect(firstPages.filter((page) => page.type === "document")).toHaveLength(1_000);
    expect(firstPages.find((page) => page.git?.path === "section-9/page-98.md")).toMatchObject({ title: "Page 9.98", path: "section-9/page-98" });
    expect(flatten(await pagesOf(second.id)).map(fields)).toEqual(firstPages.map(fields));

    // Bodies: the second space, exported in turn, writes the very tree the first one wrote (every
    // page's markdown, its links written back as relative paths, the assets).
    const again = newRepository();
    expect((await exportRepo(second.id, { url: git.url(again), ref: "main", commitMessage: "Round trip again" })).status).toBe(204);
    const tree = (repository: string) => git.git(git.createRepository(repository), "rev-parse", "refs/heads/main^{tree}");
    expect(tree(again)).toBe(tree(exported));
    const page = git.git(git.createRepository(exported), "show", "refs/heads/main:section-3/page-7.md");
    expect(page).toContain("# Page 3.7");
    expect(page).toContain("Paragraph 5 of page 3.7");
    expect(page).toContain("[the next page](page-8.md)");
  });
});

describe("permissions and isolation", () => {
  it("needs edit rights to import and export (a reader gets 403 but can read the info); another organization gets 404", async () => {
    const name = newRepository(GITBOOK_LAYOUT);
    const space = await createSpace(stack, org);
    expect((await gitInfo(space.id)).status).toBe(404);
    expect((await importRepo(space.id, { url: git.url(name), ref: "main" })).status).toBe(204);

    const reader = await createMember(stack, org, { role: "read" });
    expect((await importRepo(space.id, { url: git.url(name), ref: "main" }, reader.token)).status).toBe(403);
    expect((await exportRepo(space.id, { url: git.url(name), ref: "main", commitMessage: "x" }, reader.token)).status).toBe(403);
    expect((await gitInfo(space.id, reader.token)).status).toBe(200);

    const stranger = await createOrganization(stack);
    expect((await importRepo(space.id, { url: git.url(name), ref: "main" }, stranger.owner.token)).status).toBe(404);
    expect((await exportRepo(space.id, { url: git.url(name), ref: "main", commitMessage: "x" }, stranger.owner.token)).status).toBe(404);
    expect((await gitInfo(space.id, stranger.owner.token)).status).toBe(404);
  });
});

const EXTENSION = "Imprint's Git Sync connection (docs/api-differences.json extensions)";

describe("Git Sync connection: PUT/GET/DELETE /v1/spaces/{spaceId}/git/sync", () => {
  const connect = (spaceId: string, json: Record<string, unknown>, token = owner()) =>
    call(stack, "PUT", `/v1/spaces/${spaceId}/git/sync`, { token, json, notInOpenApi: EXTENSION });
  const connection = (spaceId: string, token = owner()) => call(stack, "GET", `/v1/spaces/${spaceId}/git/sync`, { token, notInOpenApi: EXTENSION });
  const disconnect = (spaceId: string, token = owner()) => call(stack, "DELETE", `/v1/spaces/${spaceId}/git/sync`, { token, notInOpenApi: EXTENSION });

  it("connects with sealed credentials, answers the webhook secret once, never shows a secret, and disconnects", async () => {
    const name = newRepository(GITBOOK_LAYOUT);
    const space = await createSpace(stack, org);
    expect((await connection(space.id)).status).toBe(404);

    const token = "ghp-connection-token-5e4d3c";
    const first = await connect(space.id, { url: git.url(name), ref: "main", username: "docs-bot", token, priority: "imprint" });
    expect(first.status).toBe(200);
    expect(first.body).toMatchObject({
      url: git.url(name),
      ref: "refs/heads/main",
      projectDirectory: "",
      direction: "both",
      priority: "imprint",
      hasCredentials: true,
      webhook: { url: expect.stringMatching(new RegExp(`/v1/spaces/${space.id}/git/sync/webhook$`)) },
    });
    const secret = first.body.webhook.secret as string;
    expect(secret).toMatch(/^[0-9a-f]{64}$/);

    const read = await connection(space.id);
    expect(read.status).toBe(200);
    expect(read.body).toMatchObject({
      url: git.url(name),
      ref: "refs/heads/main",
      direction: "both",
      priority: "imprint",
      webhook: { url: first.body.webhook.url },
    });
    expect(read.body.webhook.secret).toBeUndefined();
    expect(read.body.lastSync).toBeUndefined();

    // Connecting again keeps the secret (answers none) unless asked to rotate it.
    const again = await connect(space.id, { url: git.url(name), ref: "main", direction: "import" });
    expect(again.status).toBe(200);
    expect(again.body).toMatchObject({ direction: "import", priority: "git", hasCredentials: false });
    expect(again.body.webhook.secret).toBeUndefined();
    const rotated = await connect(space.id, { url: git.url(name), ref: "main", token, rotateWebhookSecret: true });
    expect(rotated.body.webhook.secret).toMatch(/^[0-9a-f]{64}$/);
    expect(rotated.body.webhook.secret).not.toBe(secret);

    // The space's gitSync and getSpaceGitInfo reflect the connection; an import shows as the last sync.
    expect((await importRepo(space.id, { url: git.url(name), ref: "main" })).status).toBe(204);
    const info = await gitInfo(space.id);
    expect(info.body).toMatchObject({ url: git.url(name), ref: "refs/heads/main", connection: { direction: "both", priority: "git" } });
    const spaceBody = (await call(stack, "GET", `/v1/spaces/${space.id}`, { token: owner() })).body;
    expect(spaceBody.gitSync).toMatchObject({ connection: { direction: "both", priority: "git" } });
    const synced = await connection(space.id);
    expect(synced.body.lastSync).toMatchObject({ state: "success", direction: "import", commit: info.body.commit.oid });

    // A connected space syncs with its repository only.
    const other = newRepository(GITBOOK_LAYOUT);
    const elsewhere = await importRepo(space.id, { url: git.url(other), ref: "main" });
    expect(elsewhere.status).toBe(412);
    expect(elsewhere.body.error.message).toMatch(/^space: is connected to /);

    const everything = JSON.stringify([read.body, again.body, synced.body, info.body, spaceBody, stack.gatewayLogs]);
    expect(everything).not.toContain(token);
    expect(everything).not.toContain(secret);
    expect(everything).not.toContain(rotated.body.webhook.secret);

    expect((await disconnect(space.id)).status).toBe(204);
    expect((await disconnect(space.id)).status).toBe(204);
    expect((await connection(space.id)).status).toBe(404);
    expect((await gitInfo(space.id)).body.connection).toBeUndefined();
    expect((await importRepo(space.id, { url: git.url(other), ref: "main" })).status).toBe(204);
  });

  it("refuses: a reader 403 (but reads the connection), another organization 404, bad input 400 naming the field", async () => {
    const name = newRepository(GITBOOK_LAYOUT);
    const space = await createSpace(stack, org);
    expect((await connect(space.id, { url: git.url(name), ref: "main" })).status).toBe(200);

    const reader = await createMember(stack, org, { role: "read" });
    expect((await connect(space.id, { url: git.url(name), ref: "main" }, reader.token)).status).toBe(403);
    expect((await disconnect(space.id, reader.token)).status).toBe(403);
    const readerView = await connection(space.id, reader.token);
    expect(readerView.status).toBe(200);
    expect(readerView.body.webhook.secret).toBeUndefined();

    const stranger = await createOrganization(stack);
    expect((await connect(space.id, { url: git.url(name), ref: "main" }, stranger.owner.token)).status).toBe(404);
    expect((await connection(space.id, stranger.owner.token)).status).toBe(404);
    expect((await disconnect(space.id, stranger.owner.token)).status).toBe(404);

    const refusals: [Record<string, unknown>, RegExp][] = [
      [{ ref: "main" }, /^url: /],
      [{ url: git.url(name) }, /^ref: /],
      [{ url: "ftp://example.com/docs.git", ref: "main" }, /^url: /],
      [{ url: git.url(name), ref: "main..x" }, /^ref: /],
      [{ url: git.url(name), ref: "main", direction: "sideways" }, /^direction: /],
      [{ url: git.url(name), ref: "main", priority: "both" }, /^priority: /],
      [{ url: git.url(name), ref: "main", username: "bot" }, /^token: /],
      [{ url: git.url(name, { user: "a", password: "b" }), ref: "main", token: "t" }, /^url: /],
      [{ url: git.url(name), ref: "main", secret: "mine" }, /secret/],
    ];
    for (const [json, message] of refusals) {
      const refused = await connect(space.id, json);
      expect(refused.status, JSON.stringify(json)).toBe(400);
      expect(refused.body.error.message, JSON.stringify(json)).toMatch(message);
    }
  });

  const hmac = (secret: string, body: string) => createHmac("sha256", secret).update(body).digest("hex");
  const deliver = (spaceId: string, body: string, headers: Record<string, string>) =>
    call(stack, "POST", `/v1/spaces/${spaceId}/git/sync/webhook`, {
      rawBody: Buffer.from(body),
      headers: { "content-type": "application/json", ...headers },
      notInOpenApi: EXTENSION,
    });
  const push = (ref: string, after: string) => JSON.stringify({ ref, before: "0".repeat(40), after, repository: { full_name: "docs/repo" } });
  const lastSync = async (spaceId: string) => (await connection(spaceId)).body.lastSync as { state: string; commit?: string; error?: string } | undefined;

  it("imports a push announced by a signed webhook (GitHub, GitLab, Gitea, Forgejo); refuses forged ones (401); ignores other refs and replays", async () => {
    const name = newRepository(GITBOOK_LAYOUT);
    const space = await createSpace(stack, org);
    const secret = (await connect(space.id, { url: git.url(name), ref: "main" })).body.webhook.secret as string;

    // GitHub: a push to the synced ref is imported by the Git sync job.
    const first = git.git(git.createRepository(name), "rev-parse", "refs/heads/main");
    const body = push("refs/heads/main", first);
    const queued = await deliver(space.id, body, { "X-Hub-Signature-256": `sha256=${hmac(secret, body)}`, "X-GitHub-Delivery": "delivery-1" });
    expect(queued.status).toBe(202);
    expect(queued.body).toEqual({ queued: true });
    await eventually(async () => (await lastSync(space.id))?.commit === first && (await lastSync(space.id))?.state === "success");
    expect((await pagesOf(space.id)).map((page) => page.title)).toContain("Getting started");

    // The same delivery replayed changes nothing.
    const replay = await deliver(space.id, body, { "X-Hub-Signature-256": `sha256=${hmac(secret, body)}`, "X-GitHub-Delivery": "delivery-1" });
    expect(replay.status).toBe(202);
    expect(replay.body).toEqual({ queued: false, reason: "that commit is already synced" });

    // Forged: a wrong secret, a body other than the one signed, a malformed signature, none at all.
    const forged: Record<string, string>[] = [
      { "X-Hub-Signature-256": `sha256=${hmac("not-the-secret", body)}` },
      { "X-Hub-Signature-256": `sha256=${hmac(secret, body)}` },
      { "X-Gitlab-Token": "not-the-secret" },
      { "X-Gitea-Signature": hmac("not-the-secret", body) },
      { "X-Forgejo-Signature": "zz" },
      {},
    ];
    const second = git.commit(name, { "reference/api.md": "# API\n\nPushed from Git.\n" }, { message: "Push" });
    const tampered = push("refs/heads/main", second);
    for (const headers of forged) {
      const refused = await deliver(space.id, tampered, headers);
      expect(refused.status, JSON.stringify(headers)).toBe(401);
      expect(refused.body.error.message).toMatch(/^webhook: /);
    }

    // Another ref: accepted, ignored.
    const other = push("refs/heads/feature", second);
    const elsewhere = await deliver(space.id, other, { "X-Gitlab-Token": secret });
    expect(elsewhere.body).toEqual({ queued: false, reason: "a push to refs/heads/feature, not to the synced refs/heads/main" });

    // GitLab's token, then Gitea's and Forgejo's signatures.
    expect((await deliver(space.id, tampered, { "X-Gitlab-Token": secret, "X-Gitlab-Event-UUID": "gl-1" })).body).toEqual({ queued: true });
    await eventually(async () => (await lastSync(space.id))?.commit === second);
    expect(
      await pageMarkdown(space.id, (await pagesOf(space.id)).flatMap((page) => [page, ...(page.pages ?? [])]).find((page) => page.title === "API")!.id),
    ).toContain("Pushed from Git.");
    const third = git.commit(name, { "reference/api.md": "# API\n\nPushed again.\n" }, { message: "Push again" });
    const giteaBody = push("refs/heads/main", third);
    expect((await deliver(space.id, giteaBody, { "X-Gitea-Signature": hmac(secret, giteaBody) })).status).toBe(202);
    await eventually(async () => (await lastSync(space.id))?.commit === third);
    const fourth = git.commit(name, { "reference/api.md": "# API\n\nPushed from Forgejo.\n" }, { message: "Push from Forgejo" });
    const forgejoBody = push("refs/heads/main", fourth);
    expect((await deliver(space.id, forgejoBody, { "X-Forgejo-Signature": hmac(secret, forgejoBody) })).body).toEqual({ queued: true });
    await eventually(async () => (await lastSync(space.id))?.commit === fourth);

    // A connection that only exports ignores pushes; a disconnected space answers 404.
    await connect(space.id, { url: git.url(name), ref: "main", direction: "export" });
    const ping = JSON.stringify({ zen: "Keep it logically awesome." });
    expect((await deliver(space.id, ping, { "X-Hub-Signature-256": `sha256=${hmac(secret, ping)}` })).body).toEqual({
      queued: false,
      reason: "not a push of a commit",
    });
    expect((await deliver(space.id, forgejoBody, { "X-Forgejo-Signature": hmac(secret, forgejoBody) })).body).toEqual({
      queued: false,
      reason: "the connection only exports to the repository",
    });
    await disconnect(space.id);
    expect((await deliver(space.id, forgejoBody, { "X-Forgejo-Signature": hmac(secret, forgejoBody) })).status).toBe(404);
  });

  it("exports each merge and direct edit as a commit authored by who made it, the change request's subject its message, once each", async () => {
    const name = newRepository(GITBOOK_LAYOUT);
    const bare = git.createRepository(name);
    const space = await createSpace(stack, org);
    expect((await connect(space.id, { url: git.url(name), ref: "main" })).status).toBe(200);
    expect((await importRepo(space.id, { url: git.url(name), ref: "main" })).status).toBe(204);
    const imported = git.git(bare, "rev-parse", "refs/heads/main");
    const byTitle = Object.fromEntries(flatten(await pagesOf(space.id)).map((page) => [page.title, page]));
    const ada = await createMember(stack, org, { role: "admin", displayName: "Ada Lovelace", email: `ada-${randomUUID()}@example.com` });
    const head = () => git.git(bare, "log", "-1", "--format=%s|%an|%ae|%cn", "refs/heads/main");

    // A change request merged by Ada: one commit, her name and e-mail, the subject as message, Imprint as committer.
    const created = await call(stack, "POST", `/v1/spaces/${space.id}/change-requests`, { token: owner(), json: { subject: "Document step 2" } });
    await commitDraftWork(editing, { userId: org.owner.userId, spaceId: space.id, changeRequestId: created.body.id as string }, (draftId, caller) =>
      editing.updatePage({ caller, draftId, page: pageUpdate({ pageId: byTitle.API!.id, markdown: "Endpoints, merged from a change request.\n" }) }),
    );
    expect((await call(stack, "POST", `/v1/spaces/${space.id}/change-requests/${created.body.id}/merge`, { token: ada.token })).status).toBe(200);
    await eventually(async () => head() === `Document step 2|Ada Lovelace|${ada.email}|Imprint`);
    expect(git.git(bare, "rev-parse", "refs/heads/main~1")).toBe(imported);
    expect(git.git(bare, "show", "refs/heads/main:reference/api.md")).toContain("Endpoints, merged from a change request.");

    // A direct edit of the space's content by Ada: one more commit, the revision's message.
    await commitDraftWork(editing, { userId: ada.userId, spaceId: space.id }, (draftId, caller) =>
      editing.updatePage({ caller, draftId, page: pageUpdate({ pageId: byTitle.API!.id, markdown: "Endpoints, edited directly.\n" }) }),
    );
    await eventually(async () => git.git(bare, "show", "refs/heads/main:reference/api.md").includes("Endpoints, edited directly."));
    expect(head()).toBe(`test edit|Ada Lovelace|${ada.email}|Imprint`);
    // Each head move exported once, never forced: the import's commit, then the merge's, then the edit's.
    expect(git.git(bare, "rev-parse", "refs/heads/main~2")).toBe(imported);
    await eventually(async () => (await connection(space.id)).body.lastSync?.state === "success");
    expect((await connection(space.id)).body.lastSync).toMatchObject({ direction: "export", commit: git.git(bare, "rev-parse", "refs/heads/main") });
  });

  it.each(["git", "imprint"] as const)(
    "both sides changed the same pages: priority %s wins in the space and the repository, the other side is kept as a change request; merging it applies it",
    async (priority) => {
      const name = newRepository(GITBOOK_LAYOUT);
      const bare = git.createRepository(name);
      const space = await createSpace(stack, org);
      const secret = (await connect(space.id, { url: git.url(name), ref: "main", priority })).body.webhook.secret as string;
      expect((await importRepo(space.id, { url: git.url(name), ref: "main" })).status).toBe(204);
      const byTitle = Object.fromEntries(flatten(await pagesOf(space.id)).map((page) => [page.title, page.id]));
      const texts = async (ref = "content") =>
        Object.fromEntries(
          await Promise.all(
            ["API", "Getting started", "Welcome"].map(async (title) => {
              const response = await call(stack, "GET", `/v1/spaces/${space.id}/${ref}/page/${byTitle[title]}?format=markdown`, { token: owner() });
              expect(response.status).toBe(200);
              return [title, response.body.markdown as string] as const;
            }),
          ),
        );

      // Git edits the API page and the welcome page and deletes the install page; Imprint edits the
      // API and install pages and Getting started. API (both edited) and Install (deleted and edited) conflict.
      const pushed = git.commit(
        name,
        {
          "reference/api.md": "# API\n\nEndpoints, as Git says.\n",
          "README.md": "# Welcome\n\nWelcome, from Git.\n",
          "getting-started/install.md": null,
          "SUMMARY.md": (GITBOOK_LAYOUT["SUMMARY.md"] as string).replace("  * [Install](getting-started/install.md)\n", ""),
        },
        { message: "Edit in Git" },
      );
      await commitDraftWork(editing, { userId: org.owner.userId, spaceId: space.id }, async (draftId, caller) => {
        await editing.updatePage({ caller, draftId, page: pageUpdate({ pageId: byTitle.API!, markdown: "Endpoints, as Imprint says.\n" }) });
        await editing.updatePage({ caller, draftId, page: pageUpdate({ pageId: byTitle["Getting started"]!, markdown: "First steps, from Imprint.\n" }) });
        await editing.updatePage({ caller, draftId, page: pageUpdate({ pageId: byTitle.Install!, markdown: "Install it, says Imprint.\n" }) });
      });
      const body = push("refs/heads/main", pushed);
      expect((await deliver(space.id, body, { "X-Hub-Signature-256": `sha256=${hmac(secret, body)}` })).body).toEqual({ queued: true });

      // The priority side's version in the space; what only one side changed, from that side.
      const [winner, loser] =
        priority === "git" ? ["Endpoints, as Git says.", "Endpoints, as Imprint says."] : ["Endpoints, as Imprint says.", "Endpoints, as Git says."];
      await eventually(async () => (await lastSync(space.id))?.commit === pushed);
      const content = await texts();
      expect(content.API).toContain(winner);
      expect(content["Getting started"]).toContain("First steps, from Imprint.");
      expect(content.Welcome).toContain("Welcome, from Git.");
      const hasInstall = async (ref = "content") => {
        const response = await call(stack, "GET", `/v1/spaces/${space.id}/${ref}/pages`, { token: owner() });
        return flatten(response.body.pages as RestPage[]).some((page) => page.id === byTitle.Install);
      };
      expect(await hasInstall()).toBe(priority === "imprint");

      // The other side's version, kept as a change request that changes only what conflicted.
      const kept = await eventually(async () => {
        const listed = await call(stack, "GET", `/v1/spaces/${space.id}/change-requests`, { token: owner() });
        const [found] = (listed.body.items as { id: string; subject: string; status: string }[]).filter((item) => item.subject.startsWith("Git Sync:"));
        return found;
      });
      expect(kept).toMatchObject({
        status: "open",
        subject: `Git Sync: ${priority === "git" ? "Imprint" : "the repository"}'s version of what conflicted with ${pushed.slice(0, 7)}`,
      });
      const inRequest = await texts(`change-requests/${kept.id}/content`);
      expect(inRequest.API).toContain(loser);
      expect(inRequest["Getting started"]).toBe(content["Getting started"]);
      expect(inRequest.Welcome).toBe(content.Welcome);
      expect(await hasInstall(`change-requests/${kept.id}/content`)).toBe(priority === "git");
      const changes = await call(stack, "GET", `/v1/spaces/${space.id}/change-requests/${kept.id}/changes`, { token: owner() });
      expect((changes.body.changes as { type: string; page?: { id: string } }[]).map((change) => `${change.type} ${change.page?.id}`).sort()).toEqual(
        [`page_edited ${byTitle.API}`, `${priority === "git" ? "page_created" : "page_deleted"} ${byTitle.Install}`].sort(),
      );

      // The repository follows the space, on top of the push (never forced).
      // (Getting started lost its only child on the Git side: with priority git it is a page file, no longer a folder.)
      await eventually(async () => git.git(bare, "grep", "-l", "--fixed-strings", "First steps, from Imprint.", "refs/heads/main") !== "");
      expect(git.git(bare, "show", "refs/heads/main:reference/api.md")).toContain(winner);
      expect(git.git(bare, "ls-tree", "--name-only", "refs/heads/main", "getting-started/").split("\n").includes("getting-started/install.md")).toBe(
        priority === "imprint",
      );
      expect(git.git(bare, "merge-base", "--is-ancestor", pushed, "refs/heads/main")).toBe("");

      // Merging the kept change request applies the other side's version, and exports it.
      expect((await call(stack, "POST", `/v1/spaces/${space.id}/change-requests/${kept.id}/merge`, { token: owner() })).status).toBe(200);
      expect((await texts()).API).toContain(loser);
      expect(await hasInstall()).toBe(priority === "git");
      await eventually(async () => git.git(bare, "show", "refs/heads/main:reference/api.md").includes(loser));
    },
  );
});

describe("credentials", () => {
  let secured: GitServer;
  const credentials = { user: "docs-bot", password: "s3cret-token-9f8e7d" };
  beforeAll(async () => {
    secured = await startGitServer({ auth: credentials });
  });
  afterAll(() => secured?.close());

  it("uses basic-auth credentials from the URL and never answers, stores or logs them", async () => {
    secured.createRepository("private");
    secured.commit("private", GITBOOK_LAYOUT);
    const space = await createSpace(stack, org);

    const refused = await importRepo(space.id, { url: secured.url("private"), ref: "main" });
    expect(refused.status).toBe(400);
    expect(refused.body.error.message).toMatch(/^url: .*credentials/);

    const withCredentials = secured.url("private", credentials);
    expect((await importRepo(space.id, { url: withCredentials, ref: "main" })).status).toBe(204);
    expect(secured.authorizations).toContain(`Basic ${Buffer.from(`${credentials.user}:${credentials.password}`).toString("base64")}`);
    expect((await exportRepo(space.id, { url: withCredentials, ref: "main", commitMessage: "Back" })).status).toBe(204);

    const info = await gitInfo(space.id);
    expect(info.body.url).toBe(secured.url("private"));
    const wrong = await importRepo(space.id, { url: secured.url("private", { user: credentials.user, password: "wrong-password" }), ref: "main" });
    expect(wrong.status).toBe(400);
    const everything = JSON.stringify([info.body, refused.body, wrong.body, await currentRevision(space.id), stack.gatewayLogs]);
    expect(everything).not.toContain(credentials.password);
    expect(everything).not.toContain("wrong-password");
  });
});

describe("limits and address checks", () => {
  let limited: TestStack;
  let closed: TestStack;
  beforeAll(async () => {
    limited = await startStack({
      contentEnv: {
        GIT_MAX_PAGES: "3",
        GIT_MAX_MARKDOWN_BYTES: "2000",
        GIT_MAX_FILE_BYTES: "1000",
        GIT_MAX_FILES: "100",
        GIT_MAX_REPOSITORY_BYTES: "50000",
        // Git Sync's poll and retries, fast.
        GIT_SYNC_POLL_INTERVAL_MS: "200",
        GIT_SYNC_RETRY_MS: "100",
        GIT_SYNC_MAX_ATTEMPTS: "3",
      },
    });
    closed = await startStack({ contentEnv: { IMPRINT_ALLOW_PRIVATE_FETCH: "false", GIT_BINARY: "/nonexistent/git" } });
  });
  afterAll(async () => {
    await limited?.stop();
    await closed?.stop();
  });

  it("Git Sync polls a connected repository without webhooks, and retries a failing import, whose failure shows as the last sync", async () => {
    const limitedOrg = await createOrganization(limited);
    const space = await createSpace(limited, limitedOrg);
    const name = newRepository({ "README.md": "# Polled\n\nFirst.\n" });
    const options = { token: limitedOrg.owner.token, notInOpenApi: EXTENSION };
    expect((await call(limited, "PUT", `/v1/spaces/${space.id}/git/sync`, { ...options, json: { url: git.url(name), ref: "main" } })).status).toBe(200);
    const lastSync = async () =>
      (await call(limited, "GET", `/v1/spaces/${space.id}/git/sync`, options)).body.lastSync as { state: string; commit?: string; error?: string } | undefined;
    const first = git.git(git.createRepository(name), "rev-parse", "refs/heads/main");
    await eventually(async () => (await lastSync())?.state === "success" && (await lastSync())?.commit === first);
    const pages = await call(limited, "GET", `/v1/spaces/${space.id}/content/pages`, { token: limitedOrg.owner.token });
    expect((pages.body.pages as RestPage[]).map((page) => page.title)).toEqual(["Polled"]);

    // Four pages where three are allowed: every attempt fails (413), retried with backoff; the failure is visible.
    const tooMany = git.commit(name, { "a.md": "# A\n", "b.md": "# B\n", "c.md": "# C\n" }, { message: "Too many pages" });
    const failed = await eventually(async () => {
      const sync = await lastSync();
      return sync?.state === "failure" ? sync : undefined;
    });
    expect(failed.error).toMatch(/GIT_MAX_PAGES/);
    expect(tooMany).not.toBe(first);

    // The next push that fits is imported.
    const fixed = git.commit(name, { "c.md": null }, { message: "Fewer pages" });
    await eventually(async () => (await lastSync())?.state === "success" && (await lastSync())?.commit === fixed);
  });

  it("a push during an export: the export never force-pushes; the push's commit stays, its import runs, and the export lands on top", async () => {
    const limitedOrg = await createOrganization(limited);
    const space = await createSpace(limited, limitedOrg);
    const name = newRepository({
      // Named as an export names them (the first page is not README.md), so the export keeps the files.
      ".gitbook.yaml": "root: ./\n\nstructure:\n  readme: welcome.md\n  summary: SUMMARY.md\n",
      "SUMMARY.md": "# Table of contents\n\n* [Welcome](welcome.md)\n* [Guide](guide.md)\n",
      "welcome.md": "# Welcome\n\nStart here.\n",
      "guide.md": "# Guide\n\nFirst steps.\n",
    });
    const bare = git.createRepository(name);
    const initial = git.git(bare, "rev-parse", "refs/heads/main");
    const options = { token: limitedOrg.owner.token, notInOpenApi: EXTENSION };
    const connected = await call(limited, "PUT", `/v1/spaces/${space.id}/git/sync`, { ...options, json: { url: git.url(name), ref: "main" } });
    const secret = connected.body.webhook.secret as string;
    const lastSync = async () =>
      (await call(limited, "GET", `/v1/spaces/${space.id}/git/sync`, options)).body.lastSync as { state: string; commit?: string } | undefined;
    await eventually(async () => (await lastSync())?.state === "success" && (await lastSync())?.commit === initial);
    const pages = async () =>
      flatten((await call(limited, "GET", `/v1/spaces/${space.id}/content/pages`, { token: limitedOrg.owner.token })).body.pages as RestPage[]);
    const guide = (await pages()).find((page) => page.title === "Guide")!;

    // A change request edits the guide; its merge queues an export, whose push is held once it has read and fetched the ref.
    const created = await call(limited, "POST", `/v1/spaces/${space.id}/change-requests`, {
      token: limitedOrg.owner.token,
      json: { subject: "Guide, from Imprint" },
    });
    const limitedEditing = editingClient(limited);
    try {
      await commitDraftWork(
        limitedEditing,
        { userId: limitedOrg.owner.userId, spaceId: space.id, changeRequestId: created.body.id as string },
        (draftId, caller) => limitedEditing.updatePage({ caller, draftId, page: pageUpdate({ pageId: guide.id, markdown: "Steps, merged in Imprint.\n" }) }),
      );
    } finally {
      limitedEditing.close();
    }
    const held = git.hold({ pushesOnly: true });
    let pushed: string;
    try {
      expect((await call(limited, "POST", `/v1/spaces/${space.id}/change-requests/${created.body.id}/merge`, { token: limitedOrg.owner.token })).status).toBe(
        200,
      );
      await held.reached;
      // Meanwhile someone pushes to the ref, and GitHub announces it.
      pushed = git.commit(name, { "welcome.md": "# Welcome\n\nStart here, pushed from Git.\n" }, { message: "Push during the export" });
      const body = JSON.stringify({ ref: "refs/heads/main", before: initial, after: pushed, repository: { full_name: "docs/repo" } });
      const delivered = await call(limited, "POST", `/v1/spaces/${space.id}/git/sync/webhook`, {
        rawBody: Buffer.from(body),
        headers: { "content-type": "application/json", "X-Hub-Signature-256": `sha256=${createHmac("sha256", secret).update(body).digest("hex")}` },
        notInOpenApi: EXTENSION,
      });
      expect(delivered.status).toBe(202);
    } finally {
      held.release();
    }

    // The held push is refused (never forced); the push's import merges into the space; the export is retried on top of it.
    await eventually(async () => git.git(bare, "show", "refs/heads/main:guide.md").includes("Steps, merged in Imprint."), 15_000);
    expect(git.git(bare, "rev-parse", "refs/heads/main~1")).toBe(pushed);
    expect(git.git(bare, "rev-parse", "refs/heads/main~2")).toBe(initial);
    expect(git.git(bare, "log", "-1", "--format=%cn", "refs/heads/main")).toBe("Imprint");
    expect(git.git(bare, "show", "refs/heads/main:welcome.md")).toContain("Start here, pushed from Git.");
    await eventually(async () => (await lastSync())?.state === "success" && (await lastSync())?.commit === git.git(bare, "rev-parse", "refs/heads/main"));
    const markdownOf = async (title: string) => {
      const page = (await pages()).find((candidate) => candidate.title === title)!;
      return (await call(limited, "GET", `/v1/spaces/${space.id}/content/page/${page.id}?format=markdown`, { token: limitedOrg.owner.token })).body
        .markdown as string;
    };
    expect(await markdownOf("Welcome")).toContain("Start here, pushed from Git.");
    expect(await markdownOf("Guide")).toContain("Steps, merged in Imprint.");
  });

  it("answers 413 naming the limit (pages, markdown size, file size) and writes nothing", async () => {
    const limitedOrg = await createOrganization(limited);
    const space = await createSpace(limited, limitedOrg);
    const post = (json: Record<string, unknown>) => call(limited, "POST", `/v1/spaces/${space.id}/git/import`, { token: limitedOrg.owner.token, json });

    const many = newRepository(GITBOOK_LAYOUT);
    const pages = await post({ url: git.url(many), ref: "main" });
    expect(pages.status).toBe(413);
    expect(pages.body.error.message).toContain("GIT_MAX_PAGES");

    const big = newRepository({ "README.md": `# Big\n\n${"x".repeat(3000)}\n` });
    const markdown = await post({ url: git.url(big), ref: "main" });
    expect(markdown.status).toBe(413);
    expect(markdown.body.error.message).toContain("GIT_MAX_MARKDOWN_BYTES");

    const heavy = newRepository({ "README.md": "# Heavy\n\n![x](.gitbook/assets/blob.bin)\n", ".gitbook/assets/blob.bin": Buffer.alloc(5000, 1) });
    const file = await post({ url: git.url(heavy), ref: "main" });
    expect(file.status).toBe(413);
    expect(file.body.error.message).toContain("GIT_MAX_FILE_BYTES");

    const content = await call(limited, "GET", `/v1/spaces/${space.id}/content/pages`, { token: limitedOrg.owner.token });
    expect(content.body.pages).toEqual([]);
  });

  it("refuses pack bombs with 413: a tree naming one subtree over and over, compressible blobs inflating past the repository bound", async () => {
    const limitedOrg = await createOrganization(limited);
    const space = await createSpace(limited, limitedOrg);
    const post = (name: string) =>
      call(limited, "POST", `/v1/spaces/${space.id}/git/import`, { token: limitedOrg.owner.token, json: { url: git.url(name), ref: "main" } });

    // 10 folders of 10 folders, 7 levels deep, of 10 pages: 10^8 paths listed from a few kilobytes of objects.
    const trees = `repo-${++repoCount}`;
    const bare = git.createRepository(trees);
    const identity = { GIT_CONFIG_NOSYSTEM: "1", GIT_CONFIG_GLOBAL: "/dev/null", GIT_AUTHOR_NAME: "Test", GIT_AUTHOR_EMAIL: "test@example.com" };
    const plumbing = (input: string | undefined, ...args: string[]) =>
      execFileSync("git", args, {
        cwd: bare,
        input,
        encoding: "utf8",
        env: { ...process.env, ...identity, GIT_COMMITTER_NAME: "Test", GIT_COMMITTER_EMAIL: "test@example.com" },
      }).trim();
    const blob = plumbing("# Page\n", "hash-object", "-w", "--stdin");
    let tree = plumbing(Array.from({ length: 10 }, (_, i) => `100644 blob ${blob}\tpage-${i}.md\n`).join(""), "mktree");
    for (let level = 0; level < 7; level += 1) tree = plumbing(Array.from({ length: 10 }, (_, i) => `040000 tree ${tree}\td${i}\n`).join(""), "mktree");
    plumbing(undefined, "update-ref", "refs/heads/main", plumbing(undefined, "commit-tree", tree, "-m", "Tree bomb"));
    const wide = await post(trees);
    expect([wide.status, wide.body.error.message]).toEqual([413, "repository: more than 100 files (GIT_MAX_FILES)"]);

    // 40 pages under the markdown bound each, 80 kB in all from a pack of a few kilobytes.
    const pages: Record<string, string> = { "README.md": "# Home\n" };
    for (let i = 0; i < 40; i += 1) pages[`page-${i}.md`] = `# Page ${i}\n\n${"x".repeat(1900)}\n`;
    const inflating = await post(newRepository(pages));
    expect([inflating.status, inflating.body.error.message]).toEqual([
      413,
      "repository: its files inflate past the limit of 50000 bytes (GIT_MAX_REPOSITORY_BYTES)",
    ]);

    const content = await call(limited, "GET", `/v1/spaces/${space.id}/content/pages`, { token: limitedOrg.owner.token });
    expect(content.body.pages).toEqual([]);
  });

  it("refuses private and loopback addresses (and plain http) when private fetches are not allowed", async () => {
    const closedOrg = await createOrganization(closed);
    const space = await createSpace(closed, closedOrg);
    const post = (url: string) => call(closed, "POST", `/v1/spaces/${space.id}/git/import`, { token: closedOrg.owner.token, json: { url, ref: "main" } });
    const port = new URL(git.origin).port;
    for (const url of [
      `https://127.0.0.1:${port}/repo-1.git`,
      `https://localhost:${port}/repo-1.git`,
      "https://10.0.0.1/repo.git",
      "https://[::1]/repo.git",
      "https://169.254.169.254/repo.git",
    ]) {
      const response = await post(url);
      expect(response.status).toBe(400);
      expect(response.body.error.message).toContain("IMPRINT_ALLOW_PRIVATE_FETCH");
    }
    const http = await post(git.url("repo-1"));
    expect(http.status).toBe(400);
    expect(http.body.error.message).toMatch(/^url: http is only allowed/);

    // A public address passes the check; this stack's git binary is missing: 503, never a 500.
    const missingGit = await post("https://1.1.1.1/repo.git");
    expect(missingGit.status).toBe(503);
    const info = await call(closed, "GET", `/v1/spaces/${space.id}/git/info`, { token: closedOrg.owner.token });
    expect(info.body.operation).toMatchObject({ state: "failure", error: expect.stringContaining("GIT_BINARY") });
  });
});
