import type { EntityManager } from "@mikro-orm/postgresql";
import type { PublishedAddress } from "@imprint/proto/publishing/v1/events";
import { queryRows, sql } from "@imprint/runtime";

/**
 * Sets where the space is published unless it already knows this or a newer announcement: events
 * may arrive late, twice or out of order. Answers whether the space changed.
 */
export async function applySpacePublication(em: EntityManager, spaceId: string, version: number, address: PublishedAddress | null): Promise<boolean> {
  const stored = address
    ? JSON.stringify({
        siteId: address.siteId,
        organizationId: address.organizationId,
        basename: address.basename,
        hostname: address.hostname,
        proxy: address.proxy,
        sectionPath: address.sectionPath,
        path: address.path,
      })
    : null;
  const changed = await queryRows(
    em,
    sql<{
      id: string;
    }>`update spaces set published_address = ${stored}, published_version = ${version} where id = ${spaceId} and published_version < ${version} returning id`,
  );
  return changed.length === 1;
}
