import type { EntityManager } from "@mikro-orm/postgresql";

/** Ids of `collectionId` and every collection below it. */
export async function collectionSubtreeIds(em: EntityManager, collectionId: string): Promise<string[]> {
  const rows = await em.execute<{ id: string }[]>(
    `with recursive tree as (
       select id, 1 as depth from collections where id = ?
       union all
       select c.id, tree.depth + 1 from collections c join tree on c.parent_id = tree.id where tree.depth < 100
     ) select id from tree`,
    [collectionId],
  );
  return rows.map((row) => row.id);
}
