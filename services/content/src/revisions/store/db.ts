import type { EntityManager } from "@mikro-orm/postgresql";
import { sql, type RawBuilder } from "kysely";

/**
 * Hand-written SQL for the revision store's hot paths, with bound parameters (arrays travel as
 * PostgreSQL arrays, so a batch of ids or rows is one parameter). Runs on the EntityManager's
 * connection, inside its transaction when there is one.
 */
export { sql };

export async function queryRows<Row>(em: EntityManager, query: RawBuilder<Row>): Promise<Row[]> {
  const result = await query.execute(em.getKysely());
  return result.rows;
}

/** Runs a statement and answers how many rows it changed. */
export async function execute(em: EntityManager, query: RawBuilder<unknown>): Promise<number> {
  const result = await query.execute(em.getKysely());
  return Number(result.numAffectedRows ?? 0);
}

/**
 * A timestamptz column's value. MikroORM's driver hands dates to raw queries as PostgreSQL text
 * ("2026-11-21 05:06:54.051+00"); this reads that (or a Date) into a Date.
 */
export function toDate(value: Date | string): Date {
  if (value instanceof Date) return value;
  const iso = value.replace(" ", "T").replace(/([+-]\d{2})$/, "$1:00");
  const date = new Date(iso);
  if (Number.isNaN(date.getTime())) throw new Error(`not a timestamp: ${value}`);
  return date;
}
