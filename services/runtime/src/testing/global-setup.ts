import { chmod, mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { TestProject } from "vitest/node";
import { startEmbeddedPostgres, type EmbeddedPostgresHandle } from "../infrastructure/postgres.js";
import "./provided-context.js";

/**
 * The run's one PostgreSQL, shared by the vitest projects of vitest.config.ts: vitest runs each
 * project's global setup, possibly from separate copies of this module, so it lives on globalThis
 * and stops after the last project's teardown.
 */
interface SharedPostgres {
  starting: Promise<{ postgres: EmbeddedPostgresHandle; base: string }>;
  users: number;
}
const STATE_KEY = Symbol.for("imprint.testing.postgres");
const shared = globalThis as { [STATE_KEY]?: SharedPostgres };

/**
 * Starts one real PostgreSQL for the whole test run (each test file creates its own databases on it).
 * NATS is per test file instead (`testNatsUrl()`), so files never share event history.
 */
export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  const state = (shared[STATE_KEY] ??= { starting: startPostgres(), users: 0 });
  state.users += 1;
  const { postgres, base } = await state.starting;
  project.provide("pgAdminUrl", postgres.urlFor("postgres"));
  return async () => {
    state.users -= 1;
    if (state.users > 0) return;
    delete shared[STATE_KEY];
    await postgres.stop();
    await rm(base, { recursive: true, force: true });
  };
}

async function startPostgres(): Promise<{ postgres: EmbeddedPostgresHandle; base: string }> {
  const base = await mkdtemp(join(tmpdir(), "imprint-test-"));
  await chmod(base, 0o755);
  try {
    return { postgres: await startEmbeddedPostgres({ dataDir: join(base, "pg"), persistent: false }), base };
  } catch (error) {
    await rm(base, { recursive: true, force: true });
    throw error;
  }
}
