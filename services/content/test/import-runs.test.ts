import { spawn, type ChildProcess } from "node:child_process";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { ImportRunStatus, ImportServiceService } from "@imprint/proto/content/v1/import";
import { RevisionServiceService, type Page } from "@imprint/proto/content/v1/revisions";
import { loadIdentityConfig, startIdentityService } from "@imprint/identity";
import type { PromiseClient } from "@imprint/runtime";
import { getFreePort } from "@imprint/runtime/infrastructure";
import {
  createOrganization,
  createSpace,
  createTestDatabase,
  errorCode,
  eventually,
  serviceClients,
  startServices,
  TEST_SERVICE_ENV,
  testClient,
  testNatsUrl,
  TestClock,
  type TestServices,
} from "@imprint/runtime/testing";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { loadContentConfig } from "../src/config.js";
import { startContentService } from "../src/service.js";
import { serveSite, type TestSite } from "./fixtures/site/server.js";

/**
 * Import runs survive their worker: a content process executing a run is killed (SIGKILL, no
 * chance to hand the run back), and another instance on the same database takes the run over
 * once its claim ran out (the second instance's clock moved past the lease) and completes it,
 * writing the content once; an instance that stops hands its run back, and another completes it.
 */

const MAIN = fileURLToPath(new URL("../dist/main.js", import.meta.url));

let identity: TestServices;
const replicas: TestServices[] = [];
const workers: ChildProcess[] = [];
const dataDirs: string[] = [];
let site: TestSite;
let releaseStart: () => void = () => {};
const startGate = new Promise<void>((resolve) => (releaseStart = resolve));
let releaseHandedBack: () => void = () => {};
const handedBackGate = new Promise<void>((resolve) => (releaseHandedBack = resolve));
const clock = new TestClock();

beforeAll(async () => {
  site = await serveSite({
    // The start page of the crashed run: held until the test lets it through.
    "/held/": async (_request, response) => {
      await startGate;
      response.writeHead(200, { "content-type": "text/html; charset=utf-8" });
      response.end(
        `<!doctype html><html><head><title>Held page</title></head><body><main><h1>Held page</h1><p>Back <a href="/held/next.html">next</a>.</p></main></body></html>`,
      );
    },
    // The start page of the run handed back by a stopping instance.
    "/handed/": async (_request, response) => {
      await handedBackGate;
      response.writeHead(200, { "content-type": "text/html; charset=utf-8" });
      response.end(`<!doctype html><html><head><title>Handed page</title></head><body><main><h1>Handed page</h1></main></body></html>`);
    },
    // Never answers (the run of a worker that will be killed).
    "/stuck/": () => new Promise<void>(() => {}),
    "/held/next.html": (_request, response) => {
      response.writeHead(200, { "content-type": "text/html; charset=utf-8" });
      response.end(`<!doctype html><html><head><title>Next page</title></head><body><main><h1>Next page</h1></main></body></html>`);
    },
  });
  identity = await startServices([{ name: "identity", config: loadIdentityConfig, start: startIdentityService }]);
});

afterAll(async () => {
  for (const worker of workers) worker.kill("SIGKILL");
  releaseStart();
  releaseHandedBack();
  for (const replica of replicas) await replica.stop();
  await identity?.stop();
  await site?.close();
  for (const dir of dataDirs) await rm(dir, { recursive: true, force: true });
});

/** The content service as its own process (dist/main.js), on `databaseUrl`; resolves once it answers gRPC. */
async function startWorkerProcess(databaseUrl: string): Promise<{ process: ChildProcess; address: string }> {
  const port = await getFreePort();
  const dataDir = await mkdtemp(join(tmpdir(), "imprint-content-worker-"));
  dataDirs.push(dataDir);
  const child = spawn(process.execPath, [MAIN], {
    env: {
      ...process.env,
      ...TEST_SERVICE_ENV,
      GRPC_PORT: String(port),
      NATS_URL: await testNatsUrl(),
      DATABASE_URL: databaseUrl,
      IMPRINT_DATA_DIR: dataDir,
      IDENTITY_GRPC_ADDRESS: identity.address("identity"),
      IMPRINT_ALLOW_PRIVATE_FETCH: "true",
    },
    stdio: ["ignore", "ignore", "inherit"],
  });
  workers.push(child);
  const address = `127.0.0.1:${port}`;
  const probe = testClient(RevisionServiceService, address, { defaultTimeoutMs: 2_000 });
  try {
    // Any answer from the service (here: unauthenticated) means it is up.
    await eventually(
      async () => (await errorCode(probe.getRevision({ caller: undefined, ref: undefined, options: undefined }))) === "unauthenticated",
      30_000,
      100,
    );
  } finally {
    probe.close();
  }
  return { process: child, address };
}

