import { randomUUID } from "node:crypto";
import { readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { parse as parseQueryString } from "node:querystring";
import fc from "fast-check";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { z } from "zod";
import { eventually } from "@imprint/runtime/testing";
import type { Route } from "../src/route.js";
import type { DirectRoute } from "../src/routes/deps.js";
import { gatewayRoutes } from "../src/routes/index.js";
import type { UpstreamAddresses, UpstreamClients } from "../src/upstreams.js";
import { findUnstorableText } from "../src/validation.js";
import { assertContract } from "./support/contract.js";
import { commitEdits, startEditingStack, stopEditingStack, type EditingClient } from "./support/editing.js";
import { createCollection, createMember, createOrganization, createSpace, type TestOrganization } from "./support/factories.js";
import { call } from "./support/http.js";
import type { TestStack } from "./support/stack.js";

/**
 * Bad input, as a property, for every route of the gateway's route table: requests built from
 * GitBook's OpenAPI schema of the operation (or, where GitBook has none, the route's own schemas)
 * with wrong types, missing and extra fields, overlong strings, control characters, NUL and
 * unpaired surrogates, edited list cursors (operator objects included) and ids that name nothing.
 * Whatever arrives, the answer is never a 5xx, every 4xx is in the error shape, and the
 * organization's data reads the same afterwards.
 *
 * A request that could change data (not a GET, every id naming the fixture) is always one the
 * gateway must refuse: the route's schemas tell whether it would pass, and one that would gets a
 * NUL added (in its body or a path parameter). Requests naming nothing do reach the services.
 */

const SEED = 20_250_611;
/** Random requests per route, after the one-NUL-per-input examples (every route of the gateway). */
const RUNS_PER_ROUTE = 5;

// ---------------------------------------------------------------------------------------------
// The route table and GitBook's operations

type JsonSchema = Record<string, unknown>;
interface Operation {
  parameters?: JsonSchema[];
  requestBody?: JsonSchema;
}

const require = createRequire(import.meta.url);
const spec = JSON.parse(readFileSync(require.resolve("@gitbook/api/spec/openapi.json"), "utf8")) as {
  paths: Record<string, Record<string, Operation>>;
};

/** Follows `$ref`s inside GitBook's document. */
function resolve(node: unknown): JsonSchema {
  let current = node as JsonSchema;
  for (let hops = 0; typeof current?.$ref === "string" && hops < 20; hops++) {
    current = current.$ref
      .slice(2)
      .split("/")
      .reduce<unknown>((at, segment) => (at as Record<string, unknown>)[segment.replace(/~1/g, "/").replace(/~0/g, "~")], spec) as JsonSchema;
  }
  return current ?? {};
}

function operationOf(method: string, path: string): Operation | undefined {
  const shape = path.replace(/^\/v1/, "").replace(/[:*]\w+/g, "{}");
  const template = Object.keys(spec.paths).find((candidate) => candidate.replace(/\{[^}]+\}/g, "{}") === shape);
  return template ? spec.paths[template]?.[method.toLowerCase()] : undefined;
}

/** A zod schema as JSON Schema (input side: what a client sends). */
function ownSchema(schema: z.ZodType | undefined): JsonSchema | undefined {
  return schema ? z.toJSONSchema(schema, { io: "input", unrepresentable: "any" }) : undefined;
}

interface TestedRoute {
  method: string;
  path: string;
  schemas: Route["schemas"];
  authenticated: boolean;
  /** Query parameters: GitBook's, then the route's own. */
  query: Map<string, JsonSchema>;
  body: JsonSchema | undefined;
}

/** Stands in for every upstream client: route factories only keep references to them. */
const detached: unknown = new Proxy(() => undefined, {
  get: () => detached,
  apply: () => {
    throw new Error("routes are built here to be listed, not run");
  },
});

