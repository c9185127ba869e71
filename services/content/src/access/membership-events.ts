import type { ConsumerSpec } from "@imprint/runtime";
import type { MembershipCache } from "./memberships.js";

/**
 * Identity's member events (added, role_changed, removed, ...) drop the cached membership, so a
 * removed member loses access within seconds. The handler changes nothing in the database; the
 * runtime still records the event as processed there, which keeps redeliveries idempotent.
 */
export function membershipEventsConsumer(memberships: MembershipCache, consumer: string): ConsumerSpec {
  return {
    context: "identity",
    consumer,
    filterSubject: "imprint.identity.v1.member.>",
    handler: async (envelope) => {
      memberships.applyMemberEvent(envelope);
      return Promise.resolve();
    },
  };
}
