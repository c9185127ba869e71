import { handleEvents, keyByAggregate, UndecodablePayloadError, type ConsumerSpec } from "@imprint/runtime";
import { collaborationEvents } from "@imprint/proto/collaboration/v1/event-contracts";
import { isId } from "../../access/index.js";
import { applySpaceCounters } from "../use-cases/apply-space-counters.js";

const COUNTS = ["changeRequests", "changeRequestsOpen", "changeRequestsDraft", "comments", "version"] as const;

/**
 * The spaces' change-request and comment counters follow the collaboration service's events:
 * every event about a space carries `spaceId` and `spaceCounters` (the counts after the change,
 * with a version that increases per space), each read with its own message, and the space keeps
 * the highest version it saw. Events without counters are skipped. The collaboration
 * stream is created here if collaboration has not started yet (the runtime's subscribe ensures it).
 * Order: versioned. Collaboration bumps the space's version under the space's lock in each event's
 * transaction and counts after it, so versions follow commit order and each carries the whole
 * state; a lower or equal version changes nothing, and a space content does not have (purged) is
 * skipped (test/space-projections-property.test.ts).
 */
export function collaborationCountersConsumer(consumer: string): ConsumerSpec {
  return {
    context: "collaboration",
    consumer,
    filterSubject: "imprint.collaboration.v1.>",
    keyOf: keyByAggregate(collaborationEvents),
    handler: handleEvents(collaborationEvents, async ({ type, payload: { spaceId, spaceCounters } }, { em, logger }) => {
      if (!isId(spaceId) || !spaceCounters) return;
      // The decoder takes any number for a uint32: counts that are not counts break the contract.
      if (!COUNTS.every((name) => Number.isSafeInteger(spaceCounters[name]) && spaceCounters[name] >= 0)) {
        throw new UndecodablePayloadError(`${type}: payload.spaceCounters must hold non-negative integers`);
      }
      const applied = await applySpaceCounters(em, spaceId, spaceCounters);
      logger.debug(applied ? "space counters updated" : "space counters already newer; skipped", { spaceId, version: spaceCounters.version });
    }),
  };
}
