import { createHash, randomUUID } from "node:crypto";
import { readdir } from "node:fs/promises";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { loadIdentityConfig, startIdentityService } from "@imprint/identity";
import { ExportServiceService } from "@imprint/proto/content/v1/exports";
import { PublishedContentServiceService } from "@imprint/proto/content/v1/published";
import { ConfigError } from "@imprint/runtime";
import {
  createOrganization,
  createRevision,
  createSpace,
  createTestDatabase,
  errorCode,
  eventually,
  serviceClients,
  startServices,
  testClient,
  TestClock,
  testLogger,
  type TestOrganization,
  type TestServices,
} from "@imprint/runtime/testing";
import { loadContentConfig } from "../src/config.js";
import { startContentService } from "../src/service.js";
import { spacePublicationsConsumer } from "../src/spaces/consumers/space-publications.js";
import { contentClients, contentRef, newPage, readAll, type ContentClients } from "./revisions-fixtures.js";
import { startS3Server, type TestS3Server } from "./support/file-stores.js";

/**
 * Two content replicas on one database and one S3 bucket (s3rver on loopback), each with a data
 * directory of its own: what one stores the other serves, with no shared volume. Plus the
 * FILE_STORE settings' checks at start.
 */
const clock = new TestClock();
const SECRET = "a-file-url-secret-shared-by-both-replicas";
let s3: TestS3Server;
let identity: TestServices;
const replicas: TestServices[] = [];
const clients: ContentClients[] = [];
let org: TestOrganization;
let spaceId: string;

const replica = (databaseUrl: string, env: Record<string, string> = {}) => ({
  name: "content",
  config: loadContentConfig,
  start: startContentService,
  clock: clock.now,
  database: databaseUrl,
  // Without a shared volume the file-URL key is set, not kept in the data directory.
  env: { IDENTITY_GRPC_ADDRESS: identity.address("identity"), IMPRINT_FILE_URL_SECRET: SECRET, PURGE_INTERVAL_MS: "200", ...s3.env, ...env },
});

beforeAll(async () => {
  s3 = await startS3Server();
  identity = await startServices([{ name: "identity", config: loadIdentityConfig, start: startIdentityService }]);
  const databaseUrl = await createTestDatabase(inject("pgAdminUrl"), "content");
  for (let i = 0; i < 2; i++) replicas.push(await startServices([replica(databaseUrl)]));
  for (const started of replicas) clients.push(contentClients({ contentAddress: started.address("content") }));
  const first = serviceClients((name) => (name === "identity" ? identity.address("identity") : replicas[0]!.address("content")));
  try {
    org = await createOrganization(first);
    spaceId = (await createSpace(first, org)).id;
  } finally {
    first.close();
  }
});
afterAll(async () => {
  for (const client of clients) client.close();
  for (const started of replicas.reverse()) await started.stop();
  await identity?.stop();
  await s3?.stop();
});

const owner = () => org.owner.caller;
const sha256 = (bytes: Uint8Array) => createHash("sha256").update(bytes).digest("hex");

function fileDownloadParts(url: string) {
  const parsed = new URL(url);
  const match = /^\/v1\/files\/([^/]+)\/download$/.exec(parsed.pathname);
  expect(match).not.toBeNull();
  const field = (name: string) => parsed.searchParams.get(name) ?? "";
  return { fileId: decodeURIComponent(match![1]!), version: field("version"), expires: field("expires"), signature: field("signature") };
}

