#!/usr/bin/env node
// Generates a migration in src/migrations from the difference between the entities (compiled in
// dist/) and the schema the existing migrations build. Starts a throw-away PostgreSQL.
// Usage: npm run build -w @imprint/identity && node services/identity/scripts/create-migration.mjs [--initial]
import { chmod, mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { MikroORM } from "@mikro-orm/postgresql";
import { Migrator } from "@mikro-orm/migrations";
import { OutboxEvent, ProcessedEvent } from "@imprint/runtime";
import { startEmbeddedPostgres } from "@imprint/runtime/infrastructure";
import { identityEntities } from "../dist/index.js";

const migrationsPath = fileURLToPath(new URL("../src/migrations", import.meta.url));
const base = await mkdtemp(join(tmpdir(), "identity-migration-"));
await chmod(base, 0o755);
const postgres = await startEmbeddedPostgres({ dataDir: join(base, "pg"), persistent: false });
try {
  await postgres.createDatabase("identity_migration");
  const orm = await MikroORM.init({
    clientUrl: postgres.urlFor("identity_migration"),
    entities: [...identityEntities, OutboxEvent, ProcessedEvent],
    extensions: [Migrator],
    migrations: { path: migrationsPath, glob: "!(*.d).ts", emit: "ts", snapshot: false },
  });
  try {
    await orm.migrator.up();
    const result = await orm.migrator.create(undefined, false, process.argv.includes("--initial"));
    console.log(result.fileName ? `created ${result.fileName}` : "no schema changes");
  } finally {
    await orm.close(true);
  }
} finally {
  await postgres.stop();
  await rm(base, { recursive: true, force: true });
}
