import { spaceCountersOf, type ConsumerSpec } from "@imprint/runtime";
import { applySpaceCounters } from "./use-cases/spaces/apply-space-counters.js";

/**
 * The spaces' change-request and comment counters follow the collaboration service's events:
 * every event about a space carries `spaceId` and `spaceCounters` (the counts after the change,
 * with a version that increases per space), and the space keeps the highest version it saw.
 * Events without counters are skipped. The collaboration stream is created here if collaboration
 * has not started yet (the runtime's subscribe ensures it).
 */
export function collaborationCountersConsumer(consumer: string): ConsumerSpec {
  return {
    context: "collaboration",
    consumer,
    filterSubject: "imprint.collaboration.v1.>",
    handler: async (envelope, { em, logger }) => {
      const found = spaceCountersOf(envelope.payload);
      if (!found) return;
      const applied = await applySpaceCounters(em, found.spaceId, found.counters);
      logger.debug(applied ? "space counters updated" : "space counters already newer; skipped", { spaceId: found.spaceId, version: found.counters.version });
    },
  };
}
