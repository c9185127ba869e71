import type { EntityManager } from "@mikro-orm/postgresql";
import { isId } from "@imprint/runtime";
import type { UseCaseDeps } from "../../deps.js";
import { spaceContentUpdatedEvent } from "../../domain/platform/events.js";
import { recordDelivery } from "../shared/deliveries.js";
import { recipientsFor } from "../shared/recipients.js";

/** GitBook's `User` for an event's `updatedBy`. */
async function updatedBy(deps: Pick<UseCaseDeps, "identity" | "settings">, userId: string | null): Promise<Array<Record<string, unknown>>> {
  if (!userId || !isId(userId)) return [];
  const { users } = await deps.identity.users.batchGetUsers({ userIds: [userId] });
  return users.map((user) => ({
    object: "user",
    id: user.id,
    displayName: user.displayName,
    ...(user.photoUrl ? { photoURL: user.photoUrl } : {}),
    urls: { location: `${deps.settings.publicUrl}/v1/users/${user.id}` },
  }));
}

/**
 * A revision became a space's current content (an edit, or a change request's merge): every
 * installation that reads the space's content hears `space_content_updated`. Revisions on a change
 * request's branch are not the space's content and are not announced.
 */
export async function recordSpaceContentUpdated(
  em: EntityManager,
  input: { sourceEventId: string; organizationId: string; spaceId: string; revisionId: string; actorUserId: string | null },
  deps: UseCaseDeps,
): Promise<number> {
  const recipients = await recipientsFor(em, { organizationId: input.organizationId, kind: "space", targetId: input.spaceId, scope: "space:content:read" });
  if (recipients.length === 0) return 0;
  const users = await updatedBy(deps, input.actorUserId);
  for (const recipient of recipients) {
    recordDelivery(em, deps, {
      ...recipient,
      type: "space_content_updated",
      payload: (eventId) =>
        spaceContentUpdatedEvent({
          eventId,
          installationId: recipient.installationId,
          spaceId: input.spaceId,
          revisionId: input.revisionId,
          updatedBy: users as never,
        }),
      sourceKey: `${input.sourceEventId}:${recipient.installationId}`,
    });
  }
  return recipients.length;
}
