import type { EntityManager } from "@mikro-orm/postgresql";
import { ChangeRequest, Comment, CommentReply } from "../domain/index.js";

/** Follows a space moved to another organization (`space.transferred`): its rows name the new owner. */
export async function transferSpace(em: EntityManager, input: { spaceId: string; organizationId: string }): Promise<void> {
  const where = { spaceId: input.spaceId };
  const change = { organizationId: input.organizationId };
  await em.nativeUpdate(ChangeRequest, where, change);
  await em.nativeUpdate(Comment, where, change);
  await em.nativeUpdate(CommentReply, where, change);
}
