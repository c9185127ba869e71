import { createHash } from "node:crypto";
import type { ServerResponse } from "node:http";
import { OpenAPISpecProcessErrorCode, OpenAPISpecProcessingState, OpenAPISpecServiceService, type OpenAPISpec } from "@imprint/proto/content/v1/openapi";
import type { Caller } from "@imprint/proto/common/v1";
import type { PromiseClient } from "@imprint/runtime";
import { getFreePort } from "@imprint/runtime/infrastructure";
import { eventually, testClient, createMember, createOrganization, type TestOrganization, errorCode, failure, waitForEvents } from "@imprint/runtime/testing";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { stringify as toYaml } from "yaml";
import { serveSite, type TestSite } from "./fixtures/site/server.js";
import { startContentHarness, type ContentHarness } from "./support/harness.js";

type OpenApiClient = PromiseClient<typeof OpenAPISpecServiceService>;
const { PENDING, PROGRESS, COMPLETE } = {
  PENDING: OpenAPISpecProcessingState.OPEN_API_SPEC_PROCESSING_STATE_PENDING,
  PROGRESS: OpenAPISpecProcessingState.OPEN_API_SPEC_PROCESSING_STATE_PROGRESS,
  COMPLETE: OpenAPISpecProcessingState.OPEN_API_SPEC_PROCESSING_STATE_COMPLETE,
};
const ErrorCode = OpenAPISpecProcessErrorCode;

// Documents the loopback server hands out. Each is small but real: $refs, paths, responses.
const openApi30 = {
  openapi: "3.0.3",
  info: { title: "Pets 3.0", version: "1.2.0" },
  paths: {
    "/pets/{petId}": {
      get: {
        operationId: "getPet",
        parameters: [{ name: "petId", in: "path", required: true, schema: { type: "string" } }],
        responses: { "200": { description: "A pet", content: { "application/json": { schema: { $ref: "#/components/schemas/Pet" } } } } },
      },
    },
  },
  components: { schemas: { Pet: { type: "object", required: ["id"], properties: { id: { type: "string" }, parent: { $ref: "#/components/schemas/Pet" } } } } },
};
const openApi31 = {
  openapi: "3.1.0",
  info: { title: "Pets 3.1", version: "2.0.0" },
  paths: {
    "/pets": {
      get: {
        responses: {
          "200": { description: "Pets", content: { "application/json": { schema: { type: ["array", "null"], items: { $ref: "#/components/schemas/Pet" } } } } },
        },
      },
    },
  },
  components: { schemas: { Pet: { type: "object", properties: { name: { type: "string" } } } } },
};
const swagger20 = {
  swagger: "2.0",
  info: { title: "Pets Swagger", version: "0.9" },
  paths: {
    "/pets": {
      get: { produces: ["application/json"], responses: { "200": { description: "Pets", schema: { type: "array", items: { $ref: "#/definitions/Pet" } } } } },
    },
  },
  definitions: { Pet: { type: "object", properties: { name: { type: "string" } } } },
};
// Missing info.title and an operation without responses.
const invalidOpenApi = { openapi: "3.0.3", info: { version: "1" }, paths: { "/pets": { get: { operationId: "listPets" } } } };

let harness: ContentHarness;
let openapi: OpenApiClient;
let site: TestSite;
let org: TestOrganization;
/** Served at /mutable.json: tests change it between processings. */
let mutableBody = JSON.stringify(openApi30);
/** Requests to /slow.json wait until the test opens this gate. */
let openSlowGate: () => void = () => {};
let slowGate: Promise<void> = Promise.resolve();

const bodies: Record<string, { type: string; body: string }> = {
  "/v30.json": { type: "application/json", body: JSON.stringify(openApi30) },
  "/v31.yaml": { type: "application/yaml", body: toYaml(openApi31) },
  "/swagger.json": { type: "application/json", body: JSON.stringify(swagger20) },
  "/swagger.yaml": { type: "text/plain; charset=utf-8", body: toYaml(swagger20) },
  "/invalid.json": { type: "application/json", body: JSON.stringify(invalidOpenApi) },
  "/garbage.txt": { type: "text/plain", body: "title: [unclosed\n  - nope: {" },
};