describe("content replicas sharing an S3 bucket", () => {
  it("serves through each replica the files uploaded through the other, and keeps nothing in their data directories", async () => {
    const uploaded: { fileId: string; bytes: Buffer; through: number }[] = [];
    for (const through of [0, 1]) {
      const bytes = Buffer.from(`uploaded through replica ${through} of ${spaceId}`);
      await createRevision(clients[through]!, owner(), { spaceId }, async (draftId) => {
        const file = await clients[through]!.editing.uploadFile({
          caller: owner(),
          draftId,
          fileId: "",
          name: `r${through}.txt`,
          contentType: "text/plain",
          content: bytes,
        });
        uploaded.push({ fileId: file.file!.id, bytes, through });
      });
    }
    for (const { fileId, bytes, through } of uploaded) {
      const other = clients[1 - through]!;
      const file = (await other.revisions.getFile({ caller: owner(), ref: contentRef(spaceId), options: readAll, fileId })).file!;
      const content = await other.revisions.readFileContent(fileDownloadParts(file.downloadUrl));
      expect(Buffer.from(content.content).equals(bytes)).toBe(true);
      expect(await s3.keys()).toContain(sha256(bytes));
    }
    for (const started of replicas) expect(await readdir(join(started.dataDir("content"), "content-blobs")).catch(() => [])).toEqual([]);
  });

  it("serves the reader a published file through the replica that did not store it", async () => {
    const bytes = Buffer.from(`published through replica 0 of ${spaceId}`);
    let fileId = "";
    await createRevision(clients[0]!, owner(), { spaceId }, async (draftId) => {
      fileId = (
        await clients[0]!.editing.uploadFile({ caller: owner(), draftId, fileId: "", name: "published.txt", contentType: "text/plain", content: bytes })
      ).file!.id;
    });
    // Publishing's announcement, handed to content's consumer as a delivery would.
    const announcement = {
      id: randomUUID(),
      type: "space_publication.updated",
      subject: "imprint.publishing.v1.space_publication.updated",
      occurredAt: new Date().toISOString(),
      organizationId: org.organizationId,
      actor: null,
      payload: {
        spaceId,
        version: 1,
        published: true,
        address: { siteId: randomUUID(), organizationId: org.organizationId, basename: "docs", hostname: "", proxy: "", sectionPath: "", path: "" },
      },
    };
    const handler = spacePublicationsConsumer("replicas-publications").handler;
    await replicas[0]!
      .service("content")
      .orm.em.fork()
      .transactional((em) => handler(announcement, { em, attempt: 1, logger: testLogger("replicas") }));
    const published = testClient(PublishedContentServiceService, replicas[1]!.address("content"));
    try {
      const file = await published.getPublishedFile({ spaceId, revisionId: "", fileId });
      expect(Buffer.from(file.content).equals(bytes)).toBe(true);
    } finally {
      published.close();
    }
  });

  it("downloads from one replica an export the other made, and the sweep deletes its object", async () => {
    const exportsOf = replicas.map((started) => testClient(ExportServiceService, started.address("content")));
    try {
      await createRevision(clients[0]!, owner(), { spaceId }, (draftId) =>
        clients[0]!.editing.applyPageOperations({
          caller: owner(),
          draftId,
          operations: [{ create: newPage({ pageId: "guide", title: "Guide", markdown: "Shared bytes." }) }],
        }),
      );
      const exported = await exportsOf[0]!.exportPdf({ caller: owner(), ref: contentRef(spaceId), pageId: "", only: false });
      const url = new URL(exported.url);
      const parts = {
        exportId: /^\/v1\/exports\/([^/]+)\/download$/.exec(url.pathname)![1]!,
        expires: url.searchParams.get("expires")!,
        signature: url.searchParams.get("signature")!,
      };
      const { content } = await exportsOf[1]!.readExportContent(parts);
      expect(Buffer.from(content).subarray(0, 5).toString()).toBe("%PDF-");
      const key = sha256(content);
      expect(await s3.keys()).toContain(key);

      clock.advance(2 * 60 * 60 * 1000);
      expect(await errorCode(exportsOf[1]!.readExportContent(parts))).toBe("not_found");
      // Whichever replica holds the sweep's lease removes the object from the bucket.
      await eventually(async () => !(await s3.keys()).includes(key));
    } finally {
      for (const client of exportsOf) client.close();
    }
  });
});

describe("FILE_STORE settings", () => {
  const base = { DATABASE_URL: "postgres://localhost/content", NATS_URL: "nats://127.0.0.1:4222", IDENTITY_GRPC_ADDRESS: "127.0.0.1:50051" };

  it("lists every problem of the S3 settings at once, and leaves the directory store needing none", () => {
    expect(loadContentConfig(base).FILE_STORE).toBe("directory");
    let problems: string[] = [];
    try {
      loadContentConfig({ ...base, FILE_STORE: "s3", S3_ACCESS_KEY_ID: "key", S3_PREFIX: "../other", S3_ENDPOINT: "ftp://store" });
    } catch (error) {
      expect(error).toBeInstanceOf(ConfigError);
      problems = (error as ConfigError).problems;
    }
    expect(problems.map((problem) => problem.split(":")[0])).toEqual(
      expect.arrayContaining(["S3_BUCKET", "S3_ACCESS_KEY_ID, S3_SECRET_ACCESS_KEY", "S3_PREFIX", "S3_ENDPOINT"]),
    );
    expect(() => loadContentConfig({ ...base, FILE_STORE: "disk" })).toThrow(/FILE_STORE: must be directory or s3/);
    expect(() => loadContentConfig({ ...base, S3_BUCKET: "imprint-files" })).toThrow(/FILE_STORE: must be s3 when S3_BUCKET is set/);
  });

  it("refuses to start on a bucket that does not exist (Imprint never creates it)", async () => {
    const databaseUrl = await createTestDatabase(inject("pgAdminUrl"), "content");
    await expect(startServices([replica(databaseUrl, { S3_BUCKET: "no-such-bucket" })])).rejects.toThrow(
      /S3 bucket "no-such-bucket" .*it does not exist.*S3_BUCKET/,
    );
  });
});
