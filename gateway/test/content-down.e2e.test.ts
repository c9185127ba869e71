import type { ReaderHandle } from "@imprint/reader";
import { createTestDatabase, eventually, patient, startTcpProxy, type TcpProxy } from "@imprint/runtime/testing";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { createOrganization, createSpace, type TestOrganization } from "./support/factories.js";
import { call } from "./support/http.js";
import { pagesOf, startTestReader, writeContent } from "./support/reader.js";
import { startStack, type TestStack } from "./support/stack.js";

/**
 * Content losing its PostgreSQL, then content itself stopped: what a client can retry is a 503 with
 * Retry-After, from the API and from the reader, answered at once; never a 500.
 */
let stack: TestStack;
let org: TestOrganization;
let reader: ReaderHandle;
let database: TcpProxy;
let spaceId: string;
let base: string;

beforeAll(async () => {
  // Content reaches its database through a relay the test cuts, as a PostgreSQL crash would.
  const databaseUrl = await createTestDatabase(inject("pgAdminUrl"), "content");
  const direct = new URL(databaseUrl);
  database = await startTcpProxy({ host: direct.hostname, port: Number(direct.port) });
  stack = await startStack({ contentEnv: { DATABASE_URL: database.via(databaseUrl) } });
  org = await createOrganization(stack);
  // Without events: the reader keeps nothing, every page is read from publishing and content.
  reader = await startTestReader(stack);

  spaceId = (await createSpace(stack, org, { title: "Handbook" })).id;
  await writeContent(
    stack,
    org,
    spaceId,
    pagesOf([
      ["welcome", "# Welcome\n\nStart here."],
      ["install", "# Install"],
    ]),
  );
  const site = (await org.owner.api.orgs.createSite(org.organizationId, { title: "Handbook", spaces: [spaceId] })).data;
  await org.owner.api.orgs.updateSiteById(org.organizationId, site.id, { basename: "handbook" });
  await org.owner.api.orgs.publishSite(org.organizationId, site.id);
  base = `/${org.organizationId}/handbook/`;
  await eventually(async () => (await fetch(`${reader.url}${base}install`)).status === 200);
});
afterAll(async () => {
  await reader?.stop();
  await database?.start();
  await stack?.stop();
  await database?.close();
});

async function expectRetryable(response: Response | { status: number; headers: Headers }, started: number): Promise<void> {
  expect(response.status).toBe(503);
  expect(Number(response.headers.get("retry-after"))).toBeGreaterThan(0);
  expect(Date.now() - started).toBeLessThan(patient(1_000));
}

describe("with content's PostgreSQL down", () => {
  it("the API and the reader answer 503 with Retry-After, and serve again when it returns", async () => {
    await database.stop();
    try {
      let started = Date.now();
      const space = await call(stack, "GET", `/v1/spaces/${spaceId}`, { token: org.owner.token });
      await expectRetryable(space, started);
      expect(space.body).toEqual({ error: { code: 503, message: "Service temporarily unavailable" } });
      const created = await call(stack, "POST", `/v1/orgs/${org.organizationId}/spaces`, { token: org.owner.token, json: { title: "During" } });
      expect(created.status).toBe(503);

      started = Date.now();
      const page = await fetch(`${reader.url}${base}install`);
      await expectRetryable(page, started);
      expect(page.headers.get("content-type")).toContain("text/html");
      expect(await page.text()).toContain("Temporarily unavailable");
    } finally {
      await database.start();
    }
    await eventually(async () => (await call(stack, "GET", `/v1/spaces/${spaceId}`, { token: org.owner.token })).status === 200);
    await eventually(async () => (await fetch(`${reader.url}${base}install`)).status === 200);
  });
});

describe("with content stopped", () => {
  it("the API answers 503 with Retry-After at once, and the reader too for a page it has not kept", async () => {
    await stack.stopUpstream("content");
    let started = Date.now();
    await expectRetryable(await call(stack, "GET", `/v1/spaces/${spaceId}`, { token: org.owner.token }), started);
    started = Date.now();
    const page = await fetch(`${reader.url}${base}welcome`);
    await expectRetryable(page, started);
    expect(await page.text()).toContain("Temporarily unavailable");
  });
});