function testedRoutes(): TestedRoute[] {
  const routes = gatewayRoutes({
    upstreams: detached as UpstreamClients,
    upstreamAddresses: detached as UpstreamAddresses,
    urls: { api: "http://imprint.invalid", app: "http://imprint.invalid", reader: "http://imprint.invalid/sites" },
  });
  const toTested = (route: Route | DirectRoute, schemas: Route["schemas"], authenticated: boolean): TestedRoute => {
    const operation = operationOf(route.method, route.path);
    const query = new Map<string, JsonSchema>();
    for (const parameter of (operation?.parameters ?? []).map(resolve)) {
      if (parameter.in === "query") query.set(parameter.name as string, resolve(parameter.schema));
    }
    const ownQuery = ownSchema(schemas.query);
    for (const [name, schema] of Object.entries((ownQuery?.properties as Record<string, JsonSchema> | undefined) ?? {})) {
      if (!query.has(name)) query.set(name, schema);
    }
    const gitbookBody = (resolve(operation?.requestBody).content as Record<string, { schema?: unknown }> | undefined)?.["application/json"]?.schema;
    return {
      method: route.method,
      path: route.path,
      schemas,
      authenticated,
      query,
      body: gitbookBody ? resolve(gitbookBody) : ownSchema(schemas.body),
    };
  };
  return [...routes.direct.map((route) => toTested(route, {}, false)), ...routes.api.map((route) => toTested(route, route.schemas, true))];
}

const ROUTES = testedRoutes();
const METHODS_WITH_BODY = new Set(["POST", "PUT", "PATCH"]);

// ---------------------------------------------------------------------------------------------
// Values

/** Operator objects MikroORM would honour if they reached a query. */
const operator = fc.constantFrom<unknown>({ $gt: "" }, { $in: ["x"] }, { $ne: null }, { $like: "%" }, { $re: ".*" }, { $or: [{}] });

const nastyString = fc.oneof(
  // Text PostgreSQL cannot hold, or that has no UTF-8 form.
  { weight: 2, arbitrary: fc.constantFrom("\u0000", "a\u0000b", "\ud800", "x\udfff", "\udc00\ud800") },
  fc.constantFrom(
    "",
    " ",
    "\t\n",
    "null",
    "NaN",
    "-0",
    "1e309",
    "__proto__",
    "constructor",
    "$where",
    "' or 1=1 --",
    "../../etc/passwd",
    "%E0%A4%A",
    "\u202eevil",
    "📘",
  ),
  fc.string({ maxLength: 12, unit: fc.constantFrom("\u0000", "\ud800", "\udfff", "\u0007", "\u001b", "\u007f", "\u2028", "a", "%", '"', "\\", "😀") }),
  fc.string({ maxLength: 24, unit: "binary" }),
  // Past every field's limit (and, in a URL, past the 16 KiB the HTTP parser accepts).
  fc.integer({ min: 129, max: 70_000 }).map((length) => "x".repeat(length)),
);

const anyJson: fc.Arbitrary<unknown> = fc.oneof(
  fc.integer(),
  fc.double(),
  fc.boolean(),
  fc.constant(null),
  nastyString,
  operator,
  fc.array(nastyString, { maxLength: 3 }),
  fc.dictionary(nastyString, nastyString, { maxKeys: 3 }),
);

function typesOf(schema: JsonSchema): string[] {
  return Array.isArray(schema.type) ? (schema.type as string[]) : typeof schema.type === "string" ? [schema.type] : [];
}

/** A value of the wrong type for `schema`, or anything at all. */
function malformed(schema: JsonSchema): fc.Arbitrary<unknown> {
  const types = typesOf(schema);
  const wrong = types.includes("string")
    ? fc.oneof(fc.integer(), fc.boolean(), fc.constant(null), operator, fc.array(fc.string()))
    : types.includes("number") || types.includes("integer")
      ? fc.oneof(nastyString, fc.constantFrom<unknown>(1.5, -1, 1e308, Number.MAX_SAFE_INTEGER + 2, "10"))
      : types.includes("boolean")
        ? fc.constantFrom<unknown>("true", 1, 0, "yes")
        : anyJson;
  return fc.oneof(wrong, nastyString, anyJson);
}

