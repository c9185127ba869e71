import { execFile } from "node:child_process";
import { randomUUID } from "node:crypto";
import { mkdtemp, rm } from "node:fs/promises";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";
import { createTestDatabase, eventually, patient, testNatsUrl } from "@imprint/runtime/testing";
import { afterAll, beforeAll, describe, expect, inject, it, onTestFailed } from "vitest";
import { callsStarted } from "../../scripts/lib/channelz.mjs";
import {
  generateTokenSecret,
  HOSTINGS,
  RATE_LIMITS_OUT_OF_REACH,
  SERVICES,
  startStack,
  writeStackJson,
  type Hosting,
  type Stack,
} from "../../scripts/lib/stack.mjs";

// The same short scenario against the real local stack (scripts/lib/stack.mjs, what `npm start`
// runs) in both hostings: every target in one process, and one process per target. It crosses every
// boundary once: the admin CLI (through stack.json) and identity, the gateway, content's import,
// collaboration's merge driving content's branches, the event path (NATS) that feeds search, and
// publishing with the reader serving the published space. In one process the targets call each
// other directly (no gRPC socket): each service's gRPC server, counted by its channelz service,
// then starts no call during the scenario but ours; split, they start many.

const REPO_ROOT = join(import.meta.dirname, "..", "..");
const run = promisify(execFile);