function send(response: ServerResponse, type: string, body: string | Buffer): void {
  response.writeHead(200, { "content-type": type });
  response.end(body);
}

const sha256 = (text: string) => createHash("sha256").update(text).digest("hex");

beforeAll(async () => {
  harness = await startContentHarness({ contentEnv: { IMPRINT_ALLOW_PRIVATE_FETCH: "true" } });
  openapi = testClient(OpenAPISpecServiceService, harness.contentAddress);
  const routes = Object.fromEntries(
    Object.entries(bodies).map(([path, { type, body }]) => [path, (_request: unknown, response: ServerResponse) => send(response, type, body)]),
  );
  site = await serveSite({
    ...routes,
    "/mutable.json": (_request, response) => send(response, "application/json", mutableBody),
    "/slow.json": async (_request, response) => {
      await slowGate;
      send(response, "application/json", JSON.stringify({ ...openApi30, info: { title: "Slow", version: "1" } }));
    },
    // Just over the 10 MiB bound: valid JSON, so only the size can refuse it.
    "/large.json": (_request, response) =>
      send(response, "application/json", JSON.stringify({ ...openApi30, info: { title: "Large", version: "1", description: "x".repeat(10 * 1024 * 1024) } })),
  });
});
afterAll(async () => {
  openSlowGate();
  openapi?.close();
  await site?.close();
  await harness?.stop();
});
beforeEach(async () => {
  org = await createOrganization(harness);
});

const url = (path: string) => `${site.origin}${path}`;
const create = (slug: string, sourceUrl: string, caller: Caller = org.owner.caller, organizationId = org.organizationId) =>
  openapi.createOpenApiSpec({ caller, organizationId, slug, sourceUrl });
const put = (slug: string, sourceUrl: string, caller: Caller = org.owner.caller, organizationId = org.organizationId) =>
  openapi.putOpenApiSpec({ caller, organizationId, slug, sourceUrl });
const get = async (slug: string, caller: Caller = org.owner.caller, organizationId = org.organizationId) =>
  (await openapi.getOpenApiSpec({ caller, organizationId, slug })).spec!;

/** The specification once processing of its current source finished (after `after`, if given). */
function processed(slug: string, after?: Date): Promise<OpenAPISpec> {
  return eventually(async () => {
    const spec = await get(slug);
    const done = spec.processingState === COMPLETE && (!after || (spec.lastProcessedAt && spec.lastProcessedAt > after));
    return done ? spec : undefined;
  }, 15_000);
}

