import { AppError } from "@imprint/runtime";
import { describe, expect, it } from "vitest";
import { z } from "zod";
import lzString from "lz-string";
import { decompressFromEncodedURIComponent } from "../src/lz-string.js";
import { decodeRenderRequest, MAX_IMAGE_BYTES, MAX_RENDER_REQUEST_CHARACTERS, publishIntegrationBody, renderQuery } from "../src/routes/integrations.js";
import { listMembersQuery, updateMemberBody } from "../src/routes/members.js";
import { toUpdateOrganizationFields, updateOrganizationBody } from "../src/routes/organizations.js";
import { toUpdateSitePublishingAuthFields, updatePublishingAuthBody } from "../src/routes/site-publishing-auth.js";
import { toUpdateSiteSpaceFields, updateSiteSpaceBody } from "../src/routes/site-spaces.js";
import { toUpdateSiteFields, updateSiteBody } from "../src/routes/sites.js";
import { findUnstorableText, formatPath, parseInput, queryParam } from "../src/validation.js";

function messageOf(run: () => unknown): string {
  try {
    run();
  } catch (error) {
    expect(error).toBeInstanceOf(AppError);
    expect((error as AppError).code).toBe("invalid_argument");
    return (error as AppError).message;
  }
  throw new Error("expected invalid_argument");
}

describe("validation messages", () => {
  // Length rules are the services' (CODE_STYLE.md, validation): a schema of the test's own shows how
  // the gateway words them where it has one.
  const titledBody = z.object({
    title: z
      .string()
      .min(2)
      .max(255)
      .regex(/\S.*\S/, { error: "must contain at least two non-whitespace characters" }),
  });

  it("names the field and the length rule", () => {
    expect(messageOf(() => parseInput(titledBody, { title: "x".repeat(256) }, "body"))).toBe("title: must be at most 255 characters");
    expect(messageOf(() => parseInput(titledBody, { title: "x" }, "body"))).toBe("title: must be at least 2 characters");
  });

  it("names the expected and received types", () => {
    expect(messageOf(() => parseInput(updateOrganizationBody, { sso: "yes" }, "body"))).toBe("sso: expected boolean, received string");
    expect(messageOf(() => parseInput(updateOrganizationBody, { emailDomains: "a.com" }, "body"))).toBe("emailDomains: expected array, received string");
    expect(messageOf(() => parseInput(updateOrganizationBody, [], "body"))).toBe("body: expected object, received array");
  });

  it("lists enum values, formats and nested paths, one issue per field", () => {
    expect(messageOf(() => parseInput(updateMemberBody, { role: "owner" }, "body"))).toBe(
      'role: must be one of "admin", "create", "edit", "review", "comment", "read"',
    );
    expect(messageOf(() => parseInput(updateOrganizationBody, { logo: "not a url" }, "body"))).toBe("logo: must be a valid URL");
    expect(messageOf(() => parseInput(updateOrganizationBody, { emailDomains: ["ok.com", 3], defaultContent: { type: "space", site: "s" } }, "body"))).toBe(
      'emailDomains[1]: expected string, received number; defaultContent.type: must be "site"',
    );
  });

  it("says a missing required field is required", () => {
    expect(messageOf(() => parseInput(updateMemberBody, {}, "body"))).toBe("role: is required");
    expect(messageOf(() => parseInput(updateMemberBody, undefined, "body"))).toBe("body: is required");
  });

  it("keeps a schema's own message over the generic one", () => {
    expect(messageOf(() => parseInput(titledBody, { title: "a      " }, "body"))).toBe("title: must contain at least two non-whitespace characters");
  });

  it("ignores unknown body fields, as GitBook clients send extra ones", () => {
    // A read-only field of the organization object, as a client that echoes what it read sends it back.
    expect(parseInput(updateOrganizationBody, { title: "Acme", createdAt: "2026-01-01T00:00:00.000Z" }, "body")).toEqual({ title: "Acme" });
  });

  it("formats paths with indices", () => {
    expect(formatPath(["a", 0, "b"])).toBe("a[0].b");
    expect(formatPath([])).toBe("");
  });
});

