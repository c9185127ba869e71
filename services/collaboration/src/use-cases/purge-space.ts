import type { EntityManager } from "@mikro-orm/postgresql";
import { ChangeRequest, ChangeRequestContributor, SpaceState } from "../domain/change-request.js";
import { Comment, CommentReply, Reaction } from "../domain/comment.js";
import { RequestedReviewer, Review } from "../domain/review.js";

/**
 * Removes everything of a space content purged (`space.purged`): its change requests, their reviewers
 * and reviews, comments, replies, reactions and bookkeeping. Runs in the consumer's transaction; no event, the space is gone.
 */
export async function purgeSpace(em: EntityManager, input: { spaceId: string }): Promise<void> {
  const where = { spaceId: input.spaceId };
  await em.nativeDelete(Reaction, where);
  await em.nativeDelete(CommentReply, where);
  await em.nativeDelete(Comment, where);
  await em.nativeDelete(Review, where);
  await em.nativeDelete(RequestedReviewer, where);
  await em.nativeDelete(ChangeRequestContributor, where);
  await em.nativeDelete(ChangeRequest, where);
  await em.nativeDelete(SpaceState, where);
}
