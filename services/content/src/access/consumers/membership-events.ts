import { defineEvent, handleEvents, type ConsumerSpec } from "@imprint/runtime";
import { MemberAdded, MemberRemoved, MemberRoleChanged, MemberSsoEnabled } from "@imprint/proto/identity/v1/events";
import type { MembershipCache } from "../memberships.js";

/** Identity's events about a member of an organization, as this consumer reads them. */
export const consumedMemberEvents = [
  defineEvent({ context: "identity", aggregate: "member", event: "added", message: MemberAdded }),
  defineEvent({ context: "identity", aggregate: "member", event: "role_changed", message: MemberRoleChanged }),
  defineEvent({ context: "identity", aggregate: "member", event: "removed", message: MemberRemoved }),
  defineEvent({ context: "identity", aggregate: "member", event: "sso_enabled", message: MemberSsoEnabled }),
] as const;

/**
 * Identity's member events (added, role_changed, removed, sso_enabled) drop the cached membership,
 * so a removed member loses access within seconds. The handler changes nothing in the database; the
 * runtime still records the event as processed there, which keeps redeliveries idempotent.
 */
export function membershipEventsConsumer(memberships: MembershipCache, consumer: string): ConsumerSpec {
  return {
    context: "identity",
    consumer,
    filterSubject: "imprint.identity.v1.member.>",
    handler: handleEvents(consumedMemberEvents, async (event) => {
      if (event.organizationId && event.payload.userId) memberships.invalidate(event.organizationId, event.payload.userId);
    }),
  };
}
