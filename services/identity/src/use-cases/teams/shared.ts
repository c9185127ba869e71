import { type EntityManager } from "@mikro-orm/postgresql";
import { AppError, findOwned, queryRows, sql } from "@imprint/runtime";
import type { Member } from "../../domain/member.js";
import { Member as MemberEntity } from "../../domain/member.js";
import { canManageTeam, Team, TeamMember, type TeamRoleValue } from "../../domain/team.js";
import { User } from "../../domain/user.js";
import { requireMembership } from "../shared/access.js";
import { isId } from "../shared/validation.js";
import { idOf } from "../shared/queries.js";

/** A team as the use cases answer it: its row, how many members it has, whether the caller may manage it. */
export interface TeamView {
  team: Team;
  members: number;
  canAdmin: boolean;
}

/** The most users one request may name (bulk updates, creation). */
export const MAX_TEAM_USERS = 1000;

/**
 * The caller's enabled membership, for reading teams: members see every team of their
 * organization; guests see none (their membership shows no organization structure).
 */
export async function requireTeamReader(
  em: EntityManager,
  organizationId: string,
  userId: string,
  sso?: { tokenId: string | undefined; now: Date },
): Promise<Member> {
  const member = await requireMembership(em, organizationId, userId, sso);
  if (member.role == null) throw AppError.permissionDenied("Guests cannot see the organization's teams");
  return member;
}

/**
 * The organization's team, or "Team not found" (also for another organization's). With `lock`
 * (inside a transaction), its row stays locked until the commit, so two changes of one team at once
 * (the same request sent twice) run one after the other, the second seeing what the first did.
 */
export async function findTeam(em: EntityManager, organizationId: string, teamId: string, options: { lock?: boolean } = {}): Promise<Team> {
  return findOwned(em, Team, { organization: organizationId }, teamId, options);
}

/** `userId`'s role in the team, or null when not in it. */
export async function teamRoleOf(em: EntityManager, teamId: string, userId: string): Promise<TeamRoleValue | null> {
  const row = await em.findOne(TeamMember, { team: teamId, user: userId }, { fields: ["role"] });
  return row?.role ?? null;
}

/** The team (locked until the commit: call it inside a transaction) and the caller's membership when the caller may manage it (admins, its owners); permission_denied otherwise. */
export async function requireTeamManager(
  em: EntityManager,
  organizationId: string,
  teamId: string,
  userId: string,
  sso?: { tokenId: string | undefined; now: Date },
): Promise<{ team: Team; caller: Member }> {
  const caller = await requireTeamReader(em, organizationId, userId, sso);
  const team = await findTeam(em, organizationId, teamId, { lock: true });
  if (!canManageTeam(caller, await teamRoleOf(em, team.id, userId)))
    throw AppError.permissionDenied("Only admins of the organization and owners of the team can manage it");
  return { team, caller };
}

/** How many members each team has. */
export async function memberCounts(em: EntityManager, teamIds: readonly string[]): Promise<Map<string, number>> {
  if (teamIds.length === 0) return new Map();
  const rows = await queryRows(
    em,
    sql<{
      team_id: string;
      members: string;
    }>`select team_id, count(*) as members from team_members where team_id in (${sql.join([...teamIds])}) group by team_id`,
  );
  return new Map(rows.map((row) => [row.team_id, Number(row.members)]));
}

/** The teams (of a list) the user owns. */
async function ownedTeamIds(em: EntityManager, teamIds: readonly string[], userId: string): Promise<Set<string>> {
  if (teamIds.length === 0) return new Set();
  const rows = await em.find(TeamMember, { team: { $in: [...teamIds] }, user: userId, role: "owner" }, { fields: ["team"] });
  return new Set(rows.map((row) => idOf(row.team)));
}

/** Teams as views for `caller`: member counts and whether the caller may manage each. */
export async function teamViews(em: EntityManager, teams: readonly Team[], caller: Pick<Member, "role"> & { userId: string }): Promise<TeamView[]> {
  const ids = teams.map((team) => team.id);
  const [counts, owned] = await Promise.all([
    memberCounts(em, ids),
    caller.role === "admin" || !isId(caller.userId) ? Promise.resolve(new Set<string>()) : ownedTeamIds(em, ids, caller.userId),
  ]);
  return teams.map((team) => ({ team, members: counts.get(team.id) ?? 0, canAdmin: caller.role === "admin" || owned.has(team.id) }));
}

/**
 * The users that `refs` (user ids or e-mail addresses) name among the organization's members, by
 * ref. One that names no member is a 400 naming it (`field[i]`), so a bulk change applies wholly or not at all.
 * Installation principals are no members here: they join no team.
 */
export async function resolveMemberRefs(em: EntityManager, organizationId: string, refs: readonly string[], field: string): Promise<Map<string, string>> {
  const resolved = new Map<string, string>();
  const ids = refs.filter((ref) => isId(ref));
  // E-mails are stored lower-cased; a ref that is neither an id nor a known e-mail matches nothing.
  const emails = refs.filter((ref) => !isId(ref)).map((ref: string) => ref.trim().toLowerCase());
  const users = await em.find(User, { $or: [{ id: { $in: ids } }, { email: { $in: emails } }], integrationInstallationId: null }, { fields: ["id", "email"] });
  const members = new Set(
    (await em.find(MemberEntity, { organization: organizationId, user: { $in: users.map((user) => user.id) } }, { fields: ["user"] })).map((member) =>
      idOf(member.user),
    ),
  );
  const byEmail = new Map(users.map((user) => [user.email, user.id]));
  for (const [index, ref] of refs.entries()) {
    const userId = isId(ref) ? ref : byEmail.get(String(ref).trim().toLowerCase());
    if (!userId || !members.has(userId)) throw AppError.invalidArgument(`${field}[${index}]: "${ref}" is not a member of the organization`);
    resolved.set(ref, userId);
  }
  return resolved;
}
