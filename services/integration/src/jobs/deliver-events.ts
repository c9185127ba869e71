import type { MikroORM } from "@mikro-orm/postgresql";
import { forkEm, type JobSpec } from "@imprint/runtime";
import type { UseCaseDeps } from "../deps.js";
import { deliverReadyEvents } from "../use-cases/integration-events/deliver-events.js";
import { DELIVERY_JOB } from "../use-cases/shared/deliveries.js";

/**
 * Delivers recorded integration events to scripts and tunnels. Woken when events are recorded;
 * the interval picks up retries that came due.
 */
export function deliverEventsJob(orm: MikroORM, deps: UseCaseDeps, intervalMs = 250): JobSpec {
  return {
    name: DELIVERY_JOB,
    intervalMs,
    run: (signal) => deliverReadyEvents(forkEm(orm), deps, signal),
  };
}