describe("query parameters", () => {
  const schema = z.object({ flag: queryParam.boolean().optional(), n: queryParam.integer(1, 5).optional() });

  it("parses booleans and integers from strings", () => {
    expect(parseInput(schema, { flag: "true", n: "3" }, "query")).toEqual({ flag: true, n: 3 });
    expect(parseInput(schema, { flag: "false" }, "query")).toEqual({ flag: false });
  });

  it("rejects anything else with the rule", () => {
    expect(messageOf(() => parseInput(schema, { flag: "yes" }, "query"))).toBe("flag: must be true or false");
    for (const n of ["0", "6", "2.5", "abc", "", "1e1"]) {
      expect(messageOf(() => parseInput(schema, { n }, "query"))).toBe("n: must be an integer between 1 and 5");
    }
    expect(messageOf(() => parseInput(schema, { n: ["1", "2"] }, "query"))).toBe("n: must be an integer between 1 and 5");
  });

  it("validates member list filters", () => {
    expect(parseInput(listMembersQuery, { role: "guest", sort: "name", order: "asc", limit: "10" }, "query")).toMatchObject({
      role: "guest",
      sort: "name",
      order: "asc",
      limit: 10,
    });
    expect(messageOf(() => parseInput(listMembersQuery, { sort: "email" }, "query"))).toBe('sort: must be one of "joinedAt", "lastSeenAt", "name"');
  });
});

describe("organization update mask", () => {
  it("names exactly the fields present, with null clearing", () => {
    const fields = toUpdateOrganizationFields(parseInput(updateOrganizationBody, { title: "Acme", hostname: null, defaultRole: null, sso: false }, "body"));
    expect(fields.updateMask).toEqual(["title", "hostname", "default_role", "sso"]);
    expect(fields).toMatchObject({ title: "Acme", hostname: "", sso: false });
  });

  it("is empty for a body without known fields", () => {
    expect(toUpdateOrganizationFields(parseInput(updateOrganizationBody, { createdAt: "2026-01-01T00:00:00.000Z" }, "body")).updateMask).toEqual([]);
  });
});

describe("publishing update masks", () => {
  it("name exactly the fields present, with null clearing; accepted fields that change nothing name none", () => {
    const site = toUpdateSiteFields(
      parseInput(updateSiteBody, { adaptiveContent: { enabled: true }, defaultSiteSection: "s1", hostname: null, defaultLevel: "inherit" }, "body"),
    );
    expect(site.updateMask).toEqual(["adaptive_content_enabled", "default_site_section_id", "hostname"]);
    expect(site).toMatchObject({ adaptiveContentEnabled: true, defaultSiteSectionId: "s1", hostname: "" });
    expect(toUpdateSiteFields(parseInput(updateSiteBody, { defaultLevel: "inherit" }, "body")).updateMask).toEqual([]);
    const siteSpace = toUpdateSiteSpaceFields(parseInput(updateSiteSpaceBody, { condition: null, hidden: false }, "body"));
    expect(siteSpace).toMatchObject({ updateMask: ["condition"], condition: "" });
    // The backend is no masked field: it is sent, and checked, every time.
    expect(toUpdateSitePublishingAuthFields(parseInput(updatePublishingAuthBody, { backend: "custom", logoutURL: null }, "body"))).toEqual({
      backend: "custom",
      updateMask: ["logout_url"],
      fallbackUrl: "",
      logoutUrl: "",
    });
  });
});

