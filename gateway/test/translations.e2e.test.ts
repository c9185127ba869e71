import { createRequire } from "node:module";
import { Ajv2020 } from "ajv/dist/2020.js";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { assertContract } from "./support/contract.js";
import { createMember, createOrganization, type TestOrganization } from "./support/factories.js";
import type { CallResult } from "./support/http.js";
import { startStack, type TestStack } from "./support/stack.js";

/**
 * Translation settings follow interface.md (`translation-settings` with `title` and `languages`).
 * GitBook's current OpenAPI document describes a different resource on these paths (`Translation`:
 * a translation run with `source`, `language`, `instructions`), so success bodies are checked
 * against interface.md's shape below instead; error bodies still go through the OpenAPI contract.
 */
const require = createRequire(import.meta.url);
const addFormats = require("ajv-formats") as (ajv: Ajv2020) => Ajv2020;
const ajv = addFormats(new Ajv2020({ strict: true, allErrors: true }));
const settingsSchema = {
  type: "object",
  additionalProperties: false,
  required: ["object", "id", "title", "languages", "createdAt", "updatedAt", "permissions", "urls"],
  properties: {
    object: { const: "translation-settings" },
    id: { type: "string", minLength: 1 },
    title: { type: "string", minLength: 1 },
    languages: { type: "array", items: { type: "string", minLength: 1 } },
    createdAt: { type: "string", format: "date-time" },
    updatedAt: { type: "string", format: "date-time" },
    permissions: {
      type: "object",
      additionalProperties: false,
      required: ["view", "edit"],
      properties: { view: { type: "boolean" }, edit: { type: "boolean" } },
    },
    urls: { type: "object", additionalProperties: false, required: ["location"], properties: { location: { type: "string", format: "uri" } } },
  },
};
const validateSettings = ajv.compile(settingsSchema);
const validateList = ajv.compile({
  type: "object",
  additionalProperties: false,
  required: ["items", "count"],
  properties: {
    items: { type: "array", items: settingsSchema },
    count: { type: "integer", minimum: 0 },
    next: { type: "object", additionalProperties: false, required: ["page"], properties: { page: { type: "string", minLength: 1 } } },
  },
});

/** A request to the gateway whose answer is checked: errors against GitBook's contract, successes against interface.md. */
async function call(stack: TestStack, method: string, path: string, options: { token: string; json?: unknown }): Promise<CallResult> {
  const url = `${stack.baseUrl}${path}`;
  const response = await fetch(url, {
    method,
    headers: { authorization: `Bearer ${options.token}`, ...(options.json !== undefined ? { "content-type": "application/json" } : {}) },
    body: options.json !== undefined ? JSON.stringify(options.json) : undefined,
  });
  const text = await response.text();
  const body = text === "" ? undefined : (JSON.parse(text) as unknown);
  if (response.status >= 400) {
    assertContract({ method, url }, { status: response.status, contentType: response.headers.get("content-type"), text });
  } else if (response.status === 204) {
    expect(text).toBe("");
  } else {
    const validate = method === "GET" && /\/translations$/.test(new URL(url).pathname) ? validateList : validateSettings;
    if (!validate(body)) throw new Error(`${method} ${path} → ${response.status}: ${ajv.errorsText(validate.errors)}\n${text}`);
  }
  return { status: response.status, headers: response.headers, body };
}

let stack: TestStack;
let org: TestOrganization;

beforeAll(async () => {
  stack = await startStack();
});
afterAll(() => stack?.stop());
beforeEach(async () => {
  org = await createOrganization(stack);
});

const base = () => `/v1/orgs/${org.organizationId}/translations`;
const owner = () => org.owner.token;

