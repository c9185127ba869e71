import { randomBytes } from "node:crypto";
import type { MikroORM } from "@mikro-orm/postgresql";
import pg from "pg";
import { ensureDatabaseExists } from "../db/orm.js";
import { RUNTIME_TABLE_NAMES, runtimeTablesSql, type RuntimeTable } from "../db/runtime-tables.js";

/** A table as the catalog describes it: columns in order, constraints and indexes by name. */
export interface TableDescription {
  columns: { name: string; type: string; nullable: boolean; default: string | null }[];
  constraints: { name: string; definition: string }[];
  indexes: { name: string; definition: string }[];
}

/** How `tables` look in the database at `url` (a missing table has no columns). */
export async function describeTables(url: string, tables: readonly string[]): Promise<Record<string, TableDescription>> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    const result: Record<string, TableDescription> = {};
    for (const table of tables) {
      const columns = await client.query<{ name: string; type: string; nullable: boolean; default: string | null }>(
        `select a.attname as name, format_type(a.atttypid, a.atttypmod) as type, not a.attnotnull as nullable, pg_get_expr(d.adbin, d.adrelid) as default
           from pg_attribute a left join pg_attrdef d on d.adrelid = a.attrelid and d.adnum = a.attnum
          where a.attrelid = to_regclass($1) and a.attnum > 0 and not a.attisdropped
          order by a.attnum`,
        [`public.${table}`],
      );
      const constraints = await client.query<{ name: string; definition: string }>(
        "select conname as name, pg_get_constraintdef(oid) as definition from pg_constraint where conrelid = to_regclass($1) order by conname",
        [`public.${table}`],
      );
      const indexes = await client.query<{ name: string; definition: string }>(
        "select indexname as name, indexdef as definition from pg_indexes where schemaname = 'public' and tablename = $1 order by indexname",
        [table],
      );
      result[table] = { columns: columns.rows, constraints: constraints.rows, indexes: indexes.rows };
    }
    return result;
  } finally {
    await client.end();
  }
}

/**
 * The runtime's tables as `addRuntimeTables` creates them, on a fresh database: what a service's
 * migrated database must hold, whichever migrations created the tables there.
 */
export async function runtimeTablesAsCreated(
  pgAdminUrl: string,
  tables: readonly RuntimeTable[] = RUNTIME_TABLE_NAMES,
): Promise<Record<string, TableDescription>> {
  const target = new URL(pgAdminUrl);
  target.pathname = `/runtime_tables_${randomBytes(6).toString("hex")}`;
  const url = target.toString();
  await ensureDatabaseExists(url);
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    for (const statement of runtimeTablesSql(tables)) await client.query(statement);
  } finally {
    await client.end();
  }
  return describeTables(url, tables);
}

/**
 * The SQL MikroORM's schema generator would run to bring a service's database (migrated at start)
 * to what its entities describe: "" when the hand-written migrations and the entities agree. Give
 * it the ORM of a running service (`services.service(name).orm`), so the entities are exactly those
 * the service runs with.
 */
export async function schemaDrift(orm: MikroORM): Promise<string> {
  return (await orm.schema.getUpdateSchemaSQL({ wrap: false })).trim();
}
