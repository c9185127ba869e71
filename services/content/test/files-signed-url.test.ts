import { describe, expect, it } from "vitest";
import { AppError } from "@imprint/runtime";
import { FILE_URL_TTL_SECONDS, signedDownloadUrl, signUrl, verifyDownload, verifySignedUrl } from "../src/revisions/domain/files/signed-url.js";
import { imageDimensions } from "../src/revisions/domain/files/image-dimensions.js";
import { pngBytes } from "@imprint/runtime/testing";

const signer = { secret: "s".repeat(40), publicUrl: "https://api.example.com" };
// Mid-window: expiries are rounded up to 5 minutes.
const now = new Date("2026-11-21T10:02:00Z");

function partsOf(url: string) {
  const parsed = new URL(url);
  return {
    fileId: decodeURIComponent(parsed.pathname.split("/")[3]!),
    version: parsed.searchParams.get("version")!,
    expires: Number(parsed.searchParams.get("expires")),
    signature: parsed.searchParams.get("signature")!,
  };
}

function codeOf(action: () => void): string | undefined {
  try {
    action();
    return undefined;
  } catch (error) {
    return error instanceof AppError ? error.code : "not an AppError";
  }
}

describe("signed file download URLs", () => {
  it("points at the gateway's download route with version, expiry and signature", () => {
    const url = signedDownloadUrl(signer, "file1", "v1", now);
    expect(url).toMatch(/^https:\/\/api\.example\.com\/v1\/files\/file1\/download\?version=v1&expires=\d+&signature=[\w-]+$/);
    const { expires } = partsOf(url);
    expect(expires * 1000 - now.getTime()).toBeGreaterThanOrEqual(FILE_URL_TTL_SECONDS * 1000);
  });

  it("is stable within an expiry window, so repeated reads give the same URL", () => {
    expect(signedDownloadUrl(signer, "file1", "v1", now)).toBe(signedDownloadUrl(signer, "file1", "v1", new Date(now.getTime() + 1000)));
  });

  it("verifies until it expires, then answers not_found", () => {
    const parts = partsOf(signedDownloadUrl(signer, "file1", "v1", now));
    expect(codeOf(() => verifyDownload(signer, parts, now))).toBeUndefined();
    expect(codeOf(() => verifyDownload(signer, parts, new Date(parts.expires * 1000 - 1)))).toBeUndefined();
    expect(codeOf(() => verifyDownload(signer, parts, new Date(parts.expires * 1000)))).toBe("not_found");
  });

  it("refuses a tampered file, version, expiry or signature, and another secret's URLs", () => {
    const parts = partsOf(signedDownloadUrl(signer, "file1", "v1", now));
    expect(codeOf(() => verifyDownload(signer, { ...parts, fileId: "file2" }, now))).toBe("permission_denied");
    expect(codeOf(() => verifyDownload(signer, { ...parts, version: "v2" }, now))).toBe("permission_denied");
    expect(codeOf(() => verifyDownload(signer, { ...parts, expires: parts.expires + 3600 }, now))).toBe("permission_denied");
    expect(codeOf(() => verifyDownload(signer, { ...parts, signature: parts.signature.slice(1) }, now))).toBe("permission_denied");
    expect(codeOf(() => verifyDownload({ ...signer, secret: "t".repeat(40) }, parts, now))).toBe("permission_denied");
  });
});

describe("signed URLs of other kinds", () => {
  it("never accept a signature issued for another kind, whatever the fields", () => {
    const exported = signUrl(signer, { kind: "export", path: "/v1/exports/e1/download", fields: ["file1", "v1"] }, now);
    const signature = new URL(exported.url).searchParams.get("signature")!;
    const asExport = { kind: "export" as const, fields: ["file1", "v1"], expires: exported.expires, signature, what: "Export" };
    expect(codeOf(() => verifySignedUrl(signer, asExport, now))).toBeUndefined();
    expect(codeOf(() => verifySignedUrl(signer, { ...asExport, kind: "file" }, now))).toBe("permission_denied");
    expect(codeOf(() => verifyDownload(signer, { fileId: "file1", version: "v1", expires: exported.expires, signature }, now))).toBe("permission_denied");
  });

  it("sign each field apart: moving text from one field to the next breaks the signature", () => {
    const { expires, url } = signUrl(signer, { kind: "file", path: "/x", fields: ["a\nb", "c"] }, now);
    const signature = new URL(url).searchParams.get("signature")!;
    expect(codeOf(() => verifySignedUrl(signer, { kind: "file", fields: ["a", "b\nc"], expires, signature, what: "File" }, now))).toBe("permission_denied");
  });
});

describe("image dimensions", () => {
  it("reads a PNG header and ignores what is not an image", () => {
    expect(imageDimensions(pngBytes(3, 2))).toEqual({ width: 3, height: 2 });
    expect(imageDimensions(new TextEncoder().encode("not an image"))).toBeUndefined();
  });
});