describe("translation settings through the gateway", () => {
  it("creates (201 + Location), gets, lists, updates with PUT and deletes (204, also when missing)", async () => {
    const created = await call(stack, "POST", base(), { token: owner(), json: { title: "Docs", languages: ["fr", "pt-br", "ZH-hant"] } });
    expect(created.status).toBe(201);
    const location = `${stack.baseUrl}${base()}/${created.body.id}`;
    expect(created.headers.get("location")).toBe(location);
    expect(created.body).toMatchObject({
      object: "translation-settings",
      title: "Docs",
      languages: ["fr", "pt-BR", "zh-Hant"],
      permissions: { view: true, edit: true },
      urls: { location },
    });
    const id = created.body.id as string;
    expect((await call(stack, "GET", `${base()}/${id}`, { token: owner() })).body).toEqual(created.body);

    await call(stack, "POST", base(), { token: owner(), json: { title: "Only a title" } });
    const first = await call(stack, "GET", `${base()}?limit=1`, { token: owner() });
    expect(first.body).toMatchObject({ count: 2, items: [{ id }] });
    const second = await call(stack, "GET", `${base()}?limit=1&page=${first.body.next.page}`, { token: owner() });
    expect(second.body.items.map((item: { title: string }) => item.title)).toEqual(["Only a title"]);
    expect(second.body.items[0].languages).toEqual([]);
    expect(second.body.next).toBeUndefined();

    const renamed = await call(stack, "PUT", `${base()}/${id}`, { token: owner(), json: { title: "Product docs" } });
    expect(renamed.body).toMatchObject({ title: "Product docs", languages: ["fr", "pt-BR", "zh-Hant"] });
    const relanguaged = await call(stack, "PUT", `${base()}/${id}`, { token: owner(), json: { languages: ["de"] } });
    expect(relanguaged.body).toMatchObject({ title: "Product docs", languages: ["de"] });

    expect((await call(stack, "DELETE", `${base()}/${id}`, { token: owner() })).status).toBe(204);
    expect((await call(stack, "GET", `${base()}/${id}`, { token: owner() })).status).toBe(404);
    expect((await call(stack, "DELETE", `${base()}/${id}`, { token: owner() })).status).toBe(204);
  });

  it("answers 400 naming the field: bad BCP 47 tags by index, duplicates, title rules, empty PUT", async () => {
    const post = (json: unknown) => call(stack, "POST", base(), { token: owner(), json });
    for (const [json, message] of [
      [{ title: "T", languages: ["fr", "en_US"] }, /^languages\[1\]: "en_US" is not a BCP 47 language tag/],
      [{ title: "T", languages: ["french"] }, /^languages\[0\]: "french" is not a BCP 47 language tag/],
      [{ title: "T", languages: ["de", "DE"] }, /^languages\[1\]: "DE" repeats languages\[0\]$/],
      [{ title: "T", languages: ["fr", 3] }, /^languages\[1\]: expected string, received number$/],
      [{ title: "" }, /^title: is required$/],
      [{ languages: ["fr"] }, /^title: is required$/],
      [{ title: "t".repeat(129) }, /^title: must be at most 128 characters$/],
    ] as const) {
      const response = await post(json);
      expect(response.status).toBe(400);
      expect(response.body.error.message).toMatch(message);
    }
    const created = await post({ title: "Valid", languages: ["fr"] });
    const empty = await call(stack, "PUT", `${base()}/${created.body.id}`, { token: owner(), json: {} });
    expect([empty.status, empty.body.error.message]).toEqual([400, "body: must contain title or languages"]);
  });

  it("read members view with edit false and get 403 on changes; another organization gets 404 on every endpoint", async () => {
    const created = await call(stack, "POST", base(), { token: owner(), json: { title: "Guarded", languages: ["fr"] } });
    const path = `${base()}/${created.body.id}`;
    const reader = await createMember(stack, org, { role: "read" });
    const seen = await call(stack, "GET", path, { token: reader.token });
    expect([seen.status, seen.body.permissions]).toEqual([200, { view: true, edit: false }]);
    expect((await call(stack, "POST", base(), { token: reader.token, json: { title: "Mine" } })).status).toBe(403);
    expect((await call(stack, "PUT", path, { token: reader.token, json: { title: "X" } })).status).toBe(403);
    expect((await call(stack, "DELETE", path, { token: reader.token })).status).toBe(403);

    const outsider = (await createOrganization(stack)).owner.token;
    for (const [method, target, json] of [
      ["GET", base(), undefined],
      ["POST", base(), { title: "Intruder" }],
      ["GET", path, undefined],
      ["PUT", path, { title: "X" }],
      ["DELETE", path, undefined],
    ] as const) {
      const response = await call(stack, method, target, { token: outsider, json });
      expect([method, target, response.status, response.body?.error?.message]).toEqual([method, target, 404, "Organization not found"]);
    }
    expect((await call(stack, "GET", path, { token: owner() })).body.title).toBe("Guarded");
  });
});
