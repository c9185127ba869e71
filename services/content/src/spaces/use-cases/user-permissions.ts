import type { EntityManager } from "@mikro-orm/postgresql";
import {
  AppError,
  callerMessage,
  findPage,
  type IdentityClients,
  isId,
  type PageRequestLike,
  pageOfSorted,
  queryRows,
  readPageRequest,
  requireCaller,
  sql,
} from "@imprint/runtime";
import { MemberRole } from "@imprint/proto/identity/v1";
import {
  atLeast,
  better,
  changeGrant,
  collectionChain,
  levelThroughChain,
  membershipOf,
  UserGrant,
  type CallerInput,
  type DefaultLevel,
  type GrantTarget,
  type Level,
} from "../../access/index.js";
import { requireTarget } from "./shared/grant-targets.js";
import type { UseCaseDeps } from "../../deps.js";

/** What managing people's grants needs: access checks, and identity for who is a member (and, for grants to teams, which teams are the organization's). */
export interface UserPermissionDeps extends UseCaseDeps {
  identity: {
    members: Pick<IdentityClients["members"], "batchGetMembers" | "listMembers">;
    teams: Pick<IdentityClients["teams"], "batchGetTeams">;
  };
}

/** At most this many users and as many teams in one GrantPermissions. */
export const MAX_GRANTEES = 100;

/** The users granted a level on a space or a collection directly, oldest grant first. */
export async function listUserPermissions(
  em: EntityManager,
  input: { caller: CallerInput | undefined; target: GrantTarget; targetId: string; page: PageRequestLike | undefined },
  deps: UseCaseDeps,
): Promise<{ organizationId: string; items: UserGrant[]; nextPageToken: string; totalCount: number }> {
  const item = await requireTarget(em, deps, input.caller, input.target, input.targetId, "view");
  const page = await findPage(
    em,
    UserGrant,
    { targetType: input.target, targetId: item.id, organizationId: item.organizationId },
    { fields: ["createdAt", "id"], direction: "asc", dateFields: ["createdAt"] },
    input.page,
  );
  return { organizationId: item.organizationId, ...page };
}

/** The ids among `userIds` that are members (or guests) of the organization. */
async function membersAmong(deps: UserPermissionDeps, organizationId: string, userIds: readonly string[]): Promise<Set<string>> {
  const ids = userIds.filter((id) => isId(id));
  if (ids.length === 0) return new Set();
  const { members } = await deps.identity.members.batchGetMembers({ organizationId, userIds: ids });
  return new Set(members.map((member) => member.user?.id ?? ""));
}

/**
 * Grants users and teams of the item's organization one level on it, or changes theirs, all in one
 * transaction (admins of the item); null takes their grants away. A user who is not a member of
 * the organization, or a team that is not one of its teams, is not found (GitBook's answer), named
 * by its place in the request.
 */
export async function grantPermissions(
  em: EntityManager,
  input: {
    caller: CallerInput | undefined;
    target: GrantTarget;
    targetId: string;
    userIds: readonly string[];
    teamIds: readonly string[];
    level: Level | null;
  },
  deps: UserPermissionDeps,
): Promise<void> {
  if (input.userIds.length > MAX_GRANTEES) throw AppError.invalidArgument(`user_ids: at most ${MAX_GRANTEES}`);
  if (input.teamIds.length > MAX_GRANTEES) throw AppError.invalidArgument(`team_ids: at most ${MAX_GRANTEES}`);
  if (input.userIds.length === 0 && input.teamIds.length === 0) throw AppError.invalidArgument("user_ids: name at least one user or team");
  await deps.unitOfWork.run(em, async (tx) => {
    const item = await requireTarget(tx, deps, input.caller, input.target, input.targetId, "admin");
    const members = await membersAmong(deps, item.organizationId, input.userIds);
    const missingUser = input.userIds.findIndex((id) => !members.has(id));
    if (missingUser >= 0) throw new AppError("not_found", `User not found: users[${missingUser}] is not a member of this organization`);
    const teamIds = input.teamIds.filter((id) => isId(id));
    const { teams } = teamIds.length > 0 ? await deps.identity.teams.batchGetTeams({ organizationId: item.organizationId, teamIds }) : { teams: [] };
    const known = new Set(teams.map((team) => team.id));
    const missingTeam = input.teamIds.findIndex((id) => !known.has(id));
    if (missingTeam >= 0) throw new AppError("not_found", `Team not found: teams[${missingTeam}] is not a team of this organization`);
    const context = { clock: deps.clock, actor: input.caller ?? null };
    const base = { organizationId: item.organizationId, target: input.target, targetId: item.id, level: input.level };
    for (const userId of new Set(input.userIds)) await changeGrant(tx, { ...base, grantee: { kind: "user", userId } }, context);
    for (const teamId of new Set(input.teamIds)) await changeGrant(tx, { ...base, grantee: { kind: "team", teamId } }, context);
  });
}

