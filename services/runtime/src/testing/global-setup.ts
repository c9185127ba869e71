import { chmod, mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { TestProject } from "vitest/node";
import { startEmbeddedPostgres, type EmbeddedPostgresHandle } from "../infrastructure/postgres.js";
import { startNatsServer, type NatsServerHandle } from "../infrastructure/nats.js";

declare module "vitest" {
  export interface ProvidedContext {
    /** URL of the `postgres` database of the shared test server; tests create their own databases. */
    pgAdminUrl: string;
    natsUrl: string;
  }
}

/**
 * Starts one real PostgreSQL and one real nats-server for the whole test run, and always stops
 * both (also when only one of them came up).
 */
export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  const base = await mkdtemp(join(tmpdir(), "imprint-test-"));
  await chmod(base, 0o755);
  let postgres: EmbeddedPostgresHandle | undefined;
  let nats: NatsServerHandle | undefined;
  const teardown = async () => {
    await Promise.allSettled([postgres?.stop(), nats?.stop()]);
    await rm(base, { recursive: true, force: true });
  };
  const [pgResult, natsResult] = await Promise.allSettled([
    startEmbeddedPostgres({ dataDir: join(base, "pg"), persistent: false }),
    startNatsServer({ storeDir: join(base, "nats") }),
  ]);
  if (pgResult.status === "fulfilled") postgres = pgResult.value;
  if (natsResult.status === "fulfilled") nats = natsResult.value;
  if (!postgres || !nats) {
    await teardown();
    throw pgResult.status === "rejected" ? pgResult.reason : (natsResult as PromiseRejectedResult).reason;
  }
  project.provide("pgAdminUrl", postgres.urlFor("postgres"));
  project.provide("natsUrl", nats.url);
  return teardown;
}
