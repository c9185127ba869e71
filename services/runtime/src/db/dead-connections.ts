import { PostgresDriver } from "kysely";
import { infrastructureFailure } from "../errors.js";

let installed = false;

/**
 * Kysely (under MikroORM) releases a transaction's pooled connection only after its ROLLBACK
 * succeeds; when the database went away mid-transaction the ROLLBACK fails too, and the connection
 * is never given back: each transaction cut by an outage leaked a slot of the pool, until the
 * pool was exhausted and every query waited forever, database back or not. A ROLLBACK that fails
 * because the connection is gone has nothing left to undo (the server ends the transaction with the
 * session), so it counts as done: the connection is released and the pool discards it as broken.
 */
export function releaseDeadTransactionConnections(): void {
  if (installed) return;
  installed = true;
  const prototype = PostgresDriver.prototype;
  const rollback = Object.getOwnPropertyDescriptor(prototype, "rollbackTransaction")?.value as PostgresDriver["rollbackTransaction"];
  prototype.rollbackTransaction = async function (this: PostgresDriver, connection) {
    try {
      await rollback.call(this, connection);
    } catch (error) {
      if (infrastructureFailure(error)?.code !== "unavailable") throw error;
    }
  };
}