/** Grants a member of the item's organization a level on it, or changes it (admins of the item); null takes the grant away. */
export async function setUserPermission(
  em: EntityManager,
  input: { caller: CallerInput | undefined; target: GrantTarget; targetId: string; userId: string; level: Level | null },
  deps: UserPermissionDeps,
): Promise<void> {
  await deps.unitOfWork.run(em, async (tx) => {
    const item = await requireTarget(tx, deps, input.caller, input.target, input.targetId, "admin");
    if (!(await membersAmong(deps, item.organizationId, [input.userId])).has(input.userId)) throw AppError.notFound("User");
    await changeGrant(
      tx,
      { organizationId: item.organizationId, target: input.target, targetId: item.id, grantee: { kind: "user", userId: input.userId }, level: input.level },
      { clock: deps.clock, actor: input.caller ?? null },
    );
  });
}

/** Takes a user's direct grant on the item away (admins of the item); `removed` is false when they had none. */
export async function removeUserPermission(
  em: EntityManager,
  input: { caller: CallerInput | undefined; target: GrantTarget; targetId: string; userId: string },
  deps: UseCaseDeps,
): Promise<{ removed: boolean }> {
  return deps.unitOfWork.run(em, async (tx) => {
    const item = await requireTarget(tx, deps, input.caller, input.target, input.targetId, "admin");
    if (!isId(input.userId)) return { removed: false };
    const removed = await changeGrant(
      tx,
      { organizationId: item.organizationId, target: input.target, targetId: item.id, grantee: { kind: "user", userId: input.userId }, level: null },
      { clock: deps.clock, actor: input.caller ?? null },
    );
    return { removed };
  });
}

/** Where a member's level on an item comes from: their organization role (through default levels), or a grant on the item or a collection holding it. */
export type PermissionOrigin =
  | { kind: "organization" }
  | { kind: "user"; target: GrantTarget; targetId: string }
  | { kind: "team"; target: GrantTarget; targetId: string; teamId: string };

/** One member's level on an item and its origin. */
export interface PermissionAggregate {
  userId: string;
  level: Level;
  origin: PermissionOrigin;
}

interface GrantRow {
  user_id: string;
  team_id: string | null;
  target_type: GrantTarget;
  target_id: string;
  level: Level;
}

/**
 * Every enabled member of the organization who can view the item, with their level and its
 * origin: the best of their organization role through the default levels (organization admins:
 * admin) and the grants to them or their teams on the item or a collection holding it; a grant
 * wins a tie, so the aggregate says why someone has more than their role gives. Ordered by user id;
 * `role` keeps only members at that level. Needs the admin permission on the item.
 */
