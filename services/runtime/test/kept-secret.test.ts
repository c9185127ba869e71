import { mkdtemp, readdir, readFile, rm, stat } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { resolveKeptSecret } from "../src/index.js";

/** A secret kept in the data directory, as services and the launcher resolve it (kept-secret.ts). */
let dataDir: string;
beforeEach(async () => {
  dataDir = await mkdtemp(join(tmpdir(), "imprint-kept-secret-"));
});
afterEach(() => rm(dataDir, { recursive: true, force: true }));

const resolveKey = (configured?: string) =>
  resolveKeptSecret({ configured, dataDir, fileName: "test-secrets-key", service: "test", setting: "TEST_SECRETS_KEY" });

describe("resolveKeptSecret", () => {
  it("keeps a new key in the data directory, readable by its owner only, and answers it again", async () => {
    const key = await resolveKey();
    expect(Buffer.from(key, "base64url")).toHaveLength(32);
    expect(await readFile(join(dataDir, "test-secrets-key"), "utf8")).toBe(`${key}\n`);
    expect((await stat(join(dataDir, "test-secrets-key"))).mode & 0o777).toBe(0o600);
    expect(await resolveKey()).toBe(key);
    expect(await resolveKey("configured")).toBe("configured");
  });

  it("gives every caller starting at once the same whole key, and leaves only the key behind", async () => {
    const keys = await Promise.all(Array.from({ length: 24 }, () => resolveKey()));
    expect(new Set(keys).size).toBe(1);
    expect(Buffer.from(keys[0]!, "base64url")).toHaveLength(32);
    expect(await readdir(dataDir)).toEqual(["test-secrets-key"]);
  });
});
