import type { EntityManager } from "@mikro-orm/postgresql";
import { queryRows, sql } from "@imprint/runtime";

/**
 * Records `version` as the space's newest lifecycle change when it is newer than the one applied,
 * answering whether it was (the event applies) or not (a late or repeated event: skip it). An
 * event without a version (0, recorded before versions existed) applies while the space has none either.
 */
export async function acceptLifecycleVersion(em: EntityManager, spaceId: string, version: number): Promise<boolean> {
  const accepted = await queryRows(
    em,
    sql<{ space_id: string }>`insert into space_lifecycles (space_id, version) values (${spaceId}, ${version})
     on conflict (space_id) do update set version = excluded.version
      where excluded.version > space_lifecycles.version or (excluded.version = 0 and space_lifecycles.version = 0)
     returning space_id`,
  );
  return accepted.length === 1;
}
