import type { EntityManager } from "@mikro-orm/postgresql";
import { queryRows, sql } from "@imprint/runtime";
import { ChangeRequest } from "../domain/change-request.js";
import { Comment, CommentReply } from "../domain/comment.js";
import { Review } from "../domain/review.js";

/**
 * Follows a space moved to another organization (`space.transferred`): its rows name the new owner.
 * Only a transfer newer than the space's last one applied (content's `lifecycleVersion`) changes
 * anything: a late redelivery of an earlier transfer never moves the rows back. An event without
 * a version (0) applies while the space has none either, as before versions existed.
 */
export async function transferSpace(em: EntityManager, input: { spaceId: string; organizationId: string; lifecycleVersion: number }): Promise<void> {
  const accepted = await queryRows(
    em,
    sql<{
      space_id: string;
    }>`insert into space_states (space_id, next_number, counters_version, lifecycle_version) values (${input.spaceId}, 1, 0, ${input.lifecycleVersion})
     on conflict (space_id) do update set lifecycle_version = excluded.lifecycle_version
      where excluded.lifecycle_version > space_states.lifecycle_version or (excluded.lifecycle_version = 0 and space_states.lifecycle_version = 0)
     returning space_id`,
  );
  if (accepted.length === 0) return;
  const where = { spaceId: input.spaceId };
  const change = { organizationId: input.organizationId };
  await em.nativeUpdate(ChangeRequest, where, change);
  await em.nativeUpdate(Comment, where, change);
  await em.nativeUpdate(CommentReply, where, change);
  await em.nativeUpdate(Review, where, change);
}
