import { connect } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createMember, createOrganization, createSpace, type TestOrganization } from "./support/factories.js";
import { call } from "./support/http.js";
import { startStack, type TestStack } from "./support/stack.js";

/**
 * Bad input is answered with a 4xx in the error shape, never a 500: text PostgreSQL cannot hold,
 * edited list cursors, requests Node's HTTP parser refuses. (The property test in
 * malformed-input.property.e2e.test.ts sends such input to every route.)
 */

let stack: TestStack;
let org: TestOrganization;
let spaceId: string;

beforeAll(async () => {
  stack = await startStack();
  org = await createOrganization(stack);
  spaceId = (await createSpace(stack, org)).id;
  // Two more members: the member list then pages with limit=1.
  await createMember(stack, org, { role: "read" });
  await createMember(stack, org, { role: "edit" });
});
afterAll(() => stack?.stop());

const owner = () => ({ token: org.owner.token });

function expectError(response: { status: number; body: { error?: unknown } }, status: number, message: string | RegExp): void {
  expect(response.status).toBe(status);
  expect(response.body.error).toEqual({ code: status, message: typeof message === "string" ? message : expect.stringMatching(message) });
}

describe("text PostgreSQL cannot hold", () => {
  it("refuses NUL in a body field with a 400 naming the field", async () => {
    const response = await call(stack, "PATCH", `/v1/orgs/${org.organizationId}`, { ...owner(), json: { title: "Acme\u0000Docs" } });
    expectError(response, 400, "title: must not contain NUL characters");
    const created = await call(stack, "POST", `/v1/orgs/${org.organizationId}/spaces`, { ...owner(), json: { title: "\u0000" } });
    expectError(created, 400, "title: must not contain NUL characters");
  });

  it("refuses unpaired surrogates, nested fields included", async () => {
    const response = await call(stack, "POST", `/v1/spaces/${spaceId}/comments`, { ...owner(), json: { body: { markdown: "half an emoji \ud83d" } } });
    expectError(response, 400, "body.markdown: must not contain unpaired UTF-16 surrogates");
    const ignored = await call(stack, "PATCH", `/v1/spaces/${spaceId}`, { ...owner(), json: { title: "Fine", mergeRules: { x: "\udc00" } } });
    expectError(ignored, 400, "mergeRules.x: must not contain unpaired UTF-16 surrogates");
  });

  it("refuses NUL in query and path parameters, naming them", async () => {
    expectError(await call(stack, "GET", `/v1/spaces/${spaceId}/search?query=a%00b`, owner()), 400, "query: must not contain NUL characters");
    expectError(await call(stack, "GET", `/v1/orgs/${org.organizationId}/members?search=%00`, owner()), 400, "search: must not contain NUL characters");
    expectError(await call(stack, "GET", `/v1/spaces/${spaceId}%00`, owner()), 400, "spaceId: must not contain NUL characters");
    expectError(await call(stack, "GET", `/v1/spaces/${spaceId}/content/path/a%00b`, owner()), 400, "pagePath: must not contain NUL characters");
  });

  it("still reads text with emoji and control characters PostgreSQL stores", async () => {
    const response = await call(stack, "POST", `/v1/spaces/${spaceId}/comments`, { ...owner(), json: { body: { markdown: "📘 tab\there, bell \u0007" } } });
    expect(response.status).toBe(200);
  });
});

