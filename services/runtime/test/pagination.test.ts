import { describe, expect, it } from "vitest";
import { AppError } from "../src/errors.js";
import { decodePageToken, encodePageToken, pageOfSorted, readPageRequest, sortDirectionFromProto, type KeyKind, type KeyType } from "../src/pagination.js";

const SORT = "joinedAt,id:desc";
const KEYS: KeyKind[] = ["date", "uuid"];
const ID = "0f8fad5b-d9cb-469f-a165-70867728950e";
const invalid = new AppError("invalid_argument", "page: not a valid page token for this list");

/** A token as a caller could forge it: any JSON text, base64url-encoded. */
const forge = (json: string) => Buffer.from(json).toString("base64url");

describe("page tokens", () => {
  it("round-trips the key values of its sort", () => {
    const values = ["2024-05-01T10:00:00.000Z", ID];
    expect(decodePageToken(encodePageToken(SORT, values), SORT, KEYS)).toEqual(values);
  });

  it("accepts each kind's values, and null only where the field is nullable", () => {
    const kinds: KeyType[] = [{ kind: "string" }, { kind: "integer" }, { kind: "number" }, { kind: "boolean" }, { kind: "date", nullable: true }];
    const values = ["a0", 3, 1.5, false, null];
    expect(decodePageToken(encodePageToken(SORT, values), SORT, kinds)).toEqual(values);
    expect(() => decodePageToken(encodePageToken(SORT, ["2024-05-01T10:00:00.000Z", null]), SORT, KEYS)).toThrow(invalid);
  });

  it.each([
    ["an operator object", `{"s":"${SORT}","v":[{"$gt":"2000-01-01T00:00:00.000Z"},"${ID}"]}`],
    ["an $in list", `{"s":"${SORT}","v":["2024-05-01T10:00:00.000Z",{"$in":["${ID}"]}]}`],
    ["a $like pattern", `{"s":"${SORT}","v":["2024-05-01T10:00:00.000Z",{"$like":"%"}]}`],
    ["an array", `{"s":"${SORT}","v":[["2024-05-01T10:00:00.000Z"],"${ID}"]}`],
    ["a boolean date", `{"s":"${SORT}","v":[true,"${ID}"]}`],
    ["an infinite number", `{"s":"${SORT}","v":[1e309,"${ID}"]}`],
    ["a date that is not ISO", `{"s":"${SORT}","v":["yesterday","${ID}"]}`],
    ["an impossible date", `{"s":"${SORT}","v":["2024-13-45T99:00:00.000Z","${ID}"]}`],
    ["a date JavaScript rolls over", `{"s":"${SORT}","v":["2024-02-30T00:00:00.000Z","${ID}"]}`],
    ["a date not written by toISOString", `{"s":"${SORT}","v":["2024-05-01T10:00:00Z","${ID}"]}`],
    ["an id that is not a uuid", `{"s":"${SORT}","v":["2024-05-01T10:00:00.000Z","1 or 1=1"]}`],
    ["a NUL in a string", `{"s":"${SORT}","v":["2024-05-01T10:00:00.000Z","\\u0000"]}`],
    ["too few values", `{"s":"${SORT}","v":["2024-05-01T10:00:00.000Z"]}`],
    ["another sort", `{"s":"sortName,id:asc","v":["2024-05-01T10:00:00.000Z","${ID}"]}`],
    ["no object", "null"],
    ["no JSON", "{"],
  ])("refuses %s", (_what, json) => {
    expect(() => decodePageToken(forge(json), SORT, KEYS)).toThrow(invalid);
  });

  it("refuses strings no store can hold and overlong ones", () => {
    for (const value of ["\u0000", "a\ud800", "x".repeat(4097)]) {
      expect(() => decodePageToken(forge(JSON.stringify({ s: SORT, v: [value] })), SORT, ["string"])).toThrow(invalid);
    }
  });

  it("refuses integers that are not safe and numbers that are not finite", () => {
    expect(() => decodePageToken(forge(`{"s":"${SORT}","v":[1.5]}`), SORT, ["integer"])).toThrow(invalid);
    expect(() => decodePageToken(forge(`{"s":"${SORT}","v":[9007199254740993]}`), SORT, ["integer"])).toThrow(invalid);
    expect(() => decodePageToken(forge(`{"s":"${SORT}","v":[-1e309]}`), SORT, ["number"])).toThrow(invalid);
  });
});

describe("list requests", () => {
  it("reads the page size (0 or absent: 50) and refuses sizes outside 1 to 1000", () => {
    expect(readPageRequest(undefined, "l", ["string"])).toEqual({ fingerprint: "l", pageSize: 50, after: undefined });
    expect(readPageRequest({ pageSize: 0, pageToken: "" }, "l", ["string"]).pageSize).toBe(50);
    expect(readPageRequest({ pageSize: 1000 }, "l", ["string"]).pageSize).toBe(1000);
    for (const pageSize of [-1, 1001, 2.5]) {
      expect(() => readPageRequest({ pageSize }, "l", ["string"])).toThrow(new AppError("invalid_argument", "limit: must be an integer between 1 and 1000"));
    }
  });

  it("checks the size before the token, and refuses a token of another list", () => {
    const token = encodePageToken("links", ["a"]);
    expect(readPageRequest({ pageToken: token }, "links", ["string"]).after).toEqual(["a"]);
    expect(() => readPageRequest({ pageToken: token }, "page-backlinks", ["string", "string"])).toThrow(invalid);
    expect(() => readPageRequest({ pageToken: "???", pageSize: 5000 }, "links", ["string"])).toThrow(/^limit: /);
  });

  it("pages a sorted in-memory list by key, so a token outlives changes to the list", () => {
    const keyOf = (item: string) => [item];
    const first = pageOfSorted(["a", "b", "c", "d", "e"], keyOf, readPageRequest({ pageSize: 2 }, "letters", ["string"]));
    expect(first).toMatchObject({ items: ["a", "b"], totalCount: 5 });
    const second = pageOfSorted(["a", "b", "c", "d", "e"], keyOf, readPageRequest({ pageSize: 2, pageToken: first.nextPageToken }, "letters", ["string"]));
    expect(second.items).toEqual(["c", "d"]);
    // "b" was removed and "bb" added since: the next page still starts after "b".
    expect(pageOfSorted(["a", "bb", "c"], keyOf, readPageRequest({ pageSize: 2, pageToken: first.nextPageToken }, "letters", ["string"])).items).toEqual([
      "bb",
      "c",
    ]);
    const last = pageOfSorted(["a", "b", "c", "d", "e"], keyOf, readPageRequest({ pageSize: 2, pageToken: second.nextPageToken }, "letters", ["string"]));
    expect(last).toEqual({ items: ["e"], nextPageToken: "", totalCount: 5 });
  });
});

describe("sort order", () => {
  it("maps the proto SortOrder: unspecified is the list's default, unknown numbers are refused", () => {
    expect([0, 1, 2].map(sortDirectionFromProto)).toEqual([undefined, "asc", "desc"]);
    expect(() => sortDirectionFromProto(9)).toThrow(new AppError("invalid_argument", "order: must be asc or desc"));
    expect(() => sortDirectionFromProto(-1)).toThrow(/^order: /);
  });
});