describe("text no store can hold", () => {
  it("names the body field, query parameter or path parameter holding NUL", () => {
    expect(messageOf(() => parseInput(updateOrganizationBody, { title: "Acme\u0000" }, "body"))).toBe("title: must not contain NUL characters");
    expect(messageOf(() => parseInput(updateOrganizationBody, { emailDomains: ["ok.com", "a\u0000.com"] }, "body"))).toBe(
      "emailDomains[1]: must not contain NUL characters",
    );
    expect(messageOf(() => parseInput(listMembersQuery, { search: "\u0000" }, "query"))).toBe("search: must not contain NUL characters");
    expect(messageOf(() => parseInput(z.object({ spaceId: z.string() }), { spaceId: "s\u0000" }, "path"))).toBe("spaceId: must not contain NUL characters");
  });

  it("refuses unpaired surrogates but keeps paired ones (emoji)", () => {
    expect(messageOf(() => parseInput(updateOrganizationBody, { title: "Acme \ud83d" }, "body"))).toBe("title: must not contain unpaired UTF-16 surrogates");
    expect(messageOf(() => parseInput(updateOrganizationBody, { title: "\udc00Acme" }, "body"))).toBe("title: must not contain unpaired UTF-16 surrogates");
    expect(parseInput(updateOrganizationBody, { title: "Acme 📘" }, "body")).toEqual({ title: "Acme 📘" });
  });

  it("checks fields the schema ignores, field names, and the whole input", () => {
    expect(messageOf(() => parseInput(updateOrganizationBody, { mergeRules: { deep: [{ x: "\u0000" }] } }, "body"))).toBe(
      "mergeRules.deep[0].x: must not contain NUL characters",
    );
    expect(messageOf(() => parseInput(updateOrganizationBody, { nested: { "a\u0000": 1 } }, "body"))).toBe(
      "nested: field names must not contain NUL characters",
    );
    expect(messageOf(() => parseInput(z.string(), "\u0000", "body"))).toBe("body: must not contain NUL characters");
  });

  it("walks inputs nested deeper than the call stack", () => {
    let deep: unknown = "\u0000";
    for (let depth = 0; depth < 200_000; depth++) deep = [deep];
    expect(findUnstorableText(deep, "body")).toBe(`${"[0]".repeat(32)}…: must not contain NUL characters`);
  });
});

