import { describe, expect, it } from "vitest";
import { isId, requireCaller } from "../src/caller.js";
import { AppError } from "../src/errors.js";
import { parseUpdateMask } from "../src/update-mask.js";

const USER = "0f8fad5b-d9cb-469f-a165-70867728950e";

describe("caller checks", () => {
  it("recognises ids as uuids in any case, and nothing else", () => {
    expect(isId(USER)).toBe(true);
    expect(isId(USER.toUpperCase())).toBe(true);
    for (const value of ["", "42", `${USER} `, undefined, null, 7]) expect(isId(value)).toBe(false);
  });

  it("answers a call without a caller unauthenticated by default", () => {
    expect(requireCaller({ userId: USER, tokenId: "t" })).toEqual({ userId: USER, tokenId: "t" });
    expect(() => requireCaller(undefined)).toThrow(new AppError("unauthenticated", "caller: required"));
    expect(() => requireCaller({ userId: "" })).toThrow(new AppError("unauthenticated", "caller: required"));
    // The user id is not checked by default: the lookups that follow answer not_found for it.
    expect(requireCaller({ userId: "someone" })).toEqual({ userId: "someone" });
  });

  it("answers as a service's rules say (identity's: invalid_argument, and only uuid user ids)", () => {
    const rules = { missing: "invalid_argument", userIdMustBeId: true } as const;
    expect(() => requireCaller(undefined, rules)).toThrow(new AppError("invalid_argument", "caller: is required"));
    expect(() => requireCaller({ userId: "someone" }, rules)).toThrow(new AppError("unauthenticated", "caller: unknown user"));
    expect(requireCaller({ userId: USER }, rules)).toEqual({ userId: USER });
  });
});

describe("update masks", () => {
  const allowed = ["title", "email_domains"] as const;

  it("takes snake_case and camelCase paths, trimmed", () => {
    expect([...parseUpdateMask(["title", " emailDomains "], allowed)]).toEqual(["title", "email_domains"]);
  });

  it("refuses an empty mask and names an unknown field with the allowed ones", () => {
    expect(() => parseUpdateMask([], allowed)).toThrow(new AppError("invalid_argument", "update_mask: must name at least one field"));
    expect(() => parseUpdateMask(undefined, allowed)).toThrow(/^update_mask: must name/);
    expect(() => parseUpdateMask(["owner"], allowed)).toThrow(
      new AppError("invalid_argument", 'update_mask: unknown field "owner"; allowed: title, email_domains'),
    );
  });

  it("takes an empty mask as no field changing where the update says so, still refusing unknown fields", () => {
    expect(parseUpdateMask([], allowed, { emptyMeans: "no_field_changes" }).size).toBe(0);
    expect(parseUpdateMask(undefined, allowed, { emptyMeans: "no_field_changes" }).size).toBe(0);
    expect(() => parseUpdateMask(["owner"], allowed, { emptyMeans: "no_field_changes" })).toThrow(/^update_mask: unknown field "owner"/);
  });
});