/** A value that fits `schema` as far as a generator can tell (the route may still refuse it). */
function plausible(schema: JsonSchema, depth = 0): fc.Arbitrary<unknown> {
  if (Array.isArray(schema.enum) && schema.enum.length > 0) return fc.constantFrom(...(schema.enum as unknown[]));
  if ("const" in schema) return fc.constant(schema.const);
  const alternatives = (schema.oneOf ?? schema.anyOf) as unknown[] | undefined;
  if (alternatives?.length) return fc.oneof(...alternatives.map((alternative) => plausible(resolve(alternative), depth)));
  if (Array.isArray(schema.allOf)) {
    return fc
      .tuple(...(schema.allOf as unknown[]).map((part) => plausible(resolve(part), depth)))
      .map((parts) => Object.assign({}, ...parts.filter((part) => typeof part === "object" && part !== null && !Array.isArray(part))) as unknown);
  }
  if (depth > 3) return fc.constant(null);
  const types = typesOf(schema);
  if (types.includes("object") || schema.properties) {
    const properties = Object.entries((schema.properties as Record<string, unknown> | undefined) ?? {});
    const required = new Set((schema.required as string[] | undefined) ?? []);
    const record: Record<string, fc.Arbitrary<unknown>> = {};
    for (const [name, property] of properties) record[name] = plausible(resolve(property), depth + 1);
    return fc.record(record, { requiredKeys: properties.map(([name]) => name).filter((name) => required.has(name)) });
  }
  if (types.includes("array")) return fc.array(plausible(resolve(schema.items), depth + 1), { maxLength: 3 });
  if (types.includes("integer") || types.includes("number")) {
    return fc.integer({ min: Math.max(-1e6, Number(schema.minimum ?? 0)), max: Math.min(1e6, Number(schema.maximum ?? 100)) });
  }
  if (types.includes("boolean")) return fc.boolean();
  if (types.includes("string")) {
    if (schema.format === "uri" || schema.format === "url") return fc.constant("https://example.invalid/x");
    return fc.string({
      minLength: Number(schema.minLength ?? 0),
      maxLength: Math.max(Number(schema.minLength ?? 0), Math.min(Number(schema.maxLength ?? 20), 20)),
    });
  }
  return anyJson;
}

/** Every property a body schema names, through allOf/oneOf. */
function propertiesOf(schema: JsonSchema, depth = 0): Map<string, JsonSchema> {
  const found = new Map<string, JsonSchema>();
  if (depth > 4) return found;
  for (const [name, property] of Object.entries((schema.properties as Record<string, unknown> | undefined) ?? {})) found.set(name, resolve(property));
  for (const part of [...((schema.allOf as unknown[]) ?? []), ...((schema.oneOf as unknown[]) ?? []), ...((schema.anyOf as unknown[]) ?? [])]) {
    for (const [name, property] of propertiesOf(resolve(part), depth + 1)) found.set(name, property);
  }
  return found;
}

type Body = { json: unknown } | { text: string; contentType?: string } | undefined;

function bodyArbitrary(route: TestedRoute): fc.Arbitrary<Body> {
  if (!METHODS_WITH_BODY.has(route.method)) return fc.constant(undefined);
  const schema = route.body ?? {};
  const properties = [...propertiesOf(schema)];
  const names = properties.map(([name]) => name);
  // A plausible body with some fields dropped, some replaced by malformed values, some added.
  const edited = fc
    .tuple(
      plausible(schema),
      names.length > 0 ? fc.subarray(names) : fc.constant<string[]>([]),
      properties.length > 0
        ? fc.array(
            fc.constantFrom(...properties).chain(([name, property]) => malformed(property).map((value) => [name, value] as const)),
            { maxLength: 3 },
          )
        : fc.constant([]),
      fc.array(fc.tuple(nastyString, anyJson), { maxLength: 2 }),
    )
    .map(([base, dropped, replaced, extra]): Body => {
      if (typeof base !== "object" || base === null || Array.isArray(base)) return { json: base };
      const body: Record<string, unknown> = { ...(base as Record<string, unknown>) };
      for (const name of dropped) delete body[name];
      for (const [name, value] of replaced) body[name] = value;
      for (const [name, value] of extra) body[name] = value;
      return { json: body };
    });
  return fc.oneof(
    { weight: 6, arbitrary: edited },
    { weight: 1, arbitrary: anyJson.map((json): Body => ({ json })) },
    {
      weight: 1,
      arbitrary: fc.constantFrom<Body>(undefined, { text: "{" }, { text: '{"a":}' }, { text: "[".repeat(100_000) }, { text: "1e309" }, { text: "\u0000" }),
    },
    { weight: 1, arbitrary: plausible(schema).map((json): Body => ({ text: JSON.stringify(json) ?? "null", contentType: "text/plain" })) },
  );
}

// ---------------------------------------------------------------------------------------------
// Requests

/** Percent-encodes text as a client would; an unpaired surrogate goes as its WTF-8 bytes (no UTF-8 form exists). */
function encode(text: string): string {
  let out = "";
  for (const character of text) {
    const code = character.codePointAt(0)!;
    if (code >= 0xd800 && code <= 0xdfff) {
      out += [0xe0 | (code >> 12), 0x80 | ((code >> 6) & 0x3f), 0x80 | (code & 0x3f)].map((byte) => `%${byte.toString(16).toUpperCase()}`).join("");
    } else {
      out += encodeURIComponent(character);
    }
  }
  return out;
}

