#!/usr/bin/env node
// Generates a migration in src/migrations from the difference between the entities (compiled in
// dist/, plus the runtime's tables every service holds) and the schema the existing migrations
// build. Starts a throw-away PostgreSQL, unless --database-url names an empty database to use.
// --dry-run prints the SQL the migration would hold ("no schema changes" when none) and writes nothing.
// Usage: npm run build -w @imprint/collaboration && node services/collaboration/scripts/create-migration.mjs [--initial] [--dry-run] [--database-url <url>]
import { chmod, mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { parseArgs } from "node:util";
import { MikroORM } from "@mikro-orm/postgresql";
import { Migrator } from "@mikro-orm/migrations";
import { RUNTIME_ENTITIES } from "@imprint/runtime";
import { startEmbeddedPostgres } from "@imprint/runtime/infrastructure";
import { collaborationEntities } from "../dist/index.js";

const { values: options } = parseArgs({
  options: { initial: { type: "boolean", default: false }, "dry-run": { type: "boolean", default: false }, "database-url": { type: "string" } },
});
const migrationsPath = fileURLToPath(new URL("../src/migrations", import.meta.url));

/** Runs `work` on an empty database: the one given, or one of a throw-away PostgreSQL. */
async function withEmptyDatabase(work) {
  if (options["database-url"]) return work(options["database-url"]);
  const base = await mkdtemp(join(tmpdir(), "collaboration-migration-"));
  await chmod(base, 0o755);
  const postgres = await startEmbeddedPostgres({ dataDir: join(base, "pg"), persistent: false });
  try {
    await postgres.createDatabase("collaboration_migration");
    return await work(postgres.urlFor("collaboration_migration"));
  } finally {
    await postgres.stop();
    await rm(base, { recursive: true, force: true });
  }
}

await withEmptyDatabase(async (url) => {
  const orm = await MikroORM.init({
    clientUrl: url,
    entities: [...collaborationEntities, ...RUNTIME_ENTITIES],
    extensions: [Migrator],
    migrations: { path: migrationsPath, glob: "!(*.d).ts", emit: "ts", snapshot: false, silent: options["dry-run"] },
  });
  try {
    await orm.migrator.up();
    if (options["dry-run"]) {
      const sql = (await orm.schema.getUpdateSchemaSQL({ wrap: false })).trim();
      console.log(sql || "no schema changes");
      return;
    }
    const result = await orm.migrator.create(undefined, false, options.initial);
    console.log(result.fileName ? `created ${result.fileName}` : "no schema changes");
  } finally {
    await orm.close(true);
  }
});
