/**
 * Access: levels and permissions (domain/), the caller's organization membership and level on an
 * item (checks.ts), the organization-role cache over identity (memberships.ts), teams' grants and
 * content's copy of team memberships (its consumer and reconciliation job). The checks on a space
 * or a collection load spaces' rows, so they live in spaces (`requireSpaceAccess`).
 */

export * from "./domain/levels.js";
export * from "./domain/permissions.js";
export * from "./domain/team-grants.js";
export * from "./domain/user-grants.js";
export * from "./domain/entities.js";
export * from "./memberships.js";
export { changeGrant, type GrantChange, type Grantee } from "./grants.js";
export { requireOrganizationMembership, collectionChain, grantedLevelsOf, spaceLevel, collectionLevel, type LeveledItem } from "./checks.js";
export { teamMembershipsConsumer } from "./consumers/team-memberships.js";
export { teamMembershipReconcileJob } from "./jobs/reconcile-team-memberships.js";
export { reconcileAllTeamMemberships } from "./use-cases/reconcile-team-memberships.js";
export type { AccessDeps } from "../deps.js";
/** The caller checks every context shares, from the runtime. */
export { isId, requireCaller, type CallerInput } from "@imprint/runtime";