describe("processing a source in the background", () => {
  it.each([
    { path: "/v30.json", title: "Pets 3.0", apiVersion: "1.2.0", specification: "openapi 3.0.3", format: "json" },
    { path: "/v31.yaml", title: "Pets 3.1", apiVersion: "2.0.0", specification: "openapi 3.1.0", format: "yaml" },
    { path: "/swagger.json", title: "Pets Swagger", apiVersion: "0.9", specification: "swagger 2.0", format: "json" },
    { path: "/swagger.yaml", title: "Pets Swagger", apiVersion: "0.9", specification: "swagger 2.0", format: "yaml" },
  ])("keeps a version of a valid $specification document served as $format ($path)", async ({ path, ...expected }) => {
    const created = (await create("pets", url(path))).spec!;
    // The answer comes before any fetch: processing never runs in the request.
    expect(created).toMatchObject({
      slug: "pets",
      sourceUrl: url(path),
      organizationId: org.organizationId,
      processingState: PENDING,
      lastProcessErrorCode: ErrorCode.OPEN_API_SPEC_PROCESS_ERROR_CODE_UNSPECIFIED,
      lastProcessedErrors: [],
      lastProcessedErrorCount: 0,
      permissions: { view: true, edit: true },
    });
    expect(created.lastVersion).toBeUndefined();
    expect(created.lastProcessedAt).toBeUndefined();

    const spec = await processed("pets");
    expect(spec.lastProcessErrorCode).toBe(ErrorCode.OPEN_API_SPEC_PROCESS_ERROR_CODE_UNSPECIFIED);
    expect(spec.lastProcessedErrors).toEqual([]);
    expect(spec.lastProcessedAt!.getTime()).toBeGreaterThanOrEqual(created.createdAt!.getTime());
    expect(spec.lastVersion).toMatchObject({ ...expected, sourceUrl: url(path), contentHash: sha256(bodies[path]!.body) });
    expect(Number(spec.lastVersion!.sizeBytes)).toBe(Buffer.byteLength(bodies[path]!.body));
  });

  it("an invalid document completes with PARSE_ERROR and the validator's findings, without a version", async () => {
    await create("invalid", url("/invalid.json"));
    const spec = await processed("invalid");
    expect(spec.lastProcessErrorCode).toBe(ErrorCode.OPEN_API_SPEC_PROCESS_ERROR_CODE_PARSE_ERROR);
    expect(spec.lastVersion).toBeUndefined();
    expect(spec.lastProcessedAt).toBeInstanceOf(Date);
    expect(spec.lastProcessedErrorCount).toBeGreaterThanOrEqual(2);
    const messages = spec.lastProcessedErrors.map((problem) => problem.message).join("\n");
    expect(messages).toContain("title");
    expect(messages).toContain("responses");
    expect(spec.lastProcessedErrors.every((problem) => problem.code === "invalid_document")).toBe(true);
  });

  it("text that is neither JSON nor YAML completes with PARSE_ERROR", async () => {
    await create("garbage", url("/garbage.txt"));
    const spec = await processed("garbage");
    expect(spec.lastProcessErrorCode).toBe(ErrorCode.OPEN_API_SPEC_PROCESS_ERROR_CODE_PARSE_ERROR);
    expect(spec.lastProcessedErrors).toEqual([{ code: "invalid_yaml", message: expect.stringContaining("neither JSON nor valid YAML") as string }]);
  });

  it("an unreachable URL and an HTTP error complete with FETCH_ERROR", async () => {
    const closedPort = await getFreePort();
    await create("unreachable", `http://127.0.0.1:${closedPort}/openapi.json`);
    await create("missing", url("/does-not-exist.json"));
    const unreachable = await processed("unreachable");
    expect(unreachable).toMatchObject({ lastProcessErrorCode: ErrorCode.OPEN_API_SPEC_PROCESS_ERROR_CODE_FETCH_ERROR, lastProcessedErrorCount: 1 });
    expect(unreachable.lastProcessedErrors).toEqual([{ code: "unreachable", message: expect.stringContaining("connection refused") as string }]);
    expect(unreachable.lastVersion).toBeUndefined();
    const missing = await processed("missing");
    expect(missing.lastProcessErrorCode).toBe(ErrorCode.OPEN_API_SPEC_PROCESS_ERROR_CODE_FETCH_ERROR);
    expect(missing.lastProcessedErrors).toEqual([{ code: "http_status", message: expect.stringContaining("HTTP 404") as string }]);
  });

  it("a source over 10 MiB completes with FETCH_ERROR (too_large)", async () => {
    await create("large", url("/large.json"));
    const spec = await processed("large");
    expect(spec.lastProcessErrorCode).toBe(ErrorCode.OPEN_API_SPEC_PROCESS_ERROR_CODE_FETCH_ERROR);
    expect(spec.lastProcessedErrors[0]?.code).toBe("too_large");
  });

  it("an update with new content adds a version, unchanged content keeps it, a broken source keeps the last good one", async () => {
    mutableBody = JSON.stringify(openApi30);
    await create("mutable", url("/mutable.json"));
    const first = await processed("mutable");
    expect(first.lastVersion!.title).toBe("Pets 3.0");

    mutableBody = JSON.stringify({ ...openApi30, info: { title: "Pets 3.0", version: "1.3.0" } });
    const updated = await put("mutable", url("/mutable.json"));
    expect(updated.created).toBe(false);
    // Re-queued, and until the new processing finishes the previous outcome still stands.
    expect(updated.spec!.processingState).toBe(PENDING);
    expect(updated.spec!.lastVersion!.id).toBe(first.lastVersion!.id);
    const second = await processed("mutable", first.lastProcessedAt);
    expect(second.lastVersion!.id).not.toBe(first.lastVersion!.id);
    expect(second.lastVersion).toMatchObject({ apiVersion: "1.3.0", contentHash: sha256(mutableBody) });

    await put("mutable", url("/mutable.json"));
    const third = await processed("mutable", second.lastProcessedAt);
    expect(third.lastVersion!.id).toBe(second.lastVersion!.id);
    expect(third.lastProcessedAt!.getTime()).toBeGreaterThan(second.lastProcessedAt!.getTime());

    mutableBody = "{ not json";
    await put("mutable", url("/mutable.json"));
    const broken = await processed("mutable", third.lastProcessedAt);
    expect(broken.lastProcessErrorCode).toBe(ErrorCode.OPEN_API_SPEC_PROCESS_ERROR_CODE_PARSE_ERROR);
    expect(broken.lastProcessedErrors[0]?.code).toBe("invalid_json");
    expect(broken.lastVersion!.id).toBe(second.lastVersion!.id);

    // Pointing it at another URL serving a valid document clears the error.
    await put("mutable", url("/v31.yaml"));
    const repaired = await processed("mutable", broken.lastProcessedAt);
    expect(repaired).toMatchObject({
      sourceUrl: url("/v31.yaml"),
      lastProcessErrorCode: ErrorCode.OPEN_API_SPEC_PROCESS_ERROR_CODE_UNSPECIFIED,
      lastProcessedErrors: [],
    });
    expect(repaired.lastVersion!.title).toBe("Pets 3.1");
  });

  it("reports progress while the source is fetched; a newer source supersedes the one under way", async () => {
    slowGate = new Promise((resolve) => (openSlowGate = resolve));
    const since = new Date(Date.now() - 1_000);
    await create("slow", url("/slow.json"));
    await eventually(async () => (await get("slow")).processingState === PROGRESS, 10_000);

    const resubmitted = await put("slow", url("/v30.json"));
    expect(resubmitted.spec!.processingState).toBe(PENDING);
    openSlowGate();
    const spec = await processed("slow");
    // The slow fetch's result belonged to an older source: it was dropped, not recorded.
    expect(spec.sourceUrl).toBe(url("/v30.json"));
    expect(spec.lastVersion).toMatchObject({ title: "Pets 3.0", sourceUrl: url("/v30.json") });
    const events = await waitForEvents(
      "content",
      { since, organizationId: org.organizationId },
      { types: ["openapi_spec.created", "openapi_spec.updated", "openapi_spec.processed"] },
    );
    expect(events.filter((event) => event.type === "openapi_spec.processed")).toHaveLength(1);
  });

  it("publishes created, updated, processed and deleted events", async () => {
    const since = new Date(Date.now() - 1_000);
    const { spec } = await create("events", url("/v30.json"));
    const first = await processed("events");
    await put("events", url("/v31.yaml"));
    await processed("events", first.lastProcessedAt);
    await openapi.deleteOpenApiSpec({ caller: org.owner.caller, organizationId: org.organizationId, slug: "events" });
    const events = await waitForEvents(
      "content",
      { since, organizationId: org.organizationId },
      {
        types: ["openapi_spec.created", "openapi_spec.processed", "openapi_spec.updated", "openapi_spec.processed", "openapi_spec.deleted"],
      },
    );
    const byType = (type: string) => events.filter((event) => event.type === type);
    expect(byType("openapi_spec.created")[0]).toMatchObject({
      actor: { userId: org.owner.userId },
      payload: { specId: spec!.id, slug: "events", sourceUrl: url("/v30.json") },
    });
    expect(byType("openapi_spec.updated")[0]!.payload).toMatchObject({ sourceUrl: url("/v31.yaml"), previousSourceUrl: url("/v30.json") });
    expect(byType("openapi_spec.processed").map((event) => event.payload)).toEqual([
      expect.objectContaining({ specId: spec!.id, newVersion: true, errorCode: null }),
      expect.objectContaining({ specId: spec!.id, newVersion: true, errorCode: null }),
    ]);
    expect(byType("openapi_spec.deleted")[0]!.payload).toEqual({ specId: spec!.id, slug: "events" });
  });
});

