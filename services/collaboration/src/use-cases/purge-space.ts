import type { EntityManager } from "@mikro-orm/postgresql";
import { ChangeRequest, ChangeRequestContributor, SpaceState } from "../domain/change-request.js";
import { Comment, CommentReply, Reaction } from "../domain/comment.js";

/**
 * Removes everything of a space content purged (`space.purged`): its change requests, comments,
 * replies, reactions and bookkeeping. Runs in the consumer's transaction; no event, the space is gone.
 */
export async function purgeSpace(em: EntityManager, input: { spaceId: string }): Promise<void> {
  const where = { spaceId: input.spaceId };
  await em.nativeDelete(Reaction, where);
  await em.nativeDelete(CommentReply, where);
  await em.nativeDelete(Comment, where);
  await em.nativeDelete(ChangeRequestContributor, where);
  await em.nativeDelete(ChangeRequest, where);
  await em.nativeDelete(SpaceState, where);
}
