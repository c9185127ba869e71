import { execFile } from "node:child_process";
import { join } from "node:path";
import { promisify } from "node:util";
import pg from "pg";
import { describe, expect, inject, it } from "vitest";
import { createTestDatabase, patient } from "@imprint/runtime/testing";

// The container image's entry point (also what every `npm start` process runs), as the image runs it.

const ENTRYPOINT = join(import.meta.dirname, "..", "..", "scripts", "entrypoint.mjs");
const run = promisify(execFile);

async function entrypoint(args: string[], env: Record<string, string>): Promise<{ code: number; stdout: string; stderr: string }> {
  // Only what the command needs: nothing of this test process's settings leaks into it.
  const base = { PATH: process.env.PATH ?? "", HOME: process.env.HOME ?? "/tmp", LOG_FORMAT: "json" };
  try {
    const { stdout, stderr } = await run(process.execPath, [ENTRYPOINT, ...args], { env: { ...base, ...env } });
    return { code: 0, stdout, stderr };
  } catch (error) {
    const failed = error as { code: number; stdout: string; stderr: string };
    return { code: failed.code, stdout: failed.stdout, stderr: failed.stderr };
  }
}

async function tables(url: string): Promise<string[]> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    const { rows } = await client.query<{ name: string }>("select table_name as name from information_schema.tables where table_schema = 'public'");
    return rows.map((row) => row.name);
  } finally {
    await client.end();
  }
}

describe("scripts/entrypoint.mjs", () => {
  it(
    "migrates every service, each with its per-target DATABASE_URL",
    async () => {
      const urls = {
        IDENTITY_DATABASE_URL: await createTestDatabase(inject("pgAdminUrl"), "entry_identity"),
        CONTENT_DATABASE_URL: await createTestDatabase(inject("pgAdminUrl"), "entry_content"),
        COLLABORATION_DATABASE_URL: await createTestDatabase(inject("pgAdminUrl"), "entry_collaboration"),
        PUBLISHING_DATABASE_URL: await createTestDatabase(inject("pgAdminUrl"), "entry_publishing"),
        INTEGRATION_DATABASE_URL: await createTestDatabase(inject("pgAdminUrl"), "entry_integration"),
      };
      const result = await entrypoint(["migrate", "all"], urls);
      expect(result.stderr).toBe("");
      expect(result.code).toBe(0);
      expect(await tables(urls.IDENTITY_DATABASE_URL)).toEqual(expect.arrayContaining(["organizations", "outbox_events"]));
      expect(await tables(urls.CONTENT_DATABASE_URL)).toEqual(expect.arrayContaining(["spaces", "outbox_events"]));
      expect(await tables(urls.COLLABORATION_DATABASE_URL)).toEqual(expect.arrayContaining(["change_requests", "outbox_events"]));
      expect(await tables(urls.PUBLISHING_DATABASE_URL)).toEqual(expect.arrayContaining(["sites", "site_spaces", "share_links", "outbox_events"]));
      expect(await tables(urls.INTEGRATION_DATABASE_URL)).toEqual(
        expect.arrayContaining(["integrations", "installations", "integration_events", "outbox_events"]),
      );
    },
    patient(60_000),
  );

  it("refuses unknown targets with its usage, and settings one process cannot share with their per-target names", async () => {
    const unknown = await entrypoint(["gateway,search"], {});
    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toContain(
      'targets: unknown target "search" (known: identity, content, collaboration, publishing, integration, reader, app, gateway, or all)',
    );

    const shared = await entrypoint([], {
      IMPRINT_TARGETS: "identity,content",
      DATABASE_URL: "postgres://db/one",
      NATS_URL: "nats://127.0.0.1:1",
      IDENTITY_GRPC_ADDRESS: "127.0.0.1:1",
    });
    expect(shared.code).toBe(1);
    expect(shared.stderr).toContain(
      "DATABASE_URL: identity, content would share one database (each service owns its own): set IDENTITY_DATABASE_URL, CONTENT_DATABASE_URL (one per service)",
    );
  });
});