describe("integration inputs", () => {
  const publish = { organization: "org", title: "Hello", description: "Says hello", scopes: [], script: "export default {}" };

  it("decodes base64 images, naming the image that is not base64 or too large", () => {
    const icon = Buffer.from([0x89, 0x50, 0x4e, 0x47]);
    const body = parseInput(publishIntegrationBody, { ...publish, icon: icon.toString("base64"), previewImages: ["aGk=", "aGk"] }, "body");
    expect(body.icon).toEqual(icon);
    expect(body.previewImages).toEqual([Buffer.from("hi"), Buffer.from("hi")]);
    expect(messageOf(() => parseInput(publishIntegrationBody, { ...publish, icon: "not base64!" }, "body"))).toBe("icon: must be base64");
    expect(messageOf(() => parseInput(publishIntegrationBody, { ...publish, previewImages: ["aGk=", "a"] }, "body"))).toBe("previewImages[1]: must be base64");
    const tooLarge = Buffer.alloc(MAX_IMAGE_BYTES + 1).toString("base64");
    expect(messageOf(() => parseInput(publishIntegrationBody, { ...publish, icon: tooLarge }, "body"))).toBe(
      `icon: must be at most ${MAX_IMAGE_BYTES} bytes once decoded`,
    );
    expect(messageOf(() => parseInput(publishIntegrationBody, { ...publish, previewImages: ["aGk=", "aGk=", "aGk=", "aGk="] }, "body"))).toBe(
      "previewImages: must contain at most 3 items",
    );
    expect(messageOf(() => parseInput(publishIntegrationBody, { title: "Hello" }, "body"))).toBe(
      "description: is required; scopes: is required; script: is required; organization: is required",
    );
  });

  it("reads a GET render request compressed as GitBook's clients do (lz-string, URL-safe)", () => {
    const render = { componentId: "card", props: { n: 1 }, context: { type: "document", theme: "light" }, action: { action: "x" } };
    const request = lzString.compressToEncodedURIComponent(JSON.stringify(render));
    expect(decodeRenderRequest(parseInput(renderQuery, { request }, "query").request)).toEqual(render);
  });

  it("decompresses exactly as lz-string does, through a query string too", () => {
    let seed = 42;
    const random = () => (seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31;
    const alphabet = 'abcabcabc{}[]":,0123456789 éü✓日本🎉\u0000\uffff';
    const samples = ["a", "ab", "aaaaaaaaaaaaaaaaaaaa", "日本語".repeat(500)];
    for (let index = 0; index < 200; index++)
      samples.push(Array.from({ length: Math.floor(random() * 3000) }, () => alphabet[Math.floor(random() * alphabet.length)]).join(""));
    for (const text of samples) {
      const compressed = lzString.compressToEncodedURIComponent(text);
      expect(decompressFromEncodedURIComponent(compressed, MAX_RENDER_REQUEST_CHARACTERS)).toEqual({
        ok: true,
        text: lzString.decompressFromEncodedURIComponent(compressed),
      });
      expect(decompressFromEncodedURIComponent(compressed, MAX_RENDER_REQUEST_CHARACTERS)).toEqual({ ok: true, text });
      // A raw `+` a query string parser turned into a space.
      expect(decompressFromEncodedURIComponent(compressed.replace(/\+/g, " "), MAX_RENDER_REQUEST_CHARACTERS)).toEqual({ ok: true, text });
    }
  });

  /**
   * lz-string's encoding of a run of "a" as `codes` dictionary codes, each the entry it defines
   * (w + w[0]): an output of about codes² / 2 characters, written directly since compressing such
   * a run with lz-string takes seconds.
   */
  function runOfA(codes: number): string {
    const bits: number[] = [];
    const write = (value: number, width: number) => {
      for (let bit = 0; bit < width; bit++) bits.push((value >> bit) & 1);
    };
    write(0, 2);
    write("a".charCodeAt(0), 8);
    let [dictSize, numBits, enlargeIn] = [4, 3, 4];
    for (let code = 0; code < codes; code++) {
      write(dictSize++, numBits);
      if (--enlargeIn === 0) [enlargeIn, numBits] = [2 ** numBits, numBits + 1];
    }
    write(2, numBits);
    const alphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+-$";
    let out = "";
    for (let index = 0; index < bits.length; index += 6) out += alphabet[bits.slice(index, index + 6).reduce((value, bit, at) => value | (bit << (5 - at)), 0)];
    return out;
  }

  it("refuses a decompression bomb without building it, and accepts a request up to the bound", () => {
    const small = runOfA(500);
    expect(lzString.decompressFromEncodedURIComponent(small)).toBe("a".repeat(1 + (500 * 503) / 2));
    expect(decompressFromEncodedURIComponent(small, MAX_RENDER_REQUEST_CHARACTERS)).toEqual({ ok: true, text: "a".repeat(1 + (500 * 503) / 2) });
    // Under 16 KiB of query string that lz-string would expand to 24 million characters.
    const bomb = runOfA(7000);
    expect(bomb.length).toBeLessThan(16 * 1024);
    expect(decompressFromEncodedURIComponent(bomb, MAX_RENDER_REQUEST_CHARACTERS)).toEqual({ ok: false, reason: "too-large" });
    expect(messageOf(() => decodeRenderRequest(parseInput(renderQuery, { request: bomb }, "query").request))).toBe(
      `request: must decompress to at most ${MAX_RENDER_REQUEST_CHARACTERS} characters of JSON`,
    );

    let seed = 7;
    const text = Array.from({ length: MAX_RENDER_REQUEST_CHARACTERS - 400 }, () =>
      String.fromCharCode(97 + ((seed = (seed * 1103515245 + 12345) % 2 ** 31) % 26)),
    ).join("");
    const json = JSON.stringify({ componentId: "c", props: { text }, context: { type: "document" } });
    expect(json.length).toBeLessThanOrEqual(MAX_RENDER_REQUEST_CHARACTERS);
    expect(decodeRenderRequest(lzString.compressToEncodedURIComponent(json)).props.text).toBe(text);
  });

  it("refuses a render request that is not compressed JSON, too large, or not a RenderIntegrationUI", () => {
    const compressed = (value: unknown) => lzString.compressToEncodedURIComponent(typeof value === "string" ? value : JSON.stringify(value));
    for (const request of ["%%%", "not compressed", compressed("{not json")]) {
      expect(messageOf(() => decodeRenderRequest(request))).toMatch(/^request: must be JSON compressed with lz-string/);
    }
    expect(messageOf(() => decodeRenderRequest(compressed({ props: {}, context: {} })))).toBe("request.componentId: is required");
    expect(messageOf(() => decodeRenderRequest(compressed([1])))).toBe("request: expected object, received array");
    expect(messageOf(() => decodeRenderRequest(compressed(`"${"a".repeat(1024 * 1024)}"`)))).toMatch(/^request: must decompress to at most/);
    expect(messageOf(() => decodeRenderRequest(compressed({ componentId: "a\u0000b", props: {}, context: {} })))).toMatch(/^request\.componentId: /);
    expect(messageOf(() => parseInput(renderQuery, { request: "x".repeat(16 * 1024 + 1) }, "query"))).toBe("request: must be at most 16384 characters");
  });
});