describe("create, put, get, list, delete", () => {
  it("PUT creates the specification when the slug is free", async () => {
    const answer = await put("fresh", url("/v30.json"));
    expect(answer.created).toBe(true);
    expect(answer.spec).toMatchObject({ slug: "fresh", processingState: PENDING });
    expect((await processed("fresh")).lastVersion!.title).toBe("Pets 3.0");
  });

  it("lists specifications by slug, page by page", async () => {
    for (const slug of ["charlie", "alpha", "bravo"]) await create(slug, url("/v30.json"));
    const first = await openapi.listOpenApiSpecs({ caller: org.owner.caller, organizationId: org.organizationId, page: { pageToken: "", pageSize: 2 } });
    expect(first.specs.map((spec) => spec.slug)).toEqual(["alpha", "bravo"]);
    expect(first.page).toMatchObject({ totalCount: 3 });
    const second = await openapi.listOpenApiSpecs({
      caller: org.owner.caller,
      organizationId: org.organizationId,
      page: { pageToken: first.page!.nextPageToken, pageSize: 2 },
    });
    expect(second.specs.map((spec) => spec.slug)).toEqual(["charlie"]);
    expect(second.page!.nextPageToken).toBe("");
  });

  it("rejects bad slugs and URLs, naming the field and the rule", async () => {
    expect(await failure(create("Pets", url("/v30.json")))).toMatchObject({
      code: "invalid_argument",
      message: "slug: must match pattern ^[a-z0-9]+(?:-[a-z0-9]+)*$",
    });
    expect(await failure(create("a--b", url("/v30.json")))).toMatchObject({ code: "invalid_argument" });
    expect(await failure(create("", url("/v30.json")))).toMatchObject({ code: "invalid_argument", message: "slug: is required" });
    expect(await failure(create("a".repeat(101), url("/v30.json")))).toMatchObject({ message: "slug: must be at most 100 characters" });
    expect(await failure(create("pets", ""))).toMatchObject({ code: "invalid_argument", message: "source.url: is required" });
    expect(await failure(create("pets", "not a url"))).toMatchObject({ code: "invalid_argument", message: "source.url: not a valid absolute URL" });
    expect(await failure(create("pets", "ftp://example.com/openapi.json"))).toMatchObject({
      message: expect.stringMatching(/^source\.url: scheme ftp is not allowed/) as string,
    });
    expect(await failure(put("Bad_Slug", url("/v30.json")))).toMatchObject({
      code: "invalid_argument",
      message: expect.stringMatching(/^specSlug: must match pattern/) as string,
    });
  });

  it("refuses a second specification with the same slug", async () => {
    await create("taken", url("/v30.json"));
    expect(await failure(create("taken", url("/v31.yaml")))).toMatchObject({
      code: "already_exists",
      message: expect.stringContaining('slug "taken"') as string,
    });
  });

  it("deletes a specification with its versions; deleting it again, or a slug that never existed, succeeds", async () => {
    await create("doomed", url("/v30.json"));
    await processed("doomed");
    await openapi.deleteOpenApiSpec({ caller: org.owner.caller, organizationId: org.organizationId, slug: "doomed" });
    expect(await errorCode(get("doomed"))).toBe("not_found");
    expect(await errorCode(openapi.deleteOpenApiSpec({ caller: org.owner.caller, organizationId: org.organizationId, slug: "doomed" }))).toBe("ok");
    expect(await errorCode(openapi.deleteOpenApiSpec({ caller: org.owner.caller, organizationId: org.organizationId, slug: "Not-A-Slug" }))).toBe("ok");
    const versions = await harness.content.orm.em
      .fork()
      .getConnection()
      .execute<{ count: string }[]>("select count(*) from openapi_spec_versions v where not exists (select 1 from openapi_specs s where s.id = v.spec_id)");
    expect(Number(versions[0]!.count)).toBe(0);
  });
});