export async function listPermissionsAggregate(
  em: EntityManager,
  input: { caller: CallerInput | undefined; target: GrantTarget; targetId: string; page: PageRequestLike | undefined; role: Level | null },
  deps: UserPermissionDeps,
): Promise<{ organizationId: string; items: PermissionAggregate[]; nextPageToken: string; totalCount: number }> {
  const cursor = readPageRequest(input.page, `permissions-aggregate:${input.role ?? ""}`, ["string"]);
  const caller = requireCaller(input.caller);
  const item = await requireTarget(em, deps, input.caller, input.target, input.targetId, "admin");
  const ancestry = await collectionAncestorIds(em, item.parentId);
  const chain: DefaultLevel[] = [item.defaultLevel, ...(await collectionChain(em, item.parentId))];
  const grants = await grantsOnChain(em, item.organizationId, input.target, item.id, ancestry);
  const byUser = new Map<string, GrantRow[]>();
  for (const row of grants) byUser.set(row.user_id, [...(byUser.get(row.user_id) ?? []), row]);

  const aggregates: PermissionAggregate[] = [];
  let pageToken = "";
  do {
    const page = await deps.identity.members.listMembers({
      caller: callerMessage(caller),
      organizationId: item.organizationId,
      page: { pageToken, pageSize: 1000 },
      order: 0,
      role: MemberRole.MEMBER_ROLE_UNSPECIFIED,
      search: "",
      sort: 0,
    });
    for (const member of page.members) {
      const userId = member.user?.id;
      if (!userId || member.disabled) continue;
      const membership = membershipOf(item.organizationId, userId, member.role);
      const aggregate = aggregateOf(membership.role, chain, byUser.get(userId) ?? []);
      if (aggregate && (input.role === null || aggregate.level === input.role)) aggregates.push({ userId, ...aggregate });
    }
    pageToken = page.page?.nextPageToken ?? "";
  } while (pageToken);
  aggregates.sort((a, b) => (a.userId < b.userId ? -1 : a.userId > b.userId ? 1 : 0));
  const page = pageOfSorted(aggregates, (entry) => [entry.userId], cursor);
  return { organizationId: item.organizationId, ...page };
}

/** A member's level from their role and the chain of default levels, bettered by their grants (a grant wins a tie). */
function aggregateOf(role: Level | null, chain: readonly DefaultLevel[], grants: readonly GrantRow[]): Omit<PermissionAggregate, "userId"> | null {
  if (role === "admin") return { level: "admin", origin: { kind: "organization" } };
  const own = levelThroughChain({ role, userId: "", organizationId: "" }, chain);
  let best: GrantRow | null = null;
  for (const grant of grants) if (!best || better(best.level, grant.level) !== best.level) best = grant;
  if (best && (own === null || atLeast(best.level, own))) {
    const origin: PermissionOrigin = best.team_id
      ? { kind: "team", target: best.target_type, targetId: best.target_id, teamId: best.team_id }
      : { kind: "user", target: best.target_type, targetId: best.target_id };
    return { level: best.level, origin };
  }
  return own === null ? null : { level: own, origin: { kind: "organization" } };
}

/** Ids of `collectionId` and its ancestors, nearest first. */
async function collectionAncestorIds(em: EntityManager, collectionId: string | null): Promise<string[]> {
  if (!collectionId) return [];
  const rows = await queryRows(
    em,
    sql<{ id: string }>`with recursive chain as (
       select id, parent_id, 1 as depth from collections where id = ${collectionId}
       union all
       select c.id, c.parent_id, chain.depth + 1 from collections c join chain on c.id = chain.parent_id where chain.depth < 100
     ) select id from chain order by depth`,
  );
  return rows.map((row) => row.id);
}

/** Every grant, to a user or (through its present members) a team, on the item or one of the collections holding it. */
async function grantsOnChain(
  em: EntityManager,
  organizationId: string,
  target: GrantTarget,
  targetId: string,
  ancestry: readonly string[],
): Promise<GrantRow[]> {
  const onItem = sql`(g.target_type = ${target} and g.target_id = ${targetId})`;
  const onChain = ancestry.length > 0 ? sql`(${onItem} or (g.target_type = 'collection' and g.target_id in (${sql.join(ancestry)})))` : onItem;
  return queryRows(
    em,
    sql<GrantRow>`select g.user_id, null as team_id, g.target_type, g.target_id, g.level from user_grants g
      where g.organization_id = ${organizationId} and ${onChain}
     union all
     select m.user_id, g.team_id, g.target_type, g.target_id, g.level from team_grants g
       join team_memberships m on m.team_id = g.team_id and m.present and m.organization_id = ${organizationId}
      where g.organization_id = ${organizationId} and ${onChain}`,
  );
}