/** A path parameter: the fixture's id, an id that names nothing, or raw bytes sent as they are. */
type PathValue = { fixture: string } | { text: string } | { raw: string };

interface Request {
  path: Record<string, PathValue>;
  query: [string, string][];
  body: Body;
  /** The owner's token, or this Authorization header (none when undefined). */
  authorization: "owner" | { header: string | undefined };
}

const paramNames = (path: string) => [...path.matchAll(/[:*](\w+)/g)].map((match) => match[1]!);

// An id naming nothing: never a number (a change request's number would name the fixture's), never a dot segment.
const strayId = fc.oneof(
  fc.uuid().map((text): PathValue => ({ text })),
  nastyString.map((text): PathValue => ({ text: `zz${text}` })),
  fc.constantFrom<PathValue>({ raw: "zz%E0%A4%A" }, { raw: "zz%ED%A0%80" }, { raw: "zz%" }, { raw: "zz%00" }, { raw: "zz%2F.." }),
);

/** A list cursor as a caller could edit one: forged JSON (operators included), a real one changed, or another list's. */
function cursorArbitrary(realCursor: () => string): fc.Arbitrary<string> {
  const forged = fc
    .tuple(fc.constantFrom("joinedAt,id:desc", "position,id:asc", "createdAt,id:asc", "x"), fc.array(fc.oneof(operator, anyJson), { maxLength: 3 }))
    .map(([s, v]) => Buffer.from(JSON.stringify({ s, v })).toString("base64url"));
  return fc.oneof(
    forged,
    forged.map((token) => `${token}.${realCursor().split(".")[1]}`),
    fc.constant(0).map(() => realCursor()),
    fc.constant(0).map(() => `${realCursor()}x`),
    nastyString,
  );
}

function requestArbitrary(route: TestedRoute, realCursor: () => string): fc.Arbitrary<Request> {
  const path: Record<string, fc.Arbitrary<PathValue>> = {};
  for (const name of paramNames(route.path))
    path[name] = fc.oneof({ weight: 3, arbitrary: fc.constant<PathValue>({ fixture: name }) }, { weight: 1, arbitrary: strayId });
  const queryEntries = [...route.query].map(([name, schema]) =>
    fc.oneof(
      fc.constant<[string, string][]>([]),
      (name === "page" ? cursorArbitrary(realCursor) : plausible(schema).map(String)).map((value): [string, string][] => [[name, value]]),
      malformed(schema).map((value): [string, string][] =>
        Array.isArray(value) ? value.map((item) => [name, String(item)]) : [[name, typeof value === "string" ? value : (JSON.stringify(value) ?? "")]],
      ),
    ),
  );
  const query = fc
    .tuple(fc.tuple(...queryEntries), fc.array(fc.tuple(nastyString, nastyString), { maxLength: 2 }))
    .map(([known, extra]) => [...known.flat(), ...extra]);
  return fc.record({
    path: fc.record(path),
    query,
    body: bodyArbitrary(route),
    authorization: fc.oneof(
      { weight: 9, arbitrary: fc.constant<Request["authorization"]>("owner") },
      {
        weight: 1,
        arbitrary: fc
          .constantFrom(undefined, "Bearer imp_0000000000000000000000000000", "Basic eDp5", `Bearer ${"a".repeat(5000)}`)
          .map((header) => ({ header })),
      },
    ),
  });
}

/**
 * Besides the random requests, one per input of the route with text no store can hold in it alone
 * (every path parameter, query parameter, body field and its fields), so each is tried every run.
 */
function unstorableExamples(route: TestedRoute): Request[] {
  const base: Request = {
    path: Object.fromEntries(paramNames(route.path).map((name) => [name, { fixture: name }])),
    query: [],
    body: METHODS_WITH_BODY.has(route.method) ? { json: {} } : undefined,
    authorization: "owner",
  };
  // NUL everywhere; an unpaired surrogate only in JSON (a URL's bytes decode to U+FFFD instead).
  const poison = () => "a\u0000b";
  const examples: Request[] = [];
  for (const name of paramNames(route.path)) examples.push({ ...base, path: { ...base.path, [name]: { text: `zz${poison()}` } } });
  for (const name of route.query.keys()) examples.push({ ...base, query: [[name, poison()]] });
  if (METHODS_WITH_BODY.has(route.method)) {
    for (const [name, property] of propertiesOf(route.body ?? {})) {
      examples.push({ ...base, body: { json: { [name]: poison() } } }, { ...base, body: { json: { [name]: "a\ud800b" } } });
      for (const [inner] of propertiesOf(property)) examples.push({ ...base, body: { json: { [name]: { [inner]: poison() } } } });
    }
  }
  return examples;
}

