import type { EntityManager } from "@mikro-orm/postgresql";
import { ChangeRequest } from "../domain/change-request.js";
import { Comment, CommentReply } from "../domain/comment.js";

/** Follows a space moved to another organization (`space.transferred`): its rows name the new owner. */
export async function transferSpace(em: EntityManager, input: { spaceId: string; organizationId: string }): Promise<void> {
  const where = { spaceId: input.spaceId };
  const change = { organizationId: input.organizationId };
  await em.nativeUpdate(ChangeRequest, where, change);
  await em.nativeUpdate(Comment, where, change);
  await em.nativeUpdate(CommentReply, where, change);
}
