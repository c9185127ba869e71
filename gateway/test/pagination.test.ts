import { AppError, ConfigError } from "@imprint/runtime";
import { describe, expect, it } from "vitest";
import { loadGatewayConfig } from "../src/config.js";
import { INVALID_PAGE_TOKEN, PageTokenSigner, parsePageQuery, toPagedList } from "../src/pagination.js";

const signer = new PageTokenSigner("a test secret of at least thirty-two characters");
const cursors = signer.forList('GET /v1/orgs/:organizationId/spaces {"organizationId":"o1"}');

describe("page query", () => {
  it("maps page and limit to a PageRequest, 0/absent meaning the service default", () => {
    expect(parsePageQuery({}, cursors)).toEqual({ pageToken: "", pageSize: 0 });
    expect(parsePageQuery({ page: cursors.seal("abc"), limit: "25" }, cursors)).toEqual({ pageToken: "abc", pageSize: 25 });
    expect(parsePageQuery({ limit: "0" }, cursors)).toEqual({ pageToken: "", pageSize: 0 });
    expect(parsePageQuery({ limit: "1000" }, cursors)).toEqual({ pageToken: "", pageSize: 1000 });
  });

  it.each(["1001", "-1", "1.5", "ten", ""])("rejects limit=%j", (limit) => {
    expect(() => parsePageQuery({ limit }, cursors)).toThrow(new AppError("invalid_argument", "limit: must be an integer between 0 and 1000"));
  });

  it("rejects an empty or oversized page token", () => {
    expect(() => parsePageQuery({ page: "" }, cursors)).toThrow("page: must not be empty");
    expect(() => parsePageQuery({ page: "x".repeat(2049) }, cursors)).toThrow("page: must be at most 2048 characters");
  });
});

describe("signed cursors", () => {
  const invalid = new AppError("invalid_argument", INVALID_PAGE_TOKEN);
  const serviceToken = Buffer.from(JSON.stringify({ s: "position,id:asc", v: ["a0", "7f1c1f9e-0000-4000-8000-000000000000"] })).toString("base64url");

  it("opens what it sealed, and keeps 'no next page' empty", () => {
    expect(cursors.open(cursors.seal(serviceToken))).toBe(serviceToken);
    expect(cursors.seal("")).toBe("");
  });

  it("refuses an unsigned or re-encoded service token (an operator smuggled into the keyset)", () => {
    const forged = Buffer.from(JSON.stringify({ s: "position,id:asc", v: [{ $in: ["a0"] }, { $gt: "" }] })).toString("base64url");
    for (const cursor of [serviceToken, forged, `${forged}.${cursors.seal(serviceToken).split(".").pop()!}`, `${forged}.`, ".", "nope"]) {
      expect(() => cursors.open(cursor)).toThrow(invalid);
    }
  });

  it("refuses a cursor with one character of its signature changed", () => {
    const cursor = cursors.seal(serviceToken);
    const last = cursor.at(-1) === "A" ? "B" : "A";
    expect(() => cursors.open(cursor.slice(0, -1) + last)).toThrow(invalid);
  });

  it("refuses a cursor of another list, or signed with another secret", () => {
    const cursor = cursors.seal(serviceToken);
    expect(() => signer.forList('GET /v1/orgs/:organizationId/spaces {"organizationId":"o2"}').open(cursor)).toThrow(invalid);
    expect(() =>
      new PageTokenSigner("another secret of at least thirty-two characters")
        .forList('GET /v1/orgs/:organizationId/spaces {"organizationId":"o1"}')
        .open(cursor),
    ).toThrow(invalid);
    expect(() => PageTokenSigner.ephemeral().forList("x").open(PageTokenSigner.ephemeral().forList("x").seal(serviceToken))).toThrow(invalid);
  });

  it("is stable for one secret, so cursors survive a restart", () => {
    const again = new PageTokenSigner("a test secret of at least thirty-two characters").forList('GET /v1/orgs/:organizationId/spaces {"organizationId":"o1"}');
    expect(again.open(cursors.seal(serviceToken))).toBe(serviceToken);
  });
});

describe("the signing secret setting", () => {
  const upstreams = {
    IDENTITY_GRPC_ADDRESS: "localhost:1",
    CONTENT_GRPC_ADDRESS: "localhost:2",
    COLLABORATION_GRPC_ADDRESS: "localhost:3",
    PUBLISHING_GRPC_ADDRESS: "localhost:4",
    INTEGRATION_GRPC_ADDRESS: "localhost:5",
  };

  it("is optional, and at least 32 characters when set", () => {
    expect(loadGatewayConfig(upstreams).pageTokenSecret).toBeUndefined();
    expect(loadGatewayConfig({ ...upstreams, IMPRINT_PAGE_TOKEN_SECRET: "s".repeat(32) }).pageTokenSecret).toBe("s".repeat(32));
    expect(() => loadGatewayConfig({ ...upstreams, IMPRINT_PAGE_TOKEN_SECRET: "too short" })).toThrow(ConfigError);
  });
});

describe("paged list", () => {
  it("has next only when the service returned a token, sealed for the list", () => {
    expect(toPagedList([1, 2], { nextPageToken: "t", totalCount: 5 }, cursors)).toEqual({ items: [1, 2], next: { page: cursors.seal("t") }, count: 5 });
    expect(toPagedList([1], { nextPageToken: "", totalCount: 1 }, cursors)).toEqual({ items: [1], count: 1 });
  });
});
