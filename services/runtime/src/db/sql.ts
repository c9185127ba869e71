import type { EntityManager } from "@mikro-orm/postgresql";
import { sql, type RawBuilder } from "kysely";

/**
 * Hand-written SQL, the one way every service writes it: the `sql` tagged template binds each
 * `${value}` as a parameter (an array travels as one PostgreSQL array, so a batch of ids is one
 * parameter: `id = any(${ids}::uuid[])`), `sql<Row>` types the rows, `sql.join`, `sql.table` and
 * `sql.raw` compose fragments. The queries run on the EntityManager's connection, inside its
 * transaction when it has one (a unit of work's `tx`), so they see and commit with its changes.
 */
export { sql, type RawBuilder };

/** Runs a query and answers its rows. */
export async function queryRows<Row>(em: EntityManager, query: RawBuilder<Row>): Promise<Row[]> {
  const result = await query.execute(em.getKysely());
  return result.rows;
}

/** Runs a statement (insert, update, delete without `returning`) and answers how many rows it changed. */
export async function executeStatement(em: EntityManager, query: RawBuilder<unknown>): Promise<number> {
  const result = await query.execute(em.getKysely());
  return Number(result.numAffectedRows ?? 0);
}

/**
 * A timestamptz column's value in a row of {@link queryRows}. The ORM's driver hands timestamps to
 * raw queries as PostgreSQL text ("2026-11-21 05:06:54.051+00"); this reads that (or a Date) into a Date.
 */
export function toDate(value: Date | string): Date {
  if (value instanceof Date) return value;
  const iso = value.replace(" ", "T").replace(/([+-]\d{2})$/, "$1:00");
  const date = new Date(iso);
  if (Number.isNaN(date.getTime())) throw new Error(`not a timestamp: ${value}`);
  return date;
}

/** {@link toDate} for a nullable column. */
export function toDateOrNull(value: Date | string | null | undefined): Date | null {
  return value === null || value === undefined ? null : toDate(value);
}
