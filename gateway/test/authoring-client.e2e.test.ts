import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { eventually } from "@imprint/runtime/testing";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import type { ChangeRequestContentChange } from "../../node_modules/@gitbook/api/dist/client.js";
import { createOrganization, createSpace, type TestOrganization } from "./support/factories.js";
import { startGitServer, type GitServer } from "./support/git-server.js";
import type { TestStack } from "./support/stack.js";
import { startStack } from "./support/stack.js";

/**
 * The authoring operations through GitBook's own client (`@gitbook/api`), as a script would call
 * them: every answer goes through the client's fetch, checked against GitBook's schema for the
 * operation (support/http.ts). The behaviour in detail is in each operation's own e2e file; this
 * proves the official client drives them as they are.
 */
let stack: TestStack;
let git: GitServer;
let site: Server;
let siteOrigin: string;
let org: TestOrganization;

const PAGES: Record<string, string> = {
  "/": '<main><h1>Handbook</h1><p>Read the <a href="/guide/">guide</a>.</p></main>',
  "/guide/": "<main><h1>Guide</h1><p>Write things down.</p></main>",
};

beforeAll(async () => {
  stack = await startStack();
  git = await startGitServer();
  site = createServer((request, response) => {
    const body = PAGES[new URL(request.url ?? "/", "http://site").pathname];
    response.writeHead(body ? 200 : 404, { "content-type": "text/html; charset=utf-8" });
    response.end(body ?? "");
  });
  await new Promise<void>((resolve) => site.listen(0, "127.0.0.1", resolve));
  siteOrigin = `http://127.0.0.1:${(site.address() as AddressInfo).port}`;
});
afterAll(async () => {
  site?.closeAllConnections();
  await new Promise((resolve) => site?.close(resolve));
  await git?.close();
  await stack?.stop();
});
beforeEach(async () => {
  org = await createOrganization(stack);
});

describe("change requests through @gitbook/api", () => {
  it("updateChangeRequestContent, getChangeRequestChanges and listChangeRequestsForOrganization", async () => {
    const api = org.owner.api;
    const space = await createSpace(stack, org);
    const { data: changeRequest } = await api.spaces.createChangeRequest(space.id, { subject: "Written by a script" });

    const changes = [
      { operation: "insert_page", ref: "intro", title: "Intro", document: { markdown: "Start with the [FAQ](./faq.md)." } },
      { operation: "insert_page", ref: "faq", title: "FAQ", document: { markdown: "---\ndescription: Questions\n---\nAsk away." } },
    ] as unknown as ChangeRequestContentChange[];
    const { data: updated } = await api.spaces.updateChangeRequestContent(space.id, changeRequest.id, { changes }, { compat: false });
    const created = (updated as unknown as { changes: { object: string; ref?: string; page: { id: string } }[] }).changes;
    expect(created.map((change) => [change.object, change.ref])).toEqual([
      ["created_page", "intro"],
      ["created_page", "faq"],
    ]);
    const compat = await api.spaces.updateChangeRequestContent(space.id, changeRequest.id, {
      changes: [{ operation: "update_page", page: created[1]!.page.id, title: "Frequent questions" }] as unknown as ChangeRequestContentChange[],
    });
    expect(compat.data).toMatchObject({ object: "change-request", id: changeRequest.id });

    const { data: semantic } = await api.spaces.getChangeRequestChanges(space.id, changeRequest.id, { limit: 10 });
    expect(semantic.changes.map((change) => [change.type, "page" in change ? change.page.title : undefined])).toEqual([
      ["page_created", "Frequent questions"],
      ["page_created", "Intro"],
    ]);

    const { data: listed } = await api.orgs.listChangeRequestsForOrganization(org.organizationId, {});
    expect(listed.items.map((item) => item.id)).toEqual([changeRequest.id]);
  });
});

describe("import runs through @gitbook/api", () => {
  it("startImportRun, getImportRun, listImportRuns and cancelImportRun", async () => {
    const api = org.owner.api;
    const space = await createSpace(stack, org);
    const { data: started } = await api.org.startImportRun(org.organizationId, {
      source: { type: "website", url: `${siteOrigin}/` },
      target: { space: space.id },
    });
    expect(started).toMatchObject({ target: { space: space.id } });
    const done = await eventually(async () => {
      const { data } = await api.org.getImportRun(org.organizationId, started.id);
      return data.status === "completed" || data.status === "failed" ? data : undefined;
    }, 30_000);
    expect(done.status).toBe("completed");
    const { data: pages } = await api.spaces.listPages(space.id);
    expect(pages.pages.map((page) => page.title).sort()).toEqual(["Guide", "Handbook"]);

    const { data: runs } = await api.org.listImportRuns(org.organizationId, { space: space.id });
    expect(runs.items.map((run) => run.id)).toEqual([started.id]);
    // A finished run cannot be cancelled: the client rejects with GitBook's 400.
    await expect(api.org.cancelImportRun(org.organizationId, started.id)).rejects.toMatchObject({ code: 400 });
  });
});

describe("Git sync through @gitbook/api", () => {
  it("importGitRepository, getSpaceGitInfo and exportToGitRepository", async () => {
    const api = org.owner.api;
    git.createRepository("client-docs");
    git.commit("client-docs", {
      "README.md": "# Welcome\n\nHello.\n",
      "SUMMARY.md": "# Table of contents\n\n* [Welcome](README.md)\n* [Setup](setup.md)\n",
      "setup.md": "# Setup\n\nInstall it.\n",
    });
    const space = await createSpace(stack, org);

    const imported = await api.spaces.importGitRepository(space.id, { url: git.url("client-docs"), ref: "refs/heads/main" });
    expect(imported.status).toBe(204);
    const { data: pages } = await api.spaces.listPages(space.id);
    expect(pages.pages.map((page) => page.title)).toEqual(["Welcome", "Setup"]);

    const { data: info } = await api.spaces.getSpaceGitInfo(space.id);
    expect(info).toMatchObject({ url: git.url("client-docs") });

    git.createRepository("client-export");
    const exported = await api.spaces.exportToGitRepository(space.id, {
      url: git.url("client-export"),
      ref: "refs/heads/main",
      commitMessage: "From the client",
    });
    expect(exported.status).toBe(204);
    const clone = git.clone("client-export");
    expect(git.git(clone, "log", "-1", "--format=%s")).toBe("From the client");
    expect(git.git(clone, "ls-files").split("\n").sort()).toEqual([".gitbook.yaml", "SUMMARY.md", "setup.md", "welcome.md"]);
  });
});