// ---------------------------------------------------------------------------------------------
// What the gateway refuses before any upstream call (its own checks, run here as an oracle)

function decodePathValue(value: string): string {
  try {
    return decodeURIComponent(value);
  } catch {
    return value;
  }
}

/** The body as the gateway reads it: undefined when none is sent; "refused" when reading it fails. */
function bodyAsRead(body: Body): unknown {
  if (body === undefined) return undefined;
  const text = "json" in body ? (JSON.stringify(body.json) ?? "null") : body.text;
  if (text === "") return undefined;
  if ("text" in body && body.contentType) return "refused";
  try {
    const parsed = JSON.parse(text) as unknown;
    return findUnstorableText(parsed, "body") === undefined ? parsed : "refused";
  } catch {
    return "refused";
  }
}

function gatewayRefuses(route: TestedRoute, request: Request, rawPath: Record<string, string>): boolean {
  if (!route.authenticated) return false;
  if (request.authorization !== "owner") return true;
  const body = METHODS_WITH_BODY.has(route.method) ? bodyAsRead(request.body) : undefined;
  if (body === "refused") return true;
  const params = Object.fromEntries(Object.entries(rawPath).map(([name, value]) => [name, decodePathValue(value)]));
  const query = parseQueryString(request.query.map(([name, value]) => `${encode(name)}=${encode(value)}`).join("&"));
  const fails = (schema: z.ZodType | undefined, value: unknown) =>
    schema !== undefined && (findUnstorableText(value, "x") !== undefined || !schema.safeParse(value).success);
  return fails(route.schemas.params, params) || fails(route.schemas.query, query) || fails(route.schemas.body, body);
}

// ---------------------------------------------------------------------------------------------
// The fixture and what is compared before and after

let stack: TestStack;
let editing: EditingClient;
let org: TestOrganization;
const fixture: Record<string, string> = {};
let memberCursor = "";

/** The fixture's id for a path parameter (comment and reply ids depend on the prefix). */
function fixtureValue(route: TestedRoute, name: string): string {
  const underChangeRequest = route.path.includes("/change-requests/:changeRequestId/comments");
  if (name === "commentId" && underChangeRequest) return fixture.changeRequestCommentId!;
  if (name === "commentReplyId" && underChangeRequest) return fixture.changeRequestReplyId!;
  const value = fixture[name];
  if (value === undefined) throw new Error(`no fixture value for :${name} (${route.path})`);
  return value;
}

async function readJson(path: string): Promise<unknown> {
  const response = await fetch(`${stack.baseUrl}${path}`, { headers: { authorization: `Bearer ${org.owner.token}` } });
  return { status: response.status, body: await response.json() };
}

