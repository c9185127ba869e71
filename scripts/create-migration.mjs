#!/usr/bin/env node
// Generates a service's next migration in services/<service>/src/migrations from the difference
// between its entities (compiled in dist/: the `<service>Entities` its index exports, plus the
// runtime's tables every service holds) and the schema its existing migrations build. Starts a
// throw-away PostgreSQL, unless --database-url names an empty database to use. --dry-run prints the
// SQL the migration would hold ("no schema changes" when none) and writes nothing.
// Usage: npm run build -w @imprint/<service> && npm run migration:create -w @imprint/<service> [-- --dry-run]
//        node scripts/create-migration.mjs <service> [--initial] [--dry-run] [--database-url <url>]
import { chmod, mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { parseArgs } from "node:util";
import { MikroORM } from "@mikro-orm/postgresql";
import { Migrator } from "@mikro-orm/migrations";
import { RUNTIME_ENTITIES } from "@imprint/runtime";
import { startEmbeddedPostgres } from "@imprint/runtime/infrastructure";

const SERVICES = ["identity", "content", "collaboration", "publishing", "integration"];
const { values: options, positionals } = parseArgs({
  allowPositionals: true,
  options: { initial: { type: "boolean", default: false }, "dry-run": { type: "boolean", default: false }, "database-url": { type: "string" } },
});
const service = positionals[0];
if (positionals.length !== 1 || !SERVICES.includes(service)) {
  console.error(`usage: node scripts/create-migration.mjs <${SERVICES.join("|")}> [--initial] [--dry-run] [--database-url <url>]`);
  process.exit(2);
}
const root = fileURLToPath(new URL(`../services/${service}/`, import.meta.url));
const entities = (await import(pathToFileURL(join(root, "dist", "index.js")).href))[`${service}Entities`];
if (!Array.isArray(entities)) {
  console.error(`services/${service}/dist/index.js exports no ${service}Entities: build it first (npm run build -w @imprint/${service})`);
  process.exit(1);
}
const migrationsPath = join(root, "src", "migrations");

/** Runs `work` on an empty database: the one given, or one of a throw-away PostgreSQL. */
async function withEmptyDatabase(work) {
  if (options["database-url"]) return work(options["database-url"]);
  const base = await mkdtemp(join(tmpdir(), `${service}-migration-`));
  await chmod(base, 0o755);
  const postgres = await startEmbeddedPostgres({ dataDir: join(base, "pg"), persistent: false });
  try {
    await postgres.createDatabase(`${service}_migration`);
    return await work(postgres.urlFor(`${service}_migration`));
  } finally {
    await postgres.stop();
    await rm(base, { recursive: true, force: true });
  }
}

await withEmptyDatabase(async (url) => {
  const orm = await MikroORM.init({
    clientUrl: url,
    entities: [...entities, ...RUNTIME_ENTITIES],
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
