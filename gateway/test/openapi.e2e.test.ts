import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { eventually } from "@imprint/runtime/testing";
import { getFreePort } from "@imprint/runtime/infrastructure";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import type { RestOpenApiSpec } from "../src/mappers/openapi.js";
import { createMember, createOrganization, type TestOrganization } from "./support/factories.js";
import { call } from "./support/http.js";
import { startStack, type TestStack } from "./support/stack.js";

/** Documents served to the content service from loopback (the stack allows private fetches). */
let documents: Record<string, { type: string; body: string }> = {};
const petstore = (version: string) =>
  JSON.stringify({
    openapi: "3.1.0",
    info: { title: "Petstore", version },
    paths: {
      "/pets": { get: { responses: { "200": { description: "Pets", content: { "application/json": { schema: { $ref: "#/components/schemas/Pets" } } } } } } },
    },
    components: { schemas: { Pets: { type: "array", items: { type: "object", properties: { name: { type: "string" } } } } } },
  });
const swaggerYaml = `swagger: "2.0"
info:
  title: Legacy
  version: "1"
paths:
  /ping:
    get:
      responses:
        "200":
          description: pong
`;

async function serveDocuments(): Promise<{ origin: string; server: Server }> {
  const server = createServer((request, response) => {
    const document = documents[new URL(request.url ?? "/", "http://specs").pathname];
    response.writeHead(document ? 200 : 404, { "content-type": document?.type ?? "text/plain" });
    response.end(document?.body ?? "not found");
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return { origin: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, server };
}

let stack: TestStack;
let specs: Awaited<ReturnType<typeof serveDocuments>>;
let org: TestOrganization;

beforeAll(async () => {
  stack = await startStack();
  specs = await serveDocuments();
});
afterAll(async () => {
  specs?.server.closeAllConnections();
  await new Promise((resolve) => specs?.server.close(resolve));
  await stack?.stop();
});
beforeEach(async () => {
  org = await createOrganization(stack);
  documents = {
    "/petstore.json": { type: "application/json", body: petstore("1.0.0") },
    "/legacy.yaml": { type: "application/yaml", body: swaggerYaml },
    "/invalid.json": { type: "application/json", body: JSON.stringify({ openapi: "3.0.0", info: {}, paths: {} }) },
  };
});

const base = () => `/v1/orgs/${org.organizationId}/openapi`;
const owner = () => org.owner.token;

/** GET the spec until its processing (after `after`, if given) is complete. */
async function processed(slug: string, after?: string): Promise<RestOpenApiSpec> {
  return eventually(async () => {
    const spec = (await call(stack, "GET", `${base()}/${slug}`, { token: owner() })).body as RestOpenApiSpec;
    const done = spec.processingState === "complete" && (!after || (spec.lastProcessedAt !== undefined && spec.lastProcessedAt > after));
    return done ? spec : undefined;
  }, 15_000);
}

describe("POST/GET /v1/orgs/{organizationId}/openapi", () => {
  it("registers a spec (201 + Location, pending) and processes it in the background into a version", async () => {
    const response = await call(stack, "POST", base(), { token: owner(), json: { slug: "petstore", source: { url: `${specs.origin}/petstore.json` } } });
    expect(response.status).toBe(201);
    const location = `${stack.baseUrl}${base()}/petstore`;
    expect(response.headers.get("location")).toBe(location);
    expect(response.body).toEqual({
      object: "openapi-spec",
      id: expect.any(String),
      createdAt: expect.any(String),
      updatedAt: expect.any(String),
      slug: "petstore",
      sourceURL: `${specs.origin}/petstore.json`,
      processingState: "pending",
      visibility: "private",
      lastProcessedErrorCount: 0,
      permissions: { view: true, edit: true },
      urls: { location, app: expect.stringContaining("/openapi/petstore") },
    });

    const spec = await processed("petstore");
    expect(spec).toMatchObject({ id: response.body.id, processingState: "complete", lastVersion: expect.any(String), lastProcessedErrorCount: 0 });
    expect(Date.parse(spec.lastProcessedAt!)).toBeGreaterThanOrEqual(Date.parse(response.body.createdAt));
    expect(spec.lastProcessErrorCode).toBeUndefined();

    // The official client reads the same object.
    const { data } = await org.owner.api.orgs.getOpenApiSpecBySlug(org.organizationId, "petstore");
    expect(data).toEqual(spec);
  });

  it("reports an invalid document and an unreachable URL truthfully", async () => {
    const closedPort = await getFreePort();
    await org.owner.api.orgs.createOpenApiSpec(org.organizationId, { slug: "invalid", source: { url: `${specs.origin}/invalid.json` } });
    await org.owner.api.orgs.createOpenApiSpec(org.organizationId, { slug: "unreachable", source: { url: `http://127.0.0.1:${closedPort}/spec.json` } });
    const invalid = await processed("invalid");
    expect(invalid).toMatchObject({ lastProcessErrorCode: "PARSE_ERROR", processingState: "complete" });
    expect(invalid.lastVersion).toBeUndefined();
    expect(invalid.lastProcessedErrorCount).toBeGreaterThan(0);
    expect(invalid.lastProcessedErrors?.[0]).toEqual({ code: "invalid_document", message: expect.stringContaining("title") });
    const unreachable = await processed("unreachable");
    expect(unreachable).toMatchObject({
      lastProcessErrorCode: "FETCH_ERROR",
      lastProcessedErrors: [{ code: "unreachable", message: expect.stringContaining("connection refused") }],
    });
    expect(unreachable.lastVersion).toBeUndefined();
  });

  it("lists specs by slug with paging", async () => {
    for (const slug of ["b-api", "a-api", "c-api"]) {
      await org.owner.api.orgs.createOpenApiSpec(org.organizationId, { slug, source: { url: `${specs.origin}/petstore.json` } });
    }
    const first = await org.owner.api.orgs.listOpenApiSpecs(org.organizationId, { limit: 2 });
    expect(first.data.items.map((spec) => spec.slug)).toEqual(["a-api", "b-api"]);
    expect(first.data.count).toBe(3);
    const second = await org.owner.api.orgs.listOpenApiSpecs(org.organizationId, { limit: 2, page: first.data.next!.page });
    expect(second.data.items.map((spec) => spec.slug)).toEqual(["c-api"]);
    expect(second.data.next).toBeUndefined();
  });

  it("answers 400 naming the field for a bad slug, a missing source and a bad URL; 409 for a taken slug", async () => {
    const post = (json: unknown) => call(stack, "POST", base(), { token: owner(), json });
    const url = `${specs.origin}/petstore.json`;
    for (const [json, message] of [
      [{ slug: "Pet_Store", source: { url } }, "slug: must match pattern ^[a-z0-9]+(?:-[a-z0-9]+)*$"],
      [{ slug: "pets" }, "source: is required"],
      [{ slug: "pets", source: {} }, "source.url: is required"],
      [{ slug: "pets", source: { url: "file:///etc/passwd" } }, "source.url: scheme file is not allowed (only http and https)"],
      [{ source: { url } }, "slug: is required"],
    ] as const) {
      const response = await post(json);
      expect([response.status, response.body.error.message]).toEqual([400, message]);
    }
    expect((await post({ slug: "pets", source: { url } })).status).toBe(201);
    const taken = await post({ slug: "pets", source: { url } });
    expect(taken.status).toBe(409);
    expect(taken.body.error.message).toContain('slug "pets" already exists');
  });
});

describe("PUT/DELETE /v1/orgs/{organizationId}/openapi/{specSlug}", () => {
  it("PUT creates (201) a free slug, then updates (200): new content gives a new version, unchanged content keeps it", async () => {
    const put = (slug: string, url: string) => call(stack, "PUT", `${base()}/${slug}`, { token: owner(), json: { source: { url } } });
    const created = await put("live", `${specs.origin}/petstore.json`);
    expect(created.status).toBe(201);
    expect(created.headers.get("location")).toBe(`${stack.baseUrl}${base()}/live`);
    const first = await processed("live");

    documents["/petstore.json"] = { type: "application/json", body: petstore("2.0.0") };
    const updated = await put("live", `${specs.origin}/petstore.json`);
    expect(updated.status).toBe(200);
    expect(updated.body).toMatchObject({ id: first.id, processingState: "pending", lastVersion: first.lastVersion });
    const second = await processed("live", first.lastProcessedAt);
    expect(second.lastVersion).not.toBe(first.lastVersion);

    const again = await org.owner.api.orgs.createOrUpdateOpenApiSpecBySlug(org.organizationId, "live", { source: { url: `${specs.origin}/petstore.json` } });
    expect(again.status).toBe(200);
    const third = await processed("live", second.lastProcessedAt);
    expect(third.lastVersion).toBe(second.lastVersion);

    const switched = await put("live", `${specs.origin}/legacy.yaml`);
    expect(switched.body.sourceURL).toBe(`${specs.origin}/legacy.yaml`);
    const fourth = await processed("live", third.lastProcessedAt);
    expect(fourth.lastVersion).not.toBe(third.lastVersion);
    expect(fourth.lastProcessErrorCode).toBeUndefined();

    const bad = await call(stack, "PUT", `${base()}/Not_A_Slug`, { token: owner(), json: { source: { url: `${specs.origin}/petstore.json` } } });
    expect([bad.status, bad.body.error.message]).toEqual([400, "specSlug: must match pattern ^[a-z0-9]+(?:-[a-z0-9]+)*$"]);
  });

  it("DELETE answers 204, also when the spec does not exist", async () => {
    await org.owner.api.orgs.createOpenApiSpec(org.organizationId, { slug: "gone", source: { url: `${specs.origin}/petstore.json` } });
    expect((await call(stack, "DELETE", `${base()}/gone`, { token: owner() })).status).toBe(204);
    expect((await call(stack, "GET", `${base()}/gone`, { token: owner() })).status).toBe(404);
    expect((await call(stack, "DELETE", `${base()}/gone`, { token: owner() })).status).toBe(204);
  });
});

describe("PATCH /v1/orgs/{organizationId}/openapi/{specSlug} and openapi-versions", () => {
  it("changes the visibility without processing again, and reads every kept version, its content and its raw text", async () => {
    const api = org.owner.api.orgs;
    await api.createOpenApiSpec(org.organizationId, { slug: "versioned", source: { url: `${specs.origin}/petstore.json` } });
    const first = await processed("versioned");
    expect(first.visibility).toBe("private");
    documents["/petstore.json"] = { type: "application/json", body: petstore("2.0.0") };
    await api.createOrUpdateOpenApiSpecBySlug(org.organizationId, "versioned", { source: { url: `${specs.origin}/petstore.json` } });
    const second = await processed("versioned", first.lastProcessedAt);

    const published = await api.updateOpenApiSpecBySlug(org.organizationId, "versioned", { visibility: "public" as never });
    expect(published.data).toMatchObject({
      visibility: "public",
      processingState: "complete",
      lastVersion: second.lastVersion,
      lastProcessedAt: second.lastProcessedAt,
    });

    const versions = (await api.listOpenApiSpecVersions(org.organizationId, "versioned")).data;
    expect(versions.items.map((version) => version.id)).toEqual([second.lastVersion, first.lastVersion]);
    expect(versions.items[0]).toMatchObject({
      object: "openapi-spec-version",
      url: `${specs.origin}/petstore.json`,
      urls: { location: `${stack.baseUrl}${base()}/versioned/versions/${second.lastVersion}` },
    });
    const paged = (await api.listOpenApiSpecVersions(org.organizationId, "versioned", { limit: 1 })).data;
    expect(paged.items.map((version) => version.id)).toEqual([second.lastVersion]);
    expect((await api.listOpenApiSpecVersions(org.organizationId, "versioned", { limit: 1, page: paged.next!.page })).data.items[0]!.id).toBe(
      first.lastVersion,
    );

    expect((await api.getLatestOpenApiSpecVersion(org.organizationId, "versioned")).data.id).toBe(second.lastVersion);
    expect((await api.getOpenApiSpecVersionById(org.organizationId, "versioned", first.lastVersion!)).data.id).toBe(first.lastVersion);
    const latest = (await api.getLatestOpenApiSpecVersionContent(org.organizationId, "versioned")).data;
    expect(latest.urls).toEqual({ source: `${specs.origin}/petstore.json`, public: `${specs.origin}/petstore.json` });
    expect(latest.filesystem).toEqual({ [`${specs.origin}/petstore.json`]: JSON.parse(petstore("2.0.0")) });
    const older = (await api.getOpenApiSpecVersionContentById(org.organizationId, "versioned", first.lastVersion!)).data;
    expect((older.filesystem as Record<string, { info: { version: string } }>)[`${specs.origin}/petstore.json`]!.info.version).toBe("1.0.0");
    expect((await api.getLatestOpenApiSpecVersionContentRaw(org.organizationId, "versioned")).data).toEqual({ text: petstore("2.0.0"), format: "json" });

    await api.updateOpenApiSpecBySlug(org.organizationId, "versioned", { visibility: "private" as never });
    expect((await api.getLatestOpenApiSpecVersionContent(org.organizationId, "versioned")).data.urls.public).toBeNull();
  });

  it("refuses: a bad visibility (400), a read member (403), another organization and unknown versions (404)", async () => {
    await org.owner.api.orgs.createOpenApiSpec(org.organizationId, { slug: "refused", source: { url: `${specs.origin}/invalid.json` } });
    await processed("refused");
    const patch = (json: unknown, token = owner()) => call(stack, "PATCH", `${base()}/refused`, { token, json });
    for (const json of [{}, { visibility: "secret" }]) {
      const response = await patch(json);
      expect([response.status, response.body.error.message]).toEqual([400, expect.stringMatching(/^visibility: /)]);
    }
    const reader = await createMember(stack, org, { role: "read" });
    expect((await patch({ visibility: "public" }, reader.token)).status).toBe(403);
    expect((await call(stack, "GET", `${base()}/refused/versions`, { token: reader.token })).status).toBe(200);
    const outsider = (await createOrganization(stack)).owner.token;
    expect((await patch({ visibility: "public" }, outsider)).status).toBe(404);
    expect((await call(stack, "GET", `${base()}/refused/versions`, { token: outsider })).status).toBe(404);
    // No kept version yet (the document is invalid), a version of no such id, a missing specification.
    for (const path of ["refused/versions/latest", "refused/versions/latest/content", `refused/versions/${org.organizationId}`, "nothing/versions"]) {
      expect((await call(stack, "GET", `${base()}/${path}`, { token: owner() })).status, path).toBe(404);
    }
    expect((await patch({ visibility: "public" })).body.processingState).toBe("complete");
  });
});

describe("permissions", () => {
  it("read members view (edit false) and get 403 on changes; another organization gets 404 on every endpoint", async () => {
    await org.owner.api.orgs.createOpenApiSpec(org.organizationId, { slug: "guarded", source: { url: `${specs.origin}/petstore.json` } });
    const reader = await createMember(stack, org, { role: "read" });
    const seen = await call(stack, "GET", `${base()}/guarded`, { token: reader.token });
    expect([seen.status, seen.body.permissions]).toEqual([200, { view: true, edit: false }]);
    const json = { source: { url: `${specs.origin}/petstore.json` } };
    expect((await call(stack, "POST", base(), { token: reader.token, json: { slug: "mine", ...json } })).status).toBe(403);
    expect((await call(stack, "PUT", `${base()}/guarded`, { token: reader.token, json })).status).toBe(403);
    expect((await call(stack, "DELETE", `${base()}/guarded`, { token: reader.token })).status).toBe(403);

    const outsider = (await createOrganization(stack)).owner.token;
    for (const [method, path, body] of [
      ["GET", base(), undefined],
      ["POST", base(), { slug: "intruder", ...json }],
      ["GET", `${base()}/guarded`, undefined],
      ["PUT", `${base()}/guarded`, json],
      ["DELETE", `${base()}/guarded`, undefined],
    ] as const) {
      const response = await call(stack, method, path, { token: outsider, json: body });
      expect([method, path, response.status, response.body?.error?.message]).toEqual([method, path, 404, "Organization not found"]);
    }
    expect((await call(stack, "GET", `${base()}/guarded`, { token: owner() })).status).toBe(200);
  });
});
