import type { EntityManager, FilterQuery } from "@mikro-orm/postgresql";
import { AppError, findPage, type PageRequestLike, queryRows, sql, recordEvent } from "@imprint/runtime";
import { Member, personMembership } from "../../domain/member.js";
import { nextMembershipVersion } from "../../store/organizations.js";
import { User } from "../../domain/user.js";
import { Team, TeamMember, type TeamRoleValue } from "../../domain/team.js";
import { teamMemberAdded, teamMemberRemoved, teamMemberRoleChanged } from "../../events.js";
import { isId, requireCaller } from "../shared/validation.js";
import type { CallerInput, UseCaseDeps } from "../../deps.js";
import { findTeam, MAX_TEAM_USERS, requireTeamManager, requireTeamReader, resolveMemberRefs, teamViews, type TeamView } from "./shared.js";
import { containsPattern, idOf } from "../shared/queries.js";

type Actor = CallerInput;

/** A team member: the organization membership and the role in the team. */
export interface TeamMembershipView {
  member: Member;
  role: TeamRoleValue;
}

const userIdOf = (row: TeamMember) => idOf(row.user);

/** Adds the user with `role`, or changes their role; records what changed. Answers whether anything did. */
function setMembership(
  tx: EntityManager,
  deps: UseCaseDeps,
  actor: Actor,
  organizationId: string,
  team: Team,
  existing: TeamMember | undefined,
  userId: string,
  role: TeamRoleValue,
  membershipVersion: number,
): boolean {
  if (!existing) {
    tx.create(TeamMember, { team, user: userId, role, addedAt: deps.clock() });
    recordEvent(tx, teamMemberAdded, { organizationId, actor, payload: { teamId: team.id, userId, role, membershipVersion } });
    return true;
  }
  if (existing.role === role) return false;
  recordEvent(tx, teamMemberRoleChanged, { organizationId, actor, payload: { teamId: team.id, userId, from: existing.role, to: role } });
  existing.role = role;
  return true;
}

function dropMembership(tx: EntityManager, actor: Actor, organizationId: string, team: Team, existing: TeamMember, membershipVersion: number): void {
  recordEvent(tx, teamMemberRemoved, { organizationId, actor, payload: { teamId: team.id, userId: userIdOf(existing), membershipVersion } });
  tx.remove(existing);
}

/** A team's members, by when they joined it. */
export async function listTeamMembers(
  em: EntityManager,
  input: { caller: CallerInput | undefined; organizationId: string; teamId: string; page: PageRequestLike | undefined },
  deps: UseCaseDeps,
): Promise<{ items: TeamMembershipView[]; nextPageToken: string; totalCount: number }> {
  const caller = requireCaller(input.caller);
  await requireTeamReader(em, input.organizationId, caller.userId, { tokenId: caller.tokenId, now: deps.clock() });
  const team = await findTeam(em, input.organizationId, input.teamId);
  const page = await findPage(
    em,
    TeamMember,
    { team: team.id } as FilterQuery<TeamMember>,
    { fields: ["addedAt", "id"], direction: "asc", dateFields: ["addedAt"] },
    input.page,
  );
  const members = await em.find(Member, { organization: input.organizationId, user: { $in: page.items.map(userIdOf) } }, { populate: ["user"] });
  const byUser = new Map(members.map((member) => [member.user.id, member]));
  return { ...page, items: page.items.flatMap((row) => (byUser.has(userIdOf(row)) ? [{ member: byUser.get(userIdOf(row))!, role: row.role }] : [])) };
}

/**
 * Adds, removes and sets roles of several members at once (admins and the team's owners): every
 * user is resolved first, and one that is not a member of the organization fails the whole request.
 * A user both added and removed is removed; `roles` applies to members added or already there.
 */
