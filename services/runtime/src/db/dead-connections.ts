import type { Pool, PoolClient } from "pg";

type Release = PoolClient["release"];

/**
 * Gives a pooled connection back the moment it dies while checked out. Kysely (under MikroORM)
 * releases a connection only after its transaction's BEGIN, COMMIT or ROLLBACK succeeds: when the
 * database goes away mid-transaction those fail too, and the connection was never given back.
 * Each transaction an outage cut leaked a slot of the pool, until it ran dry and every query
 * waited forever, database back or not (nor could the service stop: ending the pool waited for
 * them). Here a connection that ends while in use is released with an error at once (the pool
 * discards it), and the release its user may still call later is a no-op.
 */
export function releaseConnectionsThatDie(pool: Pool): void {
  pool.on("connect", (client) => {
    // pg-pool assigns a fresh release function at each checkout; the accessor keeps the current one.
    let current: Release | undefined;
    const release: Release = (error) => {
      const pending = current;
      current = undefined;
      pending?.(error);
    };
    Object.defineProperty(client, "release", {
      configurable: true,
      get: () => release,
      set: (assigned: Release) => {
        current = assigned;
      },
    });
    client.on("end", () => release(new Error("connection to the database lost")));
  });
}
