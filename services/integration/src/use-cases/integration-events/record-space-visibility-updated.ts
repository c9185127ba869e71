import type { EntityManager } from "@mikro-orm/postgresql";
import type { UseCaseDeps } from "../../deps.js";
import { spaceVisibilityUpdatedEvent } from "../../domain/platform/events.js";
import { recordDelivery } from "../shared/deliveries.js";
import { recipientsFor } from "../shared/recipients.js";

/** A space's visibility changed: installations that read its metadata hear `space_visibility_updated`. */
export async function recordSpaceVisibilityUpdated(
  em: EntityManager,
  input: { sourceEventId: string; organizationId: string; spaceId: string; previousVisibility: string; visibility: string },
  deps: UseCaseDeps,
): Promise<number> {
  const recipients = await recipientsFor(em, { organizationId: input.organizationId, kind: "space", targetId: input.spaceId, scope: "space:metadata:read" });
  for (const recipient of recipients) {
    recordDelivery(em, deps, {
      ...recipient,
      type: "space_visibility_updated",
      payload: (eventId) =>
        spaceVisibilityUpdatedEvent({
          eventId,
          installationId: recipient.installationId,
          spaceId: input.spaceId,
          previousVisibility: input.previousVisibility,
          visibility: input.visibility,
        } as never),
      sourceKey: `${input.sourceEventId}:${recipient.installationId}`,
    });
  }
  return recipients.length;
}