/** A two-page website on loopback, and a news page of its own (not linked) with a word to search for. */
async function serveSite(word: string): Promise<{ origin: string; server: Server }> {
  const pages: Record<string, string> = {
    "/": '<main><h1>Handbook</h1><p>Welcome. Read the <a href="guide/">guide</a>.</p></main>',
    "/guide/": "<main><h1>Guide</h1><p>How we work: write things down.</p></main>",
    "/news/": `<main><h1>News</h1><p>This week: ${word}.</p></main>`,
  };
  const server = createServer((request, response) => {
    const page = pages[new URL(request.url ?? "/", "http://site").pathname];
    response.writeHead(page ? 200 : 404, { "content-type": "text/html; charset=utf-8" });
    response.end(page ? `<!doctype html><html><head><title>Handbook</title></head><body>${page}</body></html>` : "");
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return { origin: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, server };
}

describe.each(HOSTINGS)("one scenario through the local stack (%s hosting)", (hosting: Hosting) => {
  let dataDir: string;
  let stack: Stack;
  let site: Awaited<ReturnType<typeof serveSite>>;
  const word = `zanzibar${hosting.replace(/\W/g, "")}`;
  // What the processes wrote (warnings and errors), shown when the scenario fails.
  const logs: string[] = [];

  beforeAll(async () => {
    dataDir = await mkdtemp(join(tmpdir(), `imprint-${hosting}-`));
    site = await serveSite(word);
    stack = await startStack({
      dataDir,
      persistent: false,
      // The site is served from loopback; the gateway's deadlines scaled for a busy machine; stopped
      // with SIGTERM, without a drain (tested on its own) to sit out.
      // Each service serves channelz, which counts the calls its gRPC server started.
      env: {
        ...process.env,
        LOG_LEVEL: "warn",
        IMPRINT_ALLOW_PRIVATE_FETCH: "true",
        UPSTREAM_TIMEOUT_MS: String(patient(10_000)),
        SHUTDOWN_DRAIN_MS: "0",
        GRPC_CHANNELZ: "true",
        // Its waits poll with one token from one address, faster than a hosted API's limits allow.
        ...RATE_LIMITS_OUT_OF_REACH,
      },
      hosting,
      gatewayPort: 0,
      natsUrl: await testNatsUrl(),
      databaseUrls: {
        identity: await createTestDatabase(inject("pgAdminUrl"), "hosting_identity"),
        content: await createTestDatabase(inject("pgAdminUrl"), "hosting_content"),
        collaboration: await createTestDatabase(inject("pgAdminUrl"), "hosting_collaboration"),
        publishing: await createTestDatabase(inject("pgAdminUrl"), "hosting_publishing"),
        integration: await createTestDatabase(inject("pgAdminUrl"), "hosting_integration"),
      },
      bootstrap: { token: generateTokenSecret() },
      onLog: (source, line) => {
        if (source !== "postgres" && source !== "nats") logs.push(`${source} | ${line}`);
      },
    });
    await writeStackJson(dataDir, stack);
  }, patient(120_000));

  afterAll(async () => {
    await stack?.stop();
    site?.server.close();
    await rm(dataDir, { recursive: true, force: true });
  });

  it("creates an organization with the admin CLI, imports a site, merges a change request and finds its words", async () => {
    onTestFailed(() => console.error(`last lines of the ${hosting} stack:\n${logs.slice(-40).join("\n")}`));
    // The admin CLI finds identity through stack.json, as it does next to `npm start`.
    const env: Record<string, string | undefined> = { ...process.env, IMPRINT_DATA_DIR: dataDir };
    delete env.IDENTITY_GRPC_ADDRESS;
    const created = await run(
      process.execPath,
      [join(REPO_ROOT, "scripts", "admin.mjs"), "org", "create", "--title", "Smoke Docs", "--owner-email", `owner@${hosting}.test`],
      { env, cwd: REPO_ROOT },
    );
    const { organizationId, token } = JSON.parse(created.stdout) as { organizationId: string; token: string };

    const api = async (method: string, path: string, json?: unknown) => {
      const response = await fetch(`${stack.gatewayUrl}/v1${path}`, {
        method,
        headers: { authorization: `Bearer ${token}`, ...(json === undefined ? {} : { "content-type": "application/json" }) },
        ...(json === undefined ? {} : { body: JSON.stringify(json) }),
      });
      const text = await response.text();
      return { status: response.status, body: (text ? JSON.parse(text) : null) as Record<string, unknown> & { items?: unknown[]; pages?: { path: string }[] } };
    };

    // The calls each service's gRPC server started, read one after the other (channelz of a
    // process lists all its servers, so in one process each reading counts every server's calls).
    const services = SERVICES.map((service) => service.name);
    const readCalls = async () => {
      const counts: number[] = [];
      for (const name of services) counts.push(await callsStarted(stack.grpcAddresses[name]!));
      return counts;
    };
    const callsBefore = await readCalls();
    expect(await api("PATCH", `/orgs/${organizationId}`, { title: "Smoke Documentation" })).toMatchObject({
      status: 200,
      body: { title: "Smoke Documentation" },
    });
    expect(await api("GET", `/orgs/${organizationId}`)).toMatchObject({ status: 200, body: { id: organizationId, title: "Smoke Documentation" } });
    const members = await api("GET", `/orgs/${organizationId}/members`);
    expect(members.status).toBe(200);
    expect(members.body.items).toEqual([expect.objectContaining({ user: expect.objectContaining({ email: `owner@${hosting}.test` }) })]);
    // A keyed write: the gateway sends the key with the call (imprint-idempotency-key), a repeat gets the first answer.
    const keyed = async () => {
      const response = await fetch(`${stack.gatewayUrl}/v1/orgs/${organizationId}/spaces`, {
        method: "POST",
        headers: { authorization: `Bearer ${token}`, "content-type": "application/json", "idempotency-key": `smoke-${hosting}` },
        body: JSON.stringify({ title: "Once" }),
      });
      return { status: response.status, body: (await response.json()) as { id: string } };
    };
    const once = await keyed();
    expect(once.status).toBe(201);
    expect(await keyed()).toEqual(once);
    // Errors keep their code and message across the call: a service's not_found, its domain limit.
    expect(await api("GET", `/spaces/${randomUUID()}`)).toMatchObject({ status: 404, body: { error: { code: 404, message: "Space not found" } } });
    expect(await api("POST", `/orgs/${organizationId}/spaces`, { title: "x".repeat(1_000) })).toMatchObject({
      status: 400,
      body: { error: { message: expect.stringMatching(/^title: must be at most \d+ characters$/) } },
    });
    const space = await api("POST", `/orgs/${organizationId}/spaces`, { title: "Handbook" });
    expect(space.status).toBe(201);
    const spaceId = space.body.id as string;

    const imported = await api("POST", `/spaces/${spaceId}/content/import`, { source: "website", url: `${site.origin}/` });
    expect(imported).toMatchObject({ status: 201, body: { importedResources: 2 } });
    const paths = async () => (await api("GET", `/spaces/${spaceId}/content/pages`)).body.pages?.map((page) => page.path);
    const before = await paths();
    expect(before).toHaveLength(2);

    // The news page goes into a change request's branch, which is then merged into the space.
    const changeRequest = await api("POST", `/spaces/${spaceId}/change-requests`, { subject: "This week's news" });
    expect(changeRequest.status).toBe(201);
    const number = changeRequest.body.number as number;
    expect((await api("POST", `/spaces/${spaceId}/change-requests/${number}/content/import`, { source: "website", url: `${site.origin}/news/` })).status).toBe(
      201,
    );
    expect(await paths()).toEqual(before);
    // Collaboration checks the change request with content and the author with identity.
    const comment = await api("POST", `/spaces/${spaceId}/change-requests/${number}/comments`, { body: { markdown: "Looks good." } });
    expect(comment.status).toBe(200);
    expect((await api("GET", `/spaces/${spaceId}/change-requests/${number}/comments`)).body.count).toBe(1);
    expect(await api("POST", `/spaces/${spaceId}/change-requests/${number}/merge`)).toMatchObject({ status: 200 });
    expect(await paths()).toEqual([...(before ?? []), "news"]);
    const news = await fetch(`${stack.gatewayUrl}/v1/spaces/${spaceId}/content/path/news?format=markdown`, { headers: { authorization: `Bearer ${token}` } });
    expect(((await news.json()) as { markdown: string }).markdown).toContain(word);
    expect(await api("GET", `/spaces/${spaceId}/change-requests/${number}`)).toMatchObject({ body: { status: "merged" } });

    // Search is fed by content's revision events through NATS: the merged word becomes findable.
    const found = await eventually(async () => {
      const search = await api("GET", `/spaces/${spaceId}/search?query=${word}`);
      return search.status === 200 && (search.body.items?.length ?? 0) > 0 ? search : undefined;
    }, 15_000);
    expect(found.body.items).toHaveLength(1);

    // Published, the space is read through the stack's reader at the URL the API gives, news included.
    const siteCreated = await api("POST", `/orgs/${organizationId}/sites`, { title: "Smoke site", spaces: [spaceId] });
    expect(siteCreated.status).toBe(201);
    const siteId = siteCreated.body.id as string;
    expect((await api("POST", `/orgs/${organizationId}/sites/${siteId}/publish`)).status).toBe(200);
    const published = ((await api("GET", `/orgs/${organizationId}/sites/${siteId}`)).body.urls as { published: string }).published;
    expect(published.startsWith(`${stack.readerUrl}/`)).toBe(true);
    const page = await eventually(async () => {
      const response = await fetch(`${published}news`);
      return response.status === 200 ? response.text() : undefined;
    }, 15_000);
    expect(page).toContain(word);
    const callsAfter = await readCalls();
    const callsByService = Object.fromEntries(services.map((name, index) => [name, callsAfter[index]! - callsBefore[index]!]));
    if (hosting === "one-process") {
      // Nothing but our own readings (one GetServers per server, each seen by every reading of the
      // process): every call between the targets was direct.
      expect(callsByService).toEqual(Object.fromEntries(services.map((name) => [name, services.length])));
    } else {
      // Split, every service was called over gRPC (by the gateway, the reader, or another service) besides our one reading.
      for (const name of services) expect(callsByService[name], name).toBeGreaterThan(1);
    }
  });
});
