import { teamMembershipCopyReconcileJob, type JobSpec, type ServiceDeps } from "@imprint/runtime";
import type { UseCaseDeps } from "../deps.js";
import { knownOrganizations } from "../use-cases/team-memberships/reconcile-team-memberships.js";

export const TEAM_RECONCILE_JOB = "publishing-team-membership-reconcile";

/**
 * Makes publishing's copy of team memberships equal to identity's for every organization whose
 * sites have team grants, every TEAM_RECONCILE_INTERVAL_MS, on one replica at a time: the events
 * keep it current, this repairs what they could not (an event lost, a row changed by hand).
 */
export function teamMembershipReconcileJob(deps: UseCaseDeps, runtime: ServiceDeps, intervalMs: number): JobSpec {
  return teamMembershipCopyReconcileJob({
    name: TEAM_RECONCILE_JOB,
    intervalMs,
    orm: runtime.orm,
    deps: { ...deps, logger: runtime.logger },
    knownOrganizations,
  });
}