/** What the organization's data reads as through the API. */
async function snapshot(): Promise<string> {
  const { organizationId, spaceId, collectionId, changeRequestId, commentId, changeRequestCommentId, siteId } = fixture;
  const paths = [
    `/v1/orgs/${organizationId}`,
    `/v1/orgs/${organizationId}/members?limit=1000`,
    `/v1/orgs/${organizationId}/spaces?limit=1000`,
    `/v1/orgs/${organizationId}/collections?limit=1000`,
    `/v1/orgs/${organizationId}/translations?limit=1000`,
    `/v1/orgs/${organizationId}/teams?limit=1000`,
    `/v1/orgs/${organizationId}/teams/${fixture.teamId}/members?limit=1000`,
    `/v1/orgs/${organizationId}/saml?limit=1000`,
    `/v1/spaces/${spaceId}/permissions/teams?limit=1000`,
    `/v1/collections/${collectionId}/permissions/teams?limit=1000`,
    `/v1/spaces/${spaceId}/permissions/users?limit=1000`,
    `/v1/collections/${collectionId}/permissions/users?limit=1000`,
    `/v1/spaces/${spaceId}/permissions/aggregate?limit=1000`,
    `/v1/orgs/${organizationId}/openapi?limit=1000`,
    `/v1/org/${organizationId}/imports?limit=1000`,
    `/v1/collections/${collectionId}`,
    `/v1/spaces/${spaceId}`,
    `/v1/spaces/${spaceId}/content/pages`,
    `/v1/spaces/${spaceId}/change-requests?status=open&limit=1000`,
    `/v1/spaces/${spaceId}/change-requests/${changeRequestId}`,
    `/v1/spaces/${spaceId}/change-requests/${changeRequestId}/content/pages`,
    `/v1/spaces/${spaceId}/comments?limit=1000`,
    `/v1/spaces/${spaceId}/comments/${commentId}/replies?limit=1000`,
    `/v1/spaces/${spaceId}/change-requests/${changeRequestId}/comments?limit=1000`,
    `/v1/spaces/${spaceId}/change-requests/${changeRequestId}/comments/${changeRequestCommentId}/replies?limit=1000`,
    `/v1/spaces/${spaceId}/change-requests/${changeRequestId}/requested-reviewers?limit=1000`,
    `/v1/spaces/${spaceId}/change-requests/${changeRequestId}/reviews?limit=1000`,
    `/v1/orgs/${organizationId}/sites?limit=1000`,
    `/v1/orgs/${organizationId}/sites/${siteId}/site-spaces?limit=1000`,
    `/v1/orgs/${organizationId}/sites/${siteId}/share-links?limit=1000`,
    `/v1/orgs/${organizationId}/sites/${siteId}/permissions/users?limit=1000`,
    `/v1/orgs/${organizationId}/sites/${siteId}/permissions/teams?limit=1000`,
    `/v1/orgs/${organizationId}/sites/${siteId}/redirects?limit=1000`,
    `/v1/orgs/${organizationId}/sites/${siteId}/redirects?draft=true&limit=1000`,
    `/v1/orgs/${organizationId}/sites/${siteId}/sections?limit=1000`,
    `/v1/orgs/${organizationId}/sites/${siteId}/section-groups?limit=1000`,
    `/v1/orgs/${organizationId}/sites/${siteId}/publishing/auth`,
    `/v1/orgs/${organizationId}/sites/${siteId}/adaptive-schema`,
  ];
  // Cursors are signed per request path and would differ for no reason; none appear with limit=1000.
  return JSON.stringify(await Promise.all(paths.map(readJson)), null, 1);
}

/**
 * Counters and indexes are kept by event consumers: the baseline is taken once the space counts what
 * the fixture made (one open change request, one comment on the space: collaboration's events, applied
 * by content, however late on a busy machine), and is still.
 */
async function settledSnapshot(): Promise<string> {
  await eventually(async () => {
    const space = ((await readJson(`/v1/spaces/${fixture.spaceId}`)) as { body: { changeRequests?: number; changeRequestsOpen?: number; comments?: number } })
      .body;
    return (space.changeRequests === 1 && space.changeRequestsOpen === 1 && space.comments === 1) || undefined;
  }, 30_000);
  let previous = await snapshot();
  for (;;) {
    await new Promise((resolve) => setTimeout(resolve, 300));
    const current = await snapshot();
    if (current === previous) return current;
    previous = current;
  }
}