export async function updateTeamMembers(
  em: EntityManager,
  input: {
    caller: CallerInput | undefined;
    organizationId: string;
    teamId: string;
    add: readonly string[];
    remove: readonly string[];
    roles: Record<string, TeamRoleValue>;
  },
  deps: UseCaseDeps,
): Promise<void> {
  const caller = requireCaller(input.caller);
  const roleRefs = Object.keys(input.roles);
  if (input.add.length + input.remove.length + roleRefs.length > MAX_TEAM_USERS)
    throw AppError.invalidArgument(`add, remove and memberships: at most ${MAX_TEAM_USERS} users in all`);
  await deps.unitOfWork.run(em, async (tx) => {
    const { team } = await requireTeamManager(tx, input.organizationId, input.teamId, caller.userId, { tokenId: caller.tokenId, now: deps.clock() });
    // Before the team's rows are read: the version's lock orders this change after any concurrent one.
    const version = await nextMembershipVersion(tx, input.organizationId);
    const added = await resolveMemberRefs(tx, input.organizationId, input.add, "add");
    const removed = await resolveRefsForRemoval(tx, input.remove);
    const withRoles = await resolveMemberRefs(tx, input.organizationId, roleRefs, "memberships");
    const rows = new Map((await tx.find(TeamMember, { team })).map((row) => [userIdOf(row), row]));
    const removedIds = new Set(removed);
    const roleOf = new Map([...withRoles].map(([ref, userId]) => [userId, input.roles[ref]!]));
    for (const userId of new Set([...added.values(), ...roleOf.keys()])) {
      if (removedIds.has(userId)) continue;
      const role = roleOf.get(userId) ?? rows.get(userId)?.role ?? "member";
      setMembership(tx, deps, caller, input.organizationId, team, rows.get(userId), userId, role, version);
    }
    for (const userId of removedIds) {
      const row = rows.get(userId);
      if (row) dropMembership(tx, caller, input.organizationId, team, row, version);
    }
  });
}

/** Users named for removal (ids, or e-mails of known users); unknown ones are not in the team anyway. */
async function resolveRefsForRemoval(tx: EntityManager, refs: readonly string[]): Promise<string[]> {
  const ids = refs.filter((ref) => isId(ref));
  const emails = refs.filter((ref) => !isId(ref)).map((ref: string) => ref.trim().toLowerCase());
  if (emails.length === 0) return ids;
  const users = await tx.find(User, { email: { $in: emails } }, { fields: ["id"] });
  return [...ids, ...users.map((user) => user.id)];
}

/** Adds a member to the team, or sets their role (admins and the team's owners). `role` undefined: member for a new one, unchanged otherwise. */
export async function putTeamMember(
  em: EntityManager,
  input: { caller: CallerInput | undefined; organizationId: string; teamId: string; userId: string; role: TeamRoleValue | undefined },
  deps: UseCaseDeps,
): Promise<void> {
  const caller = requireCaller(input.caller);
  await deps.unitOfWork.run(em, async (tx) => {
    const { team } = await requireTeamManager(tx, input.organizationId, input.teamId, caller.userId, { tokenId: caller.tokenId, now: deps.clock() });
    const member = isId(input.userId) ? await tx.findOne(Member, personMembership(input.organizationId, input.userId)) : null;
    if (!member) throw AppError.notFound("Member");
    const version = await nextMembershipVersion(tx, input.organizationId);
    const existing = (await tx.findOne(TeamMember, { team, user: input.userId })) ?? undefined;
    setMembership(tx, deps, caller, input.organizationId, team, existing, input.userId, input.role ?? existing?.role ?? "member", version);
  });
}

/** Removes a user from the team (admins and the team's owners); `removed` is false when they were not in it. */
export async function removeTeamMember(
  em: EntityManager,
  input: { caller: CallerInput | undefined; organizationId: string; teamId: string; userId: string },
  deps: UseCaseDeps,
): Promise<{ removed: boolean }> {
  const caller = requireCaller(input.caller);
  return deps.unitOfWork.run(em, async (tx) => {
    const { team } = await requireTeamManager(tx, input.organizationId, input.teamId, caller.userId, { tokenId: caller.tokenId, now: deps.clock() });
    if (!isId(input.userId)) return { removed: false };
    const version = await nextMembershipVersion(tx, input.organizationId);
    const existing = await tx.findOne(TeamMember, { team, user: input.userId });
    if (!existing) return { removed: false };
    dropMembership(tx, caller, input.organizationId, team, existing, version);
    return { removed: true };
  });
}

