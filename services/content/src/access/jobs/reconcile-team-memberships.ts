import { teamMembershipCopyReconcileJob, type JobSpec } from "@imprint/runtime";
import type { ContentDeps } from "../../deps.js";
import { knownOrganizations } from "../use-cases/reconcile-team-memberships.js";

export const TEAM_RECONCILE_JOB = "team-membership-reconcile";

/**
 * Makes content's copy of team memberships equal to identity's for every organization content
 * knows, every TEAM_RECONCILE_INTERVAL_MS, on one replica at a time: the events keep it current,
 * this repairs what they could not (an event lost, a row changed by hand). The internal
 * ReconcileTeamMemberships RPC (`npm run admin -- reconcile team-memberships`) runs it on demand.
 */
export function teamMembershipReconcileJob(deps: ContentDeps): JobSpec {
  return teamMembershipCopyReconcileJob({
    name: TEAM_RECONCILE_JOB,
    intervalMs: deps.config.TEAM_RECONCILE_INTERVAL_MS,
    orm: deps.orm,
    deps,
    knownOrganizations,
  });
}