describe("list cursors", () => {
  const members = (query: string) => call(stack, "GET", `/v1/orgs/${org.organizationId}/members?limit=1${query}`, owner());
  /** A service token as a caller could write one: base64url JSON of a sort and its key values. */
  const forge = (values: unknown[]) => Buffer.from(JSON.stringify({ s: "joinedAt,id:desc", v: values })).toString("base64url");

  it("hands out signed cursors that page through the list", async () => {
    const first = await members("");
    expect(first.body.next.page).toMatch(/^[A-Za-z0-9_-]+\.[A-Za-z0-9_-]{43}$/);
    const second = await members(`&page=${first.body.next.page}`);
    expect(second.status).toBe(200);
    expect(second.body.items[0].user.id).not.toBe(first.body.items[0].user.id);
  });

  it("refuses a cursor carrying MikroORM operators, signed or not", async () => {
    const { body } = await members("");
    const signature = (body.next.page as string).split(".")[1]!;
    for (const forged of [forge([{ $gt: "1970-01-01T00:00:00.000Z" }, { $in: ["x"] }]), forge([{ $like: "%" }, { $re: ".*" }])]) {
      expectError(await members(`&page=${forged}`), 400, "page: not a valid page token for this list");
      expectError(await members(`&page=${forged}.${signature}`), 400, "page: not a valid page token for this list");
    }
  });

  it("refuses ill-typed values, an edited cursor and another list's cursor", async () => {
    const { body } = await members("");
    const [token, signature] = (body.next.page as string).split(".");
    for (const values of [
      [true, "x"],
      [1e308 * 10, "x"],
      [{}, "x"],
    ]) {
      expectError(await members(`&page=${forge(values)}.${signature}`), 400, "page: not a valid page token for this list");
    }
    expectError(await members(`&page=${token}x.${signature}`), 400, "page: not a valid page token for this list");
    const other = await createOrganization(stack);
    const elsewhere = await call(stack, "GET", `/v1/orgs/${other.organizationId}/members?page=${body.next.page}`, { token: other.owner.token });
    expectError(elsewhere, 400, "page: not a valid page token for this list");
  });

  it("warns once, naming the setting, when cursors are signed with a per-process key", () => {
    const warnings = stack.gatewayLogs.filter((line) => line.level === "warn" && line.setting === "IMPRINT_PAGE_TOKEN_SECRET");
    expect(warnings).toHaveLength(1);
  });
});

describe("limit", () => {
  // GitBook's listLimit parameter: {"type": "number", "minimum": 0, "maximum": 1000}; 0 asks for the default page size.
  it("accepts 0 to 1000 and names the parameter otherwise", async () => {
    expect((await call(stack, "GET", `/v1/orgs/${org.organizationId}/members?limit=0`, owner())).status).toBe(200);
    for (const limit of ["-1", "1001", "x"]) {
      expectError(
        await call(stack, "GET", `/v1/orgs/${org.organizationId}/members?limit=${limit}`, owner()),
        400,
        "limit: must be an integer between 0 and 1000",
      );
    }
  });
});

describe("requests Node's HTTP parser refuses", () => {
  /** Writes raw bytes and reads the answer until the server closes the connection. */
  function raw(request: string): Promise<string> {
    const url = new URL(stack.baseUrl);
    return new Promise((resolve, reject) => {
      const socket = connect(Number(url.port), url.hostname);
      let answer = "";
      socket.setEncoding("utf8");
      socket.on("data", (chunk: string) => (answer += chunk));
      socket.on("close", () => resolve(answer));
      socket.on("error", reject);
      socket.end(request);
    });
  }

  function parse(answer: string): { status: number; headers: string; body: unknown } {
    const [head = "", body = ""] = answer.split("\r\n\r\n");
    return { status: Number(head.split(" ")[1]), headers: head.toLowerCase(), body: JSON.parse(body) as unknown };
  }

  it("answers 431 in the error shape for a 20 KiB header", async () => {
    const response = await fetch(`${stack.baseUrl}/v1/orgs`, { headers: { authorization: `Bearer ${org.owner.token}`, "x-padding": "a".repeat(20 * 1024) } });
    expect(response.status).toBe(431);
    expect(response.headers.get("content-type")).toMatch(/^application\/json/);
    expect(await response.json()).toEqual({ error: { code: 431, message: "Request line and headers exceed the limit of 16384 bytes" } });
  });

  it("answers 400 in the error shape for a malformed request, and closes the connection", async () => {
    for (const request of ["NOT-A-METHOD / HTTP/1.1\r\nHost: x\r\n\r\n", "GET /v1/orgs HTTP/1.1\r\nHost: x\r\nNo colon here\r\n\r\n"]) {
      const answer = parse(await raw(request));
      expect(answer.status).toBe(400);
      expect(answer.headers).toContain("content-type: application/json");
      expect(answer.headers).toContain("connection: close");
      expect(answer.body).toEqual({ error: { code: 400, message: expect.stringMatching(/^Malformed HTTP request/) } });
    }
  });

  it("answers 413 in the error shape for oversized chunk extensions", async () => {
    const answer = parse(await raw(`POST /v1/orgs HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n5;${"e".repeat(20_000)}\r\nhello\r\n0\r\n\r\n`));
    expect(answer.status).toBe(413);
    expect(answer.body).toEqual({ error: { code: 413, message: expect.any(String) } });
  });
});