/** The teams a member of the organization belongs to, oldest membership first, with their role in each. */
export async function listMemberTeams(
  em: EntityManager,
  input: { caller: CallerInput | undefined; organizationId: string; userId: string; page: PageRequestLike | undefined; title: string },
  deps: UseCaseDeps,
): Promise<{ items: { view: TeamView; role: TeamRoleValue }[]; nextPageToken: string; totalCount: number }> {
  const caller = requireCaller(input.caller);
  const reader = await requireTeamReader(em, input.organizationId, caller.userId, { tokenId: caller.tokenId, now: deps.clock() });
  const member = isId(input.userId) ? await em.findOne(Member, personMembership(input.organizationId, input.userId)) : null;
  if (!member) throw AppError.notFound("Member");
  const title = input.title.trim();
  if (title.length > 255) throw AppError.invalidArgument("title: must be at most 255 characters");
  const where: FilterQuery<TeamMember> = {
    user: input.userId,
    team: { organization: input.organizationId, ...(title ? { title: { $ilike: containsPattern(title) } } : {}) },
  };
  const page = await findPage(em, TeamMember, where, { fields: ["addedAt", "id"], direction: "asc", dateFields: ["addedAt"] }, input.page, {
    populate: ["team"],
  });
  const views = await teamViews(
    em,
    page.items.map((row) => row.team as Team),
    { role: reader.role ?? null, userId: caller.userId },
  );
  return { ...page, items: page.items.map((row, index) => ({ view: views[index]!, role: row.role })) };
}

/** The teams a user belongs to in an organization (internal: for services that grant access to teams). */
export async function getUserTeams(em: EntityManager, input: { organizationId: string; userId: string }, _deps: UseCaseDeps): Promise<string[]> {
  if (!isId(input.organizationId) || !isId(input.userId)) return [];
  const rows = await em.find(TeamMember, { user: input.userId, team: { organization: input.organizationId } }, { fields: ["team"] });
  return rows.map((row) => idOf(row.team));
}

/** Teams of an organization by id, in request order (internal: no caller, so nobody may manage them here). */
export async function batchGetTeams(em: EntityManager, input: { organizationId: string; teamIds: readonly string[] }, _deps: UseCaseDeps): Promise<TeamView[]> {
  if (input.teamIds.length > MAX_TEAM_USERS) throw AppError.invalidArgument(`team_ids: at most ${MAX_TEAM_USERS}`);
  const ids = input.teamIds.filter((id) => isId(id));
  if (!isId(input.organizationId) || ids.length === 0) return [];
  const teams = await em.find(Team, { id: { $in: ids }, organization: input.organizationId });
  const views = await teamViews(em, teams, { role: null, userId: "" });
  const byId = new Map(views.map((view) => [view.team.id, { ...view, canAdmin: false }]));
  return ids.flatMap((id) => byId.get(id) ?? []);
}

/** The most memberships {@link listTeamMemberships} answers at once. */
export const MAX_LISTED_MEMBERSHIPS = 100_000;

/** Every team membership of an organization, as of its team-membership version. */
export interface TeamMembershipSnapshot {
  memberships: { teamId: string; userId: string }[];
  teamIds: string[];
  membershipVersion: number;
}

/**
 * Every team membership of an organization with the version it is as of (internal: for services
 * that keep a copy and reconcile it). One statement reads them, so the version and the rows come
 * from one snapshot. Empty for an unknown organization.
 */
export async function listTeamMemberships(em: EntityManager, input: { organizationId: string }, _deps: UseCaseDeps): Promise<TeamMembershipSnapshot> {
  if (!isId(input.organizationId)) return { memberships: [], teamIds: [], membershipVersion: 0 };
  const rows = await queryRows(
    em,
    sql<{ membership_version: number; team_id: string | null; user_id: string | null }>`select o.membership_version, t.id as team_id, m.user_id
       from organizations o left join teams t on t.organization_id = o.id left join team_members m on m.team_id = t.id
      where o.id = ${input.organizationId} order by t.id, m.user_id limit ${MAX_LISTED_MEMBERSHIPS + 1}`,
  );
  if (rows.length > MAX_LISTED_MEMBERSHIPS) throw new AppError("failed_precondition", `organization_id: more than ${MAX_LISTED_MEMBERSHIPS} team memberships`);
  const teamIds = new Set<string>();
  const memberships: { teamId: string; userId: string }[] = [];
  for (const row of rows) {
    if (row.team_id) teamIds.add(row.team_id);
    if (row.team_id && row.user_id) memberships.push({ teamId: row.team_id, userId: row.user_id });
  }
  return { memberships, teamIds: [...teamIds], membershipVersion: Number(rows[0]?.membership_version ?? 0) };
}
