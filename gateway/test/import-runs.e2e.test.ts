import { readFile } from "node:fs/promises";
import { createServer, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { extname, join, normalize } from "node:path";
import { fileURLToPath } from "node:url";
import { eventually } from "@imprint/runtime/testing";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { createMember, createOrganization, createSpace, type TestOrganization } from "./support/factories.js";
import { call, type CallResult } from "./support/http.js";
import { startStack, type TestStack } from "./support/stack.js";

/** The content service's fixture site (docs/ with five pages and two images). */
const SITE_ROOT = fileURLToPath(new URL("../../services/content/test/fixtures/site/public", import.meta.url));
const TYPES: Record<string, string> = { ".html": "text/html; charset=utf-8", ".png": "image/png" };
const NOT_IN_OPENAPI = { notInOpenApi: "importContent exists in GitBook's API 0.143.2 only" };

/** Requests to a gated path wait until the test opens its gate. */
class Gate {
  private release: () => void = () => {};
  readonly opened: Promise<void> = new Promise((resolve) => (this.release = resolve));
  open(): void {
    this.release();
  }
}

interface Site {
  origin: string;
  requests: string[];
  server: Server;
  /** Gates by path: the response waits for the gate, then serves `body`. */
  gates: Map<string, { gate: Gate; type: string; body: string | Buffer }>;
}

function html(title: string, body: string): string {
  return `<!doctype html><html><head><title>${title}</title></head><body><main><h1>${title}</h1>${body}</main></body></html>`;
}

/** Static loopback server for the fixture site, plus gated paths (the stack's content service allows private fetches). */
async function serveSite(): Promise<Site> {
  const requests: string[] = [];
  const gates: Site["gates"] = new Map();
  const send = (response: ServerResponse, type: string, body: string | Buffer) => {
    response.writeHead(200, { "content-type": type });
    response.end(body);
  };
  const server = createServer((request, response) => {
    const path = new URL(request.url ?? "/", "http://site").pathname;
    requests.push(path);
    const gated = gates.get(path);
    if (gated) {
      void gated.gate.opened.then(() => send(response, gated.type, gated.body));
      return;
    }
    const file = join(SITE_ROOT, normalize(path).replace(/^(\.\.[/\\])+/, ""), path.endsWith("/") ? "index.html" : "");
    readFile(file).then(
      (body) => send(response, TYPES[extname(file)] ?? "application/octet-stream", body),
      () => {
        response.writeHead(404);
        response.end();
      },
    );
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return { origin: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, requests, server, gates };
}

interface RestPage {
  id: string;
  title: string;
  path: string;
  pages: RestPage[];
}

interface RestRun {
  id: string;
  status: string;
  reason?: string;
  startedAt?: string;
  completedAt?: string;
  target: { space: string; changeRequest?: string; page?: string };
  pages: { id: string; sourceURL: string; type: string; status: string }[];
  progress: { pagesFetched: number; pagesFailed: number; filesFetched: number; importedResources: number; totalResources: number; revision?: string };
}

let stack: TestStack;
let site: Site;
let org: TestOrganization;

beforeAll(async () => {
  stack = await startStack();
  site = await serveSite();
});
afterAll(async () => {
  for (const { gate } of site?.gates.values() ?? []) gate.open();
  site?.server.closeAllConnections();
  await new Promise((resolve) => site?.server.close(resolve));
  await stack?.stop();
});
beforeEach(async () => {
  org = await createOrganization(stack);
});

const owner = () => org.owner.token;
const runsPath = (organizationId = org.organizationId) => `/v1/org/${organizationId}/imports`;
const website = (path: string) => ({ type: "website", url: `${site.origin}${path}` });

const startRun = (json: unknown, token = owner(), organizationId = org.organizationId) => call(stack, "POST", runsPath(organizationId), { token, json });
const getRun = (id: string, token = owner()) => call(stack, "GET", `${runsPath()}/${id}`, { token });
const cancelRun = (id: string, token = owner()) => call(stack, "POST", `${runsPath()}/${id}/cancel`, { token });

/** The run once its status is `status` (every answer on the way validated against GitBook's schema). */
async function runWhen(id: string, status: string | ((run: RestRun) => boolean), timeoutMs = 30_000): Promise<RestRun> {
  const matches = typeof status === "string" ? (run: RestRun) => run.status === status : status;
  return eventually(
    async () => {
      const response = await getRun(id);
      expect(response.status).toBe(200);
      const run = response.body as RestRun;
      return matches(run) ? run : undefined;
    },
    timeoutMs,
    100,
  );
}

function flatten(pages: readonly RestPage[]): RestPage[] {
  return pages.flatMap((page) => [page, ...flatten(page.pages ?? [])]);
}

async function pagesOf(path: string): Promise<RestPage[]> {
  const response = await call(stack, "GET", `${path}/pages`, { token: owner() });
  expect(response.status).toBe(200);
  return response.body.pages as RestPage[];
}

function expectStarted(response: CallResult): RestRun {
  expect(response.status).toBe(201);
  const run = response.body as RestRun;
  expect(response.headers.get("location")).toBe(`${stack.baseUrl}${runsPath()}/${run.id}`);
  return run;
}

describe("POST /v1/org/{organizationId}/imports (startImportRun) and GET …/{importRunId}", () => {
  it("answers at once with the pending run, which then imports the site into the space, with its counts", async () => {
    const space = await createSpace(stack, org);
    const started = expectStarted(await startRun({ source: website("/docs/"), target: { space: space.id } }));
    expect(started).toMatchObject({
      object: "import-run",
      status: "pending",
      source: { type: "website", url: `${site.origin}/docs/` },
      target: { space: space.id },
      createdBy: org.owner.userId,
      urls: { location: `${stack.baseUrl}${runsPath()}/${started.id}` },
      pages: [],
    });
    expect(started.completedAt).toBeUndefined();

    const done = await runWhen(started.id, (run) => run.status !== "pending" && run.status !== "in-progress");
    expect(done.status).toBe("completed");
    expect(done.startedAt).toEqual(expect.any(String));
    expect(done.completedAt).toEqual(expect.any(String));
    expect(done.progress).toMatchObject({ pagesFetched: 5, pagesFailed: 0, filesFetched: 2, importedResources: 7, totalResources: 7 });
    expect(done.pages).toHaveLength(5);
    expect(done.pages.every((page) => page.status === "complete" && page.type === "page")).toBe(true);
    expect(done.pages.map((page) => page.sourceURL)).toContain(`${site.origin}/docs/guide/install.html`);

    // The space's current revision is the run's, with the pages the run lists.
    const content = await call(stack, "GET", `/v1/spaces/${space.id}/content`, { token: owner() });
    expect(content.body.id).toBe(done.progress.revision);
    const pages = flatten(await pagesOf(`/v1/spaces/${space.id}/content`));
    expect(pages.map((page) => page.id).sort()).toEqual(done.pages.map((page) => page.id).sort());
    expect(pages.map((page) => page.path)).toContain("guide/install");
  });

  it("imports into a change request, leaving the space's content as it was", async () => {
    const space = await createSpace(stack, org);
    const spaceRevision = (await call(stack, "GET", `/v1/spaces/${space.id}/content`, { token: owner() })).body.id as string;
    const changeRequest = await call(stack, "POST", `/v1/spaces/${space.id}/change-requests`, { token: owner(), json: { subject: "Import the guide" } });
    expect(changeRequest.status).toBe(201);
    const changeRequestId = changeRequest.body.id as string;

    const started = expectStarted(await startRun({ source: website("/docs/guide/"), target: { space: space.id, changeRequest: changeRequestId } }));
    expect(started.target).toEqual({ space: space.id, changeRequest: changeRequestId });
    const done = await runWhen(started.id, "completed");
    expect(done.progress).toMatchObject({ pagesFetched: 3, importedResources: 5, totalResources: 5 });

    const afterImport = await call(stack, "GET", `/v1/spaces/${space.id}/change-requests/${changeRequestId}`, { token: owner() });
    expect(afterImport.body.revision).toBe(done.progress.revision);
    const tree = await pagesOf(`/v1/spaces/${space.id}/change-requests/${changeRequestId}/content`);
    expect(flatten(tree).map((page) => page.path)).toEqual(["guide", "install", "configure"]);
    const spaceContent = await call(stack, "GET", `/v1/spaces/${space.id}/content`, { token: owner() });
    expect(spaceContent.body).toMatchObject({ id: spaceRevision, pages: [] });

    // A change request named by its number is stored by id.
    const byNumber = expectStarted(
      await startRun({ source: website("/docs/api/reference.html"), target: { space: space.id, changeRequest: String(changeRequest.body.number) } }),
    );
    expect(byNumber.target.changeRequest).toBe(changeRequestId);
    await runWhen(byNumber.id, "completed");
  });

  it("imports under a page", async () => {
    const space = await createSpace(stack, org);
    const first = await runWhen(expectStarted(await startRun({ source: website("/docs/api/reference.html"), target: { space: space.id } })).id, "completed");
    const reference = (await pagesOf(`/v1/spaces/${space.id}/content`))[0]!;
    expect(first.pages.map((page) => page.id)).toEqual([reference.id]);

    const started = expectStarted(await startRun({ source: website("/docs/guide/"), target: { space: space.id, page: reference.id } }));
    expect(started.target).toEqual({ space: space.id, page: reference.id });
    await runWhen(started.id, "completed");
    const tree = await pagesOf(`/v1/spaces/${space.id}/content`);
    expect(tree.map((page) => page.path)).toEqual(["reference"]);
    expect(tree[0]!.pages.map((page) => page.path)).toEqual(["reference/guide", "reference/install", "reference/configure"]);
  });

  it("fails a run whose source cannot be fetched, with the reason, writing nothing", async () => {
    const space = await createSpace(stack, org);
    const revision = (await call(stack, "GET", `/v1/spaces/${space.id}/content`, { token: owner() })).body.id as string;
    const notFound = await runWhen(expectStarted(await startRun({ source: website("/nothing-here/"), target: { space: space.id } })).id, "failed");
    expect(notFound.reason).toBe("url: could not be fetched (HTTP 404)");
    expect(notFound.completedAt).toBeUndefined();
    expect(notFound.pages).toEqual([]);
    const refused = await runWhen(
      expectStarted(await startRun({ source: { type: "website", url: "http://127.0.0.1:1/docs/" }, target: { space: space.id } })).id,
      "failed",
    );
    expect(refused.reason).toBe("url: could not be fetched (connection refused)");
    expect((await call(stack, "GET", `/v1/spaces/${space.id}/content`, { token: owner() })).body.id).toBe(revision);
  });

  it("answers 400 naming the field for other sources, a missing or bad URL, a site, a missing target; 412 for a merged change request", async () => {
    const space = await createSpace(stack, org);
    const file = await startRun({ source: { type: "file", files: ["a.md"] }, target: { space: space.id } });
    expect(file.status).toBe(400);
    expect(file.body.error.message).toBe('source.type: must be "website" (the only supported import source), got "file"');
    const missing = await startRun({ source: { type: "website" }, target: { space: space.id } });
    expect(missing.status).toBe(400);
    expect(missing.body.error.message).toBe("source.url: is required");
    const ftp = await startRun({ source: { type: "website", url: "ftp://example.com/" }, target: { space: space.id } });
    expect(ftp.status).toBe(400);
    expect(ftp.body.error.message).toMatch(/^source\.url: /);
    const withSite = await startRun({ source: website("/docs/"), target: { space: space.id }, site: "site_123" });
    expect(withSite.status).toBe(400);
    expect(withSite.body.error.message).toBe("site: import runs into a site are not supported; leave it out");
    const noTarget = await startRun({ source: website("/docs/") });
    expect(noTarget.status).toBe(400);
    expect(noTarget.body.error.message).toBe("target: is required");
    // A merged change request takes no more imports.
    const changeRequest = await call(stack, "POST", `/v1/spaces/${space.id}/change-requests`, { token: owner(), json: { subject: "Merged" } });
    const merged = await call(stack, "POST", `/v1/spaces/${space.id}/change-requests/${changeRequest.body.id as string}/merge`, { token: owner() });
    expect(merged.status).toBe(200);
    const intoMerged = await startRun({ source: website("/docs/"), target: { space: space.id, changeRequest: changeRequest.body.id } });
    expect(intoMerged.status).toBe(412);
    expect(intoMerged.body.error.message).toBe("target.changeRequest: the change request is merged");
    // `enhance` (GitBook's AI rewrite) is accepted and has no effect.
    const enhanced = expectStarted(await startRun({ source: website("/docs/api/reference.html"), target: { space: space.id }, enhance: true }));
    await runWhen(enhanced.id, "completed");
  });

  it("isolates organizations (404) and needs edit rights on the space (403 for a reader), fetching nothing", async () => {
    const space = await createSpace(stack, org);
    const other = await createOrganization(stack);
    const otherSpace = await createSpace(stack, other);
    const reader = await createMember(stack, org, { role: "read" });
    const before = site.requests.length;
    const json = { source: website("/docs/"), target: { space: space.id } };

    const foreignOrg = await startRun(json, other.owner.token);
    expect(foreignOrg.status).toBe(404);
    expect(foreignOrg.body.error.message).toBe("Organization not found");
    // Another organization's space, named under this organization (the caller belongs to both).
    const member = await createMember(stack, other, { role: "admin", email: org.owner.email });
    const crossed = await startRun({ source: website("/docs/"), target: { space: otherSpace.id } }, member.token);
    expect(crossed.status).toBe(404);
    const unknownPage = await startRun({ source: website("/docs/"), target: { space: space.id, page: "NoSuchPage" } });
    expect(unknownPage.status).toBe(404);
    expect(unknownPage.body.error.message).toBe("Page not found");
    const unknownChangeRequest = await startRun({ source: website("/docs/"), target: { space: space.id, changeRequest: "999" } });
    expect(unknownChangeRequest.status).toBe(404);

    const denied = await startRun(json, reader.token);
    expect(denied.status).toBe(403);
    expect((await call(stack, "POST", runsPath(), { json })).status).toBe(401);

    expect(site.requests.length).toBe(before);

    // A run is visible to readers of its space and to no other organization.
    const run = expectStarted(await startRun(json));
    expect((await getRun(run.id, reader.token)).status).toBe(200);
    const foreign = await call(stack, "GET", `${runsPath()}/${run.id}`, { token: other.owner.token });
    expect(foreign.status).toBe(404);
    const crossedGet = await call(stack, "GET", `${runsPath(other.organizationId)}/${run.id}`, { token: member.token });
    expect(crossedGet.status).toBe(404);
    expect(crossedGet.body.error.message).toBe("Import run not found");
    expect((await getRun("00000000-0000-4000-8000-000000000000")).status).toBe(404);
    expect((await cancelRun(run.id, reader.token)).status).toBe(403);
    expect((await call(stack, "POST", `${runsPath()}/${run.id}/cancel`, { token: other.owner.token })).status).toBe(404);
    await runWhen(run.id, "completed");
  });
});

describe("POST /v1/org/{organizationId}/imports/{importRunId}/cancel (cancelImportRun)", () => {
  it("cancels a queued run (it never starts) and a running one (it stops and writes nothing); a finished run answers 400", async () => {
    const space = await createSpace(stack, org);
    const revision = (await call(stack, "GET", `/v1/spaces/${space.id}/content`, { token: owner() })).body.id as string;
    // Run A waits on an image after fetching its two pages; run B on its start page: both slots of the job are busy.
    const imageGate = new Gate();
    const holdGate = new Gate();
    const open = new Gate();
    open.open();
    const logo = await readFile(join(SITE_ROOT, "docs/images/logo.png"));
    site.gates.set("/stall/", {
      gate: open,
      type: "text/html; charset=utf-8",
      body: html("Stalled", '<p><a href="/stall/more.html">More</a> <img src="/stall/slow.png" alt="slow"></p>'),
    });
    site.gates.set("/stall/more.html", { gate: open, type: "text/html; charset=utf-8", body: html("More", "<p>More.</p>") });
    site.gates.set("/stall/slow.png", { gate: imageGate, type: "image/png", body: logo });
    site.gates.set("/hold/", { gate: holdGate, type: "text/html; charset=utf-8", body: html("Held", "<p>Held back.</p>") });

    const runA = expectStarted(await startRun({ source: website("/stall/"), target: { space: space.id } }));
    const runB = expectStarted(await startRun({ source: website("/hold/"), target: { space: space.id } }));
    const inProgressA = await runWhen(runA.id, (run) => run.status === "in-progress" && run.progress.pagesFetched === 2);
    expect(inProgressA.startedAt).toEqual(expect.any(String));
    await runWhen(runB.id, "in-progress");

    const runC = expectStarted(await startRun({ source: website("/queued/"), target: { space: space.id } }));
    const cancelledC = await cancelRun(runC.id);
    expect(cancelledC.status).toBe(200);
    expect(cancelledC.body).toMatchObject({ id: runC.id, status: "cancelled" });
    expect(cancelledC.body.startedAt).toBeUndefined();

    const cancelledA = await cancelRun(runA.id);
    expect(cancelledA.status).toBe(200);
    expect(cancelledA.body.status).toBe("cancelled");
    // A finished run cannot be cancelled again.
    const again = await cancelRun(runA.id);
    expect(again.status).toBe(400);
    expect(again.body.error.message).toBe("importRunId: the import run is already cancelled; only pending or in-progress runs can be cancelled");

    // A's worker stops at its next checkpoint: its slot frees while B still holds the other, so a new run starts.
    const runD = expectStarted(await startRun({ source: website("/docs/api/reference.html"), target: { space: space.id } }));
    const doneD = await runWhen(runD.id, "completed");
    imageGate.open();
    holdGate.open();
    const doneB = await runWhen(runB.id, "completed");

    // A wrote nothing, C never fetched anything; the space holds B's and D's pages only.
    expect((await getRun(runA.id)).body).toMatchObject({ status: "cancelled", pages: [] });
    expect((await getRun(runC.id)).body).toMatchObject({ status: "cancelled", progress: { pagesFetched: 0 } });
    expect(site.requests).not.toContain("/queued/");
    const titles = flatten(await pagesOf(`/v1/spaces/${space.id}/content`))
      .map((page) => page.title)
      .sort();
    expect(titles).toEqual(["API reference", "Held"]);
    expect(doneD.progress.revision).not.toBe(revision);

    const finished = await cancelRun(doneB.id);
    expect(finished.status).toBe(400);
    expect(finished.body.error.message).toBe("importRunId: the import run is already completed; only pending or in-progress runs can be cancelled");
    expect((await getRun(doneB.id)).body.status).toBe("completed");
  });
});

describe("GET /v1/org/{organizationId}/imports (listImportRuns)", () => {
  it("pages the organization's runs, most recent first, with signed cursors, and filters by space, change request and status", async () => {
    const first = await createSpace(stack, org);
    const second = await createSpace(stack, org);
    const changeRequest = await call(stack, "POST", `/v1/spaces/${second.id}/change-requests`, { token: owner(), json: { subject: "Imports" } });
    const ids: string[] = [];
    for (const [space, path, changeRequestId] of [
      [first.id, "/nothing-here/", undefined],
      [first.id, "/docs/api/reference.html", undefined],
      [second.id, "/docs/api/reference.html", changeRequest.body.id as string],
    ] as const) {
      const run = expectStarted(await startRun({ source: website(path), target: { space, ...(changeRequestId ? { changeRequest: changeRequestId } : {}) } }));
      await runWhen(run.id, (current) => current.status === "completed" || current.status === "failed");
      ids.push(run.id);
    }

    const page1 = await call(stack, "GET", `${runsPath()}?limit=2`, { token: owner() });
    expect(page1.status).toBe(200);
    expect(page1.body.count).toBe(3);
    expect(page1.body.items.map((run: RestRun) => run.id)).toEqual([ids[2], ids[1]]);
    const page2 = await call(stack, "GET", `${runsPath()}?limit=2&page=${encodeURIComponent(page1.body.next.page as string)}`, { token: owner() });
    expect(page2.status).toBe(200);
    expect(page2.body.items.map((run: RestRun) => run.id)).toEqual([ids[0]]);
    expect(page2.body.next).toBeUndefined();
    const forged = await call(stack, "GET", `${runsPath()}?page=${encodeURIComponent(`${(page1.body.next.page as string).split(".")[0]}.${"x".repeat(43)}`)}`, {
      token: owner(),
    });
    expect(forged.status).toBe(400);
    expect(forged.body.error.message).toBe("page: not a valid page token for this list");

    const list = async (query: string) => {
      const response = await call(stack, "GET", `${runsPath()}?${query}`, { token: owner() });
      expect(response.status).toBe(200);
      return (response.body.items as RestRun[]).map((run) => run.id);
    };
    expect(await list(`space=${first.id}`)).toEqual([ids[1], ids[0]]);
    expect(await list(`changeRequest=${changeRequest.body.id as string}`)).toEqual([ids[2]]);
    expect(await list("status=failed")).toEqual([ids[0]]);
    expect(await list("status=completed")).toEqual([ids[2], ids[1]]);
    expect(await list("status=active")).toEqual([]);
    expect(await list("space=not-a-space")).toEqual([]);

    const badStatus = await call(stack, "GET", `${runsPath()}?status=running`, { token: owner() });
    expect(badStatus.status).toBe(400);
    expect(badStatus.body.error.message).toMatch(/^status: /);
    const bySite = await call(stack, "GET", `${runsPath()}?site=site_1`, { token: owner() });
    expect(bySite.status).toBe(400);
    expect(bySite.body.error.message).toBe("site: import runs into a site are not supported; leave it out");

    // Other organizations see none of it.
    const other = await createOrganization(stack);
    expect((await call(stack, "GET", runsPath(), { token: other.owner.token })).status).toBe(404);
    const own = await call(stack, "GET", runsPath(other.organizationId), { token: other.owner.token });
    expect(own.body).toMatchObject({ items: [], count: 0 });
  });

  it("shows a member only the runs of spaces they can see", async () => {
    const open = await createSpace(stack, org);
    const hidden = await createSpace(stack, org);
    // No default level: members other than admins do not see the space.
    const restricted = await call(stack, "PATCH", `/v1/spaces/${hidden.id}`, { token: owner(), json: { defaultLevel: null } });
    expect(restricted.status).toBe(200);
    const reader = await createMember(stack, org, { role: "read" });
    const openRun = expectStarted(await startRun({ source: website("/nothing-here/"), target: { space: open.id } }));
    const hiddenRun = expectStarted(await startRun({ source: website("/nothing-here/"), target: { space: hidden.id } }));
    await runWhen(hiddenRun.id, "failed");

    const seen = await call(stack, "GET", runsPath(), { token: reader.token });
    expect(seen.status).toBe(200);
    expect((seen.body.items as RestRun[]).map((run) => run.id)).toEqual([openRun.id]);
    expect(seen.body.count).toBe(1);
    expect((await getRun(hiddenRun.id, reader.token)).status).toBe(404);
    expect((await getRun(openRun.id, reader.token)).status).toBe(200);
    const all = await call(stack, "GET", runsPath(), { token: owner() });
    expect(all.body.count).toBe(2);
  });
});

describe("the synchronous import next to the runs", () => {
  it("still imports at once (POST …/content/import) and lists no run", async () => {
    const space = await createSpace(stack, org);
    const response = await call(stack, "POST", `/v1/spaces/${space.id}/content/import`, {
      token: owner(),
      json: { url: `${site.origin}/docs/`, source: "website" },
      ...NOT_IN_OPENAPI,
    });
    expect(response.status).toBe(201);
    expect(response.body).toEqual({ revision: expect.any(String), importedResources: 7, totalResources: 7 });
    const runs = await call(stack, "GET", runsPath(), { token: owner() });
    expect(runs.body).toMatchObject({ items: [], count: 0 });
  });
});
