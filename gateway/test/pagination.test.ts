import { AppError } from "@imprint/runtime";
import { describe, expect, it } from "vitest";
import { parsePageQuery, toPagedList } from "../src/pagination.js";

describe("page query", () => {
  it("maps page and limit to a PageRequest, 0/absent meaning the service default", () => {
    expect(parsePageQuery({})).toEqual({ pageToken: "", pageSize: 0 });
    expect(parsePageQuery({ page: "abc", limit: "25" })).toEqual({ pageToken: "abc", pageSize: 25 });
    expect(parsePageQuery({ limit: "0" })).toEqual({ pageToken: "", pageSize: 0 });
    expect(parsePageQuery({ limit: "1000" })).toEqual({ pageToken: "", pageSize: 1000 });
  });

  it.each(["1001", "-1", "1.5", "ten", ""])("rejects limit=%j", (limit) => {
    expect(() => parsePageQuery({ limit })).toThrow(new AppError("invalid_argument", "limit: must be an integer between 0 and 1000"));
  });

  it("rejects an empty or oversized page token", () => {
    expect(() => parsePageQuery({ page: "" })).toThrow("page: must not be empty");
    expect(() => parsePageQuery({ page: "x".repeat(2049) })).toThrow("page: must be at most 2048 characters");
  });
});

describe("paged list", () => {
  it("has next only when the service returned a cursor", () => {
    expect(toPagedList([1, 2], { nextPageToken: "t", totalCount: 5 })).toEqual({ items: [1, 2], next: { page: "t" }, count: 5 });
    expect(toPagedList([1], { nextPageToken: "", totalCount: 1 })).toEqual({ items: [1], count: 1 });
  });
});
