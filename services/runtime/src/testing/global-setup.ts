import { chmod, mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { TestProject } from "vitest/node";
import { startEmbeddedPostgres, type EmbeddedPostgresHandle } from "../infrastructure/postgres.js";
import "./provided-context.js";

/**
 * Starts one real PostgreSQL for the whole test run (each test file creates its own databases on it).
 * NATS is per test file instead (`testNatsUrl()`), so files never share event history.
 */
export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  const base = await mkdtemp(join(tmpdir(), "imprint-test-"));
  await chmod(base, 0o755);
  let postgres: EmbeddedPostgresHandle;
  try {
    postgres = await startEmbeddedPostgres({ dataDir: join(base, "pg"), persistent: false });
  } catch (error) {
    await rm(base, { recursive: true, force: true });
    throw error;
  }
  project.provide("pgAdminUrl", postgres.urlFor("postgres"));
  return async () => {
    await postgres.stop();
    await rm(base, { recursive: true, force: true });
  };
}