describe("permissions", () => {
  it("create members manage specifications; read members only view them; guests see none", async () => {
    const creator = await createMember(harness, org.organizationId, { role: "create" });
    const reader = await createMember(harness, org.organizationId, { role: "read" });
    const guest = await createMember(harness, org.organizationId, { role: "guest" });
    const { spec } = await create("shared", url("/v30.json"), creator.caller);
    expect(spec!.permissions).toEqual({ view: true, edit: true });

    expect((await get("shared", reader.caller)).permissions).toEqual({ view: true, edit: false });
    const readerList = await openapi.listOpenApiSpecs({ caller: reader.caller, organizationId: org.organizationId, page: undefined });
    expect(readerList.specs.map((item) => item.slug)).toEqual(["shared"]);
    expect(await failure(create("mine", url("/v30.json"), reader.caller))).toMatchObject({
      code: "permission_denied",
      message: 'You need the "createOpenAPISpec" permission in this organization',
    });
    expect(await errorCode(put("shared", url("/v31.yaml"), reader.caller))).toBe("permission_denied");
    expect(await errorCode(openapi.deleteOpenApiSpec({ caller: reader.caller, organizationId: org.organizationId, slug: "shared" }))).toBe("permission_denied");

    const guestList = await openapi.listOpenApiSpecs({ caller: guest.caller, organizationId: org.organizationId, page: undefined });
    expect(guestList.specs).toEqual([]);
    expect(guestList.page!.totalCount).toBe(0);
    expect(await errorCode(get("shared", guest.caller))).toBe("not_found");
    expect(await errorCode(create("guest", url("/v30.json"), guest.caller))).toBe("permission_denied");

    await openapi.deleteOpenApiSpec({ caller: creator.caller, organizationId: org.organizationId, slug: "shared" });
    expect(await errorCode(get("shared"))).toBe("not_found");
  });

  it("another organization's member gets 404 on every operation", async () => {
    const other = await createOrganization(harness);
    await create("private-api", url("/v30.json"));
    const outsider = other.owner.caller;
    const organizationId = org.organizationId;
    const notFound = { code: "not_found", message: "Organization not found" };
    expect(await failure(openapi.listOpenApiSpecs({ caller: outsider, organizationId, page: undefined }))).toMatchObject(notFound);
    expect(await failure(create("intruder", url("/v30.json"), outsider))).toMatchObject(notFound);
    expect(await failure(get("private-api", outsider))).toMatchObject(notFound);
    expect(await failure(put("private-api", url("/v31.yaml"), outsider))).toMatchObject(notFound);
    expect(await failure(openapi.deleteOpenApiSpec({ caller: outsider, organizationId, slug: "private-api" }))).toMatchObject(notFound);
    // Its own organization holds no specification of that slug.
    expect(await errorCode(get("private-api", outsider, other.organizationId))).toBe("not_found");
    expect((await get("private-api")).sourceUrl).toBe(url("/v30.json"));
  });

  it("an admin of two organizations sees each organization's specifications only under that organization", async () => {
    const other = await createOrganization(harness);
    await createMember(harness, other.organizationId, { email: org.owner.email, role: "admin" });
    await create("same-slug", url("/v30.json"));
    await create("same-slug", url("/v31.yaml"), org.owner.caller, other.organizationId);
    expect((await get("same-slug")).sourceUrl).toBe(url("/v30.json"));
    expect((await get("same-slug", org.owner.caller, other.organizationId)).sourceUrl).toBe(url("/v31.yaml"));
  });
});