function titles(pages: readonly Page[]): string[] {
  return pages.flatMap((page) => [page.title, ...titles(page.pages)]);
}

describe("import runs across instances", () => {
  it("a run whose process crashed is taken over by another instance once its claim runs out, and written once", async () => {
    const databaseUrl = await createTestDatabase(inject("pgAdminUrl"), "content");
    // The worker process starts first: it takes the job leases (import-runs among them).
    const worker = (await startWorkerProcess(databaseUrl)).process;
    const replica = await startServices([
      {
        name: "content",
        config: loadContentConfig,
        start: startContentService,
        clock: clock.now,
        database: databaseUrl,
        env: { IDENTITY_GRPC_ADDRESS: identity.address("identity"), IMPRINT_ALLOW_PRIVATE_FETCH: "true" },
      },
    ]);
    replicas.push(replica);
    const clients = serviceClients((name) => (name === "identity" ? identity.address("identity") : replica.address("content")));
    const imports: PromiseClient<typeof ImportServiceService> = testClient(ImportServiceService, replica.address("content"));
    const revisions = testClient(RevisionServiceService, replica.address("content"));
    try {
      const organization = await createOrganization(clients);
      const space = await createSpace(clients, organization);
      const caller = organization.owner.caller;

      // Started through the replica; the worker process (which holds the job) claims it and waits on the site.
      const { run } = await imports.startImportRun({
        caller,
        organizationId: organization.organizationId,
        spaceId: space.id,
        changeRequestId: "",
        underPageId: "",
        source: "website",
        url: `${site.origin}/held/`,
      });
      expect(run?.status).toBe(ImportRunStatus.IMPORT_RUN_STATUS_PENDING);
      const get = () => imports.getImportRun({ caller, organizationId: organization.organizationId, importRunId: run!.id });
      await eventually(async () => (await get()).run?.status === ImportRunStatus.IMPORT_RUN_STATUS_IN_PROGRESS && site.requests.includes("/held/"), 30_000, 50);

      // The worker dies without handing the run back: it stays in progress under a claim nobody renews.
      worker.kill("SIGKILL");
      await new Promise((resolve) => worker.once("exit", resolve));
      expect((await get()).run?.status).toBe(ImportRunStatus.IMPORT_RUN_STATUS_IN_PROGRESS);
      releaseStart();

      // Past the run's lease (and the job's) on the replica's clock: the replica takes the job and the run over.
      clock.advance(10 * 60_000);
      const done = await eventually(
        async () => {
          const current = (await get()).run;
          return current && current.status !== ImportRunStatus.IMPORT_RUN_STATUS_IN_PROGRESS ? current : undefined;
        },
        60_000,
        100,
      );
      expect(done).toMatchObject({ status: ImportRunStatus.IMPORT_RUN_STATUS_COMPLETED, pagesFetched: 2, importedResources: 2, totalResources: 2 });
      expect(done.pages.map((page) => page.complete)).toEqual([true, true]);
      // The start page was fetched by both attempts; the content was written once.
      expect(site.requests.filter((path) => path === "/held/").length).toBe(2);
      const content = await revisions.getRevision({
        caller,
        ref: { spaceId: space.id, changeRequestId: "", revisionId: "" },
        options: { metadata: false, computed: false },
      });
      expect(content.revision?.id).toBe(done.revisionId);
      expect(titles(content.revision?.pages ?? [])).toEqual(["Held page", "Next page"]);
    } finally {
      imports.close();
      revisions.close();
      clients.close();
    }
  });

  it("a stopping instance hands its run back, and another instance completes it", async () => {
    const databaseUrl = await createTestDatabase(inject("pgAdminUrl"), "content");
    const instance = (env: Record<string, string> = {}) => ({
      name: "content",
      config: loadContentConfig,
      start: startContentService,
      clock: clock.now,
      database: databaseUrl,
      env: { IDENTITY_GRPC_ADDRESS: identity.address("identity"), IMPRINT_ALLOW_PRIVATE_FETCH: "true", ...env },
    });
    // The first instance takes the job leases; the second starts next to it.
    const first = await startServices([instance()]);
    const second = await startServices([instance()]);
    const clients = serviceClients((name) => (name === "identity" ? identity.address("identity") : second.address("content")));
    const imports = testClient(ImportServiceService, second.address("content"));
    const revisions = testClient(RevisionServiceService, second.address("content"));
    try {
      const organization = await createOrganization(clients);
      const space = await createSpace(clients, organization);
      const caller = organization.owner.caller;
      const { run } = await imports.startImportRun({
        caller,
        organizationId: organization.organizationId,
        spaceId: space.id,
        changeRequestId: "",
        underPageId: "",
        source: "website",
        url: `${site.origin}/handed/`,
      });
      const get = () => imports.getImportRun({ caller, organizationId: organization.organizationId, importRunId: run!.id });
      await eventually(
        async () => (await get()).run?.status === ImportRunStatus.IMPORT_RUN_STATUS_IN_PROGRESS && site.requests.includes("/handed/"),
        30_000,
        50,
      );

      // Stopping aborts the run and hands it back before the job's lease is released.
      await first.stop();
      expect((await get()).run?.status).toBe(ImportRunStatus.IMPORT_RUN_STATUS_PENDING);
      releaseHandedBack();

      const done = await eventually(
        async () => {
          const current = (await get()).run;
          return current?.status === ImportRunStatus.IMPORT_RUN_STATUS_COMPLETED ? current : undefined;
        },
        60_000,
        100,
      );
      expect(done).toMatchObject({ pagesFetched: 1, importedResources: 1, totalResources: 1 });
      expect(site.requests.filter((path) => path === "/handed/").length).toBe(2);
      const content = await revisions.getRevision({
        caller,
        ref: { spaceId: space.id, changeRequestId: "", revisionId: "" },
        options: { metadata: false, computed: false },
      });
      expect(content.revision?.id).toBe(done.revisionId);
      expect(titles(content.revision?.pages ?? [])).toEqual(["Handed page"]);
    } finally {
      imports.close();
      revisions.close();
      clients.close();
      await first.stop();
      await second.stop();
    }
  });

  it("a run interrupted more often than IMPORT_RUN_MAX_INTERRUPTIONS allows is failed, not left running", async () => {
    const databaseUrl = await createTestDatabase(inject("pgAdminUrl"), "content");
    const worker = (await startWorkerProcess(databaseUrl)).process;
    // A clock of its own, on time: the worker's job leases hold until it is killed.
    const ownClock = new TestClock();
    const replica = await startServices([
      {
        name: "content",
        config: loadContentConfig,
        start: startContentService,
        clock: ownClock.now,
        database: databaseUrl,
        env: { IDENTITY_GRPC_ADDRESS: identity.address("identity"), IMPRINT_ALLOW_PRIVATE_FETCH: "true", IMPORT_RUN_MAX_INTERRUPTIONS: "0" },
      },
    ]);
    replicas.push(replica);
    const clients = serviceClients((name) => (name === "identity" ? identity.address("identity") : replica.address("content")));
    const imports = testClient(ImportServiceService, replica.address("content"));
    const revisions = testClient(RevisionServiceService, replica.address("content"));
    try {
      const organization = await createOrganization(clients);
      const space = await createSpace(clients, organization);
      const caller = organization.owner.caller;
      const before = await revisions.getRevision({
        caller,
        ref: { spaceId: space.id, changeRequestId: "", revisionId: "" },
        options: { metadata: false, computed: false },
      });
      const { run } = await imports.startImportRun({
        caller,
        organizationId: organization.organizationId,
        spaceId: space.id,
        changeRequestId: "",
        underPageId: "",
        source: "website",
        url: `${site.origin}/stuck/`,
      });
      const get = () => imports.getImportRun({ caller, organizationId: organization.organizationId, importRunId: run!.id });
      await eventually(
        async () => (await get()).run?.status === ImportRunStatus.IMPORT_RUN_STATUS_IN_PROGRESS && site.requests.includes("/stuck/"),
        30_000,
        50,
      );

      worker.kill("SIGKILL");
      await new Promise((resolve) => worker.once("exit", resolve));
      ownClock.advance(10 * 60_000);
      const failed = await eventually(
        async () => {
          const current = (await get()).run;
          return current?.status === ImportRunStatus.IMPORT_RUN_STATUS_FAILED ? current : undefined;
        },
        60_000,
        100,
      );
      expect(failed.reason).toBe("the import was interrupted once (its worker stopped answering); start it again");
      expect(failed.finishedAt).toBeInstanceOf(Date);
      // Failed on the take-over, without fetching the source again or writing anything.
      expect(site.requests.filter((path) => path === "/stuck/").length).toBe(1);
      const after = await revisions.getRevision({
        caller,
        ref: { spaceId: space.id, changeRequestId: "", revisionId: "" },
        options: { metadata: false, computed: false },
      });
      expect(after.revision?.id).toBe(before.revision?.id);
    } finally {
      imports.close();
      revisions.close();
      clients.close();
    }
  });
});