beforeAll(async () => {
  ({ stack, editing } = await startEditingStack());
  org = await createOrganization(stack);
  const member = await createMember(stack, org, { role: "read" });
  await createMember(stack, org, { role: "edit" });
  const space = await createSpace(stack, org);
  const collection = await createCollection(stack, org);
  await commitEdits(editing, { userId: org.owner.userId, spaceId: space.id }, (draft) =>
    draft.createPage({ pageId: "guide", title: "Guide", markdown: "# Setup\n\nRun it." }),
  );
  const owner = { token: org.owner.token };
  const changeRequest = await call(stack, "POST", `/v1/spaces/${space.id}/change-requests`, { ...owner, json: { subject: "Fixture" } });
  const pages = await call(stack, "GET", `/v1/spaces/${space.id}/content/pages`, owner);
  const revision = await call(stack, "GET", `/v1/spaces/${space.id}/content`, owner);
  const comment = await call(stack, "POST", `/v1/spaces/${space.id}/comments`, { ...owner, json: { body: { markdown: "A comment" } } });
  const reply = await call(stack, "POST", `/v1/spaces/${space.id}/comments/${comment.body.id}/replies`, { ...owner, json: { body: { markdown: "A reply" } } });
  const crBase = `/v1/spaces/${space.id}/change-requests/${changeRequest.body.id}`;
  const crComment = await call(stack, "POST", `${crBase}/comments`, { ...owner, json: { body: { markdown: "On the change request" } } });
  const crReply = await call(stack, "POST", `${crBase}/comments/${crComment.body.id}/replies`, { ...owner, json: { body: { markdown: "Its reply" } } });
  // The reader is asked to review the change request, and reviews it (a requested reviewer may).
  await call(stack, "POST", `${crBase}/requested-reviewers`, { ...owner, json: { users: [member.userId] } });
  const review = await call(stack, "POST", `${crBase}/reviews`, { token: member.token, json: { status: "approved" } });
  // Imprint's translation settings follow interface.md, not GitBook's newer createTranslation: no contract check.
  const translationResponse = await fetch(`${stack.baseUrl}/v1/orgs/${org.organizationId}/translations`, {
    method: "POST",
    headers: { authorization: `Bearer ${org.owner.token}`, "content-type": "application/json" },
    body: JSON.stringify({ title: "French", languages: ["fr"] }),
  });
  const translation = { status: translationResponse.status, body: (await translationResponse.json()) as { id: string } };
  const site = await call(stack, "POST", `/v1/orgs/${org.organizationId}/sites`, { ...owner, json: { title: "Fixture site", spaces: [space.id] } });
  const siteSpaces = await call(stack, "GET", `/v1/orgs/${org.organizationId}/sites/${site.body.id}/site-spaces`, owner);
  const shareLink = await call(stack, "POST", `/v1/orgs/${org.organizationId}/sites/${site.body.id}/share-links`, { ...owner, json: { name: "Fixture" } });
  const redirect = await call(stack, "POST", `/v1/orgs/${org.organizationId}/sites/${site.body.id}/redirects`, {
    ...owner,
    json: { source: "/fixture", destination: { kind: "external", url: "https://example.com/fixture" } },
  });
  const section = await call(stack, "POST", `/v1/orgs/${org.organizationId}/sites/${site.body.id}/sections`, {
    ...owner,
    json: { spaceId: space.id, title: "Fixture section" },
  });
  const group = await call(stack, "POST", `/v1/orgs/${org.organizationId}/sites/${site.body.id}/section-groups`, {
    ...owner,
    json: { title: "Fixture group", sections: [section.body.id] },
  });
  const link = await call(stack, "POST", `/v1/orgs/${org.organizationId}/sites/${site.body.id}/external-links`, {
    ...owner,
    json: { title: "Fixture link", url: "https://example.com" },
  });
  const team = await call(stack, "PUT", `/v1/orgs/${org.organizationId}/teams`, { ...owner, json: { title: "Fixture team" } });
  const members = await call(stack, "GET", `/v1/orgs/${org.organizationId}/members?limit=1`, owner);
  memberCursor = members.body.next.page as string;
  Object.assign(fixture, {
    organizationId: org.organizationId,
    userId: member.userId,
    spaceId: space.id,
    collectionId: collection.id,
    changeRequestId: changeRequest.body.id as string,
    pageId: pages.body.pages[0].id as string,
    pagePath: pages.body.pages[0].path as string,
    revisionId: revision.body.id as string,
    documentId: pages.body.pages[0].documentId as string,
    commentId: comment.body.id as string,
    commentReplyId: reply.body.id as string,
    changeRequestCommentId: crComment.body.id as string,
    changeRequestReplyId: crReply.body.id as string,
    reviewId: review.body.id as string,
    translationSettingsId: translation.body.id,
    siteId: site.body.id as string,
    siteSpaceId: siteSpaces.body.items[0].id as string,
    shareLinkId: shareLink.body.id as string,
    siteRedirectId: redirect.body.id as string,
    siteSectionId: section.body.id as string,
    siteSectionGroupId: group.body.id as string,
    siteExternalLinkId: link.body.id as string,
    teamId: team.body.id as string,
    // Ids of things the fixture does not have: every request naming them reads "not found".
    fileId: "no-such-file",
    reusableContentId: "no-such-reusable-content",
    inviteId: randomUUID(),
    specSlug: "no-such-spec",
    versionId: randomUUID(),
    emailDomain: "example.com",
    exportId: randomUUID(),
    importRunId: randomUUID(),
    samlProviderId: randomUUID(),
    providerId: randomUUID(),
    // No integration: its routes without a token (public endpoints, images, scripts) must not reach a script.
    integrationName: `no-such-integration-${randomUUID().slice(0, 8)}`,
    installationId: randomUUID(),
    eventId: randomUUID(),
    auditEventId: randomUUID(),
    assetId: randomUUID(),
    tokenId: randomUUID(),
    path: "webhook",
  });
  for (const response of [changeRequest, comment, reply, crComment, crReply, translation, site, shareLink, redirect, section, group, team])
    expect(response.status).toBeLessThan(300);
}, 120_000);
afterAll(() => stopEditingStack(stack, editing));

