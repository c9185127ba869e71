import type { EntityManager } from "@mikro-orm/postgresql";
import { queryRows, sql } from "@imprint/runtime";

/** Ids of `collectionId` and every collection below it. */
export async function collectionSubtreeIds(em: EntityManager, collectionId: string): Promise<string[]> {
  const rows = await queryRows(
    em,
    sql<{ id: string }>`with recursive tree as (
       select id, 1 as depth from collections where id = ${collectionId}
       union all
       select c.id, tree.depth + 1 from collections c join tree on c.parent_id = tree.id where tree.depth < 100
     ) select id from tree`,
  );
  return rows.map((row) => row.id);
}