describe("without IMPRINT_ALLOW_PRIVATE_FETCH", () => {
  let guarded: ContentHarness;
  let guardedClient: OpenApiClient;

  beforeAll(async () => {
    guarded = await startContentHarness();
    guardedClient = testClient(OpenAPISpecServiceService, guarded.contentAddress);
  });
  afterAll(async () => {
    guardedClient?.close();
    await guarded?.stop();
  });

  it("refuses a loopback source when it is submitted (create and put): invalid_argument naming source.url, nothing kept, the server never asked", async () => {
    const organization = await createOrganization(guarded);
    const before = site.requests.length;
    const submit = { caller: organization.owner.caller, organizationId: organization.organizationId, slug: "internal", sourceUrl: url("/v30.json") };
    for (const attempt of [guardedClient.createOpenApiSpec(submit), guardedClient.putOpenApiSpec(submit)]) {
      expect(await failure(attempt)).toMatchObject({
        code: "invalid_argument",
        message: expect.stringMatching(/^source\.url: 127\.0\.0\.1 is a loopback address; .*IMPRINT_ALLOW_PRIVATE_FETCH=true on the content service/) as string,
      });
    }
    expect(
      await errorCode(guardedClient.getOpenApiSpec({ caller: organization.owner.caller, organizationId: organization.organizationId, slug: "internal" })),
    ).toBe("not_found");
    expect(site.requests.length).toBe(before);
  });
});