// ---------------------------------------------------------------------------------------------
// The property

/** Adds text no store can hold where the gateway reads it first: the body, else a path parameter. */
function poisoned(route: TestedRoute, request: Request, pick: number): Request {
  const names = paramNames(route.path);
  if (METHODS_WITH_BODY.has(route.method) && (pick % 2 === 0 || names.length === 0)) {
    const json = request.body && "json" in request.body ? request.body.json : undefined;
    const poison = pick % 4 === 0 ? "\u0000" : "\ud800";
    return {
      ...request,
      body: { json: typeof json === "object" && json !== null && !Array.isArray(json) ? { ...json, title: poison } : [json ?? null, poison] },
    };
  }
  const name = names[pick % names.length]!;
  return { ...request, path: { ...request.path, [name]: { text: `zz\u0000${pick}` } } };
}

async function send(route: TestedRoute, request: Request, rawPath: Record<string, string>): Promise<{ status: number; url: string }> {
  let path = route.path;
  for (const [name, value] of Object.entries(rawPath)) path = path.replace(new RegExp(`[:*]${name}\\b`), () => value);
  const query = request.query.map(([name, value]) => `${encode(name)}=${encode(value)}`).join("&");
  const url = `${stack.baseUrl}${path}${query ? `?${query}` : ""}`;
  const headers: Record<string, string> = {};
  if (request.authorization === "owner") headers.authorization = `Bearer ${org.owner.token}`;
  else if (request.authorization.header !== undefined) headers.authorization = request.authorization.header;
  let body: string | undefined;
  if (request.body && METHODS_WITH_BODY.has(route.method)) {
    body = "json" in request.body ? (JSON.stringify(request.body.json) ?? "null") : request.body.text;
    headers["content-type"] = "json" in request.body ? "application/json" : (request.body.contentType ?? "application/json");
  }
  const response = await fetch(url, { method: route.method, headers, body });
  const text = await response.text();
  const where = `${route.method} ${url.slice(0, 300)} → ${response.status}: ${text.slice(0, 300)}`;
  expect(response.status, where).toBeLessThan(500);
  if (response.status >= 400) {
    expect(
      () => assertContract({ method: route.method, url }, { status: response.status, contentType: response.headers.get("content-type"), text }),
      where,
    ).not.toThrow();
  }
  return { status: response.status, url: where };
}

describe("malformed requests, every route", () => {
  let baseline = "";
  beforeAll(async () => {
    baseline = await settledSnapshot();
  }, 60_000);

  it("covers every route of the table", () => {
    expect(ROUTES.length).toBeGreaterThan(90);
    for (const route of ROUTES) for (const name of paramNames(route.path)) expect(() => fixtureValue(route, name), route.path).not.toThrow();
  });

  it.each(ROUTES.map((route, index) => ({ route, index, name: `${route.method} ${route.path}` })))("$name", async ({ route, index }) => {
    const mutating = route.method !== "GET";
    await fc.assert(
      fc.asyncProperty(
        requestArbitrary(route, () => memberCursor),
        fc.nat(),
        async (generated, pick) => {
          const rawPathOf = (request: Request) =>
            Object.fromEntries(
              Object.entries(request.path).map(([name, value]) => [
                name,
                "fixture" in value ? encode(fixtureValue(route, name)) : "raw" in value ? value.raw : encode(value.text),
              ]),
            );
          const namesFixture = Object.values(generated.path).every((value) => "fixture" in value);
          let request = generated;
          // Could it change data? Then it must be refused: make it so when the route would take it.
          // (Routes without a token, such as a SAML provider's ACS URL, name no fixture that exists.)
          if (mutating && route.authenticated && (namesFixture || route.method === "PUT") && !gatewayRefuses(route, request, rawPathOf(request))) {
            request = poisoned(route, request, pick);
            expect(gatewayRefuses(route, request, rawPathOf(request))).toBe(true);
          }
          const { status, url } = await send(route, request, rawPathOf(request));
          if (mutating) {
            // Refused, or (an id naming nothing) not found; deleting nothing is a 204.
            expect(status >= 400 || (route.method === "DELETE" && status === 204), url).toBe(true);
          }
        },
      ),
      { seed: SEED + index, numRuns: RUNS_PER_ROUTE, examples: unstorableExamples(route).map((request): [Request, number] => [request, 0]) },
    );
    if (mutating) expect(await snapshot()).toBe(baseline);
  });

  it("leaves the organization's data as it was", async () => {
    expect(await snapshot()).toBe(baseline);
  });
});
