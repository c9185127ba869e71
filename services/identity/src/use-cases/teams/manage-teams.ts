import { type EntityManager, type FilterQuery } from "@mikro-orm/postgresql";
import { AppError, findOwnedOrNull, findPage, type PageRequestLike, parseUpdateMask, recordEvent } from "@imprint/runtime";
import { Member, personMembership } from "../../domain/member.js";
import { nextMembershipVersion } from "../../store/organizations.js";
import { canManageTeam, Team, TeamMember, teamTitle } from "../../domain/team.js";
import { teamCreated, teamDeleted, teamMemberAdded, teamUpdated } from "../../events.js";
import { isId, requireCaller } from "../shared/validation.js";
import type { CallerInput, UseCaseDeps } from "../../deps.js";
import { findTeam, MAX_TEAM_USERS, requireTeamManager, requireTeamReader, resolveMemberRefs, teamRoleOf, teamViews, type TeamView } from "./shared.js";
import { containsPattern, idOf } from "../shared/queries.js";

const MAX_FILTER_LENGTH = 255;

function titleFilter(title: string): FilterQuery<Team> | null {
  const text = title.trim();
  if (text.length > MAX_FILTER_LENGTH) throw AppError.invalidArgument(`title: must be at most ${MAX_FILTER_LENGTH} characters`);
  return text ? { title: { $ilike: containsPattern(text) } } : null;
}

/**
 * The organization's teams, oldest first: optionally those a member can manage (`ownerUserId`:
 * every team for an admin, the teams they own otherwise) and those whose title contains a text.
 */
export async function listTeams(
  em: EntityManager,
  input: { caller: CallerInput | undefined; organizationId: string; page: PageRequestLike | undefined; ownerUserId: string; title: string },
  deps: UseCaseDeps,
): Promise<{ items: TeamView[]; nextPageToken: string; totalCount: number }> {
  const caller = requireCaller(input.caller);
  const member = await requireTeamReader(em, input.organizationId, caller.userId, { tokenId: caller.tokenId, now: deps.clock() });
  const conditions: FilterQuery<Team>[] = [{ organization: input.organizationId }];
  const byTitle = titleFilter(input.title);
  if (byTitle) conditions.push(byTitle);
  if (input.ownerUserId) {
    const owner = isId(input.ownerUserId) ? await em.findOne(Member, personMembership(input.organizationId, input.ownerUserId, { enabledOnly: true })) : null;
    if (!owner) throw AppError.invalidArgument(`owner: "${input.ownerUserId}" is not a member of the organization`);
    if (owner.role !== "admin") {
      // An organization holds few teams: the owned ones are read as a list of ids.
      const owned = await em.find(TeamMember, { user: input.ownerUserId, role: "owner", team: { organization: input.organizationId } }, { fields: ["team"] });
      conditions.push({ id: { $in: owned.map((row) => idOf(row.team)) } });
    }
  }
  const page = await findPage(em, Team, { $and: conditions }, { fields: ["createdAt", "id"], direction: "asc", dateFields: ["createdAt"] }, input.page);
  return { ...page, items: await teamViews(em, page.items, { role: member.role ?? null, userId: caller.userId }) };
}

/** Creates a team (admins only) with members of the organization as its first members. */
export async function createTeam(
  em: EntityManager,
  input: { caller: CallerInput | undefined; organizationId: string; title: string; memberUserIds: readonly string[] },
  deps: UseCaseDeps,
): Promise<TeamView> {
  const caller = requireCaller(input.caller);
  const title = teamTitle(input.title);
  if (input.memberUserIds.length > MAX_TEAM_USERS) throw AppError.invalidArgument(`members: at most ${MAX_TEAM_USERS}`);
  return deps.unitOfWork.run(em, async (tx) => {
    const member = await requireTeamReader(tx, input.organizationId, caller.userId, { tokenId: caller.tokenId, now: deps.clock() });
    member.requireAdmin("create teams");
    const users = await resolveMemberRefs(tx, input.organizationId, input.memberUserIds, "members");
    const membershipVersion = users.size > 0 ? await nextMembershipVersion(tx, input.organizationId) : 0;
    const now = deps.clock();
    const team = tx.create(Team, { organization: input.organizationId, title, createdAt: now });
    recordEvent(tx, teamCreated, { organizationId: input.organizationId, actor: caller, payload: { teamId: team.id, title } });
    for (const userId of new Set(users.values())) {
      tx.create(TeamMember, { team, user: userId, role: "member", addedAt: now });
      recordEvent(tx, teamMemberAdded, {
        organizationId: input.organizationId,
        actor: caller,
        payload: { teamId: team.id, userId, role: "member", membershipVersion },
      });
    }
    return { team, members: new Set(users.values()).size, canAdmin: true };
  });
}

/** One team of the organization. */
export async function getTeam(
  em: EntityManager,
  input: { caller: CallerInput | undefined; organizationId: string; teamId: string },
  deps: UseCaseDeps,
): Promise<TeamView> {
  const caller = requireCaller(input.caller);
  const member = await requireTeamReader(em, input.organizationId, caller.userId, { tokenId: caller.tokenId, now: deps.clock() });
  const team = await findTeam(em, input.organizationId, input.teamId);
  const [view] = await teamViews(em, [team], { role: member.role ?? null, userId: caller.userId });
  return view!;
}

/** Renames a team (admins and its owners): its title is the one field an update mask may name. */
export async function updateTeam(
  em: EntityManager,
  input: { caller: CallerInput | undefined; organizationId: string; teamId: string; updateMask: string[]; title: string },
  deps: UseCaseDeps,
): Promise<TeamView> {
  const caller = requireCaller(input.caller);
  parseUpdateMask(input.updateMask, ["title"]);
  const title = teamTitle(input.title);
  return deps.unitOfWork.run(em, async (tx) => {
    const { team, caller: member } = await requireTeamManager(tx, input.organizationId, input.teamId, caller.userId, {
      tokenId: caller.tokenId,
      now: deps.clock(),
    });
    if (team.title !== title) {
      recordEvent(tx, teamUpdated, { organizationId: input.organizationId, actor: caller, payload: { teamId: team.id, from: team.title, to: title } });
      team.title = title;
    }
    const [view] = await teamViews(tx, [team], { role: member.role ?? null, userId: caller.userId });
    return view!;
  });
}

/** Deletes a team and its memberships (admins and its owners); `deleted` is false when there was no such team. */
export async function deleteTeam(
  em: EntityManager,
  input: { caller: CallerInput | undefined; organizationId: string; teamId: string },
  deps: UseCaseDeps,
): Promise<{ deleted: boolean }> {
  const caller = requireCaller(input.caller);
  return deps.unitOfWork.run(em, async (tx) => {
    // Guests see no teams: refused before the lookup, so a real team and an invented id answer alike.
    const member = await requireTeamReader(tx, input.organizationId, caller.userId, { tokenId: caller.tokenId, now: deps.clock() });
    // Locked until the commit: the same request sent twice at once deletes once, then finds nothing.
    const team = await findOwnedOrNull(tx, Team, { organization: input.organizationId }, input.teamId, { lock: true });
    if (!team) return { deleted: false };
    if (!canManageTeam(member, await teamRoleOf(tx, team.id, caller.userId)))
      throw AppError.permissionDenied("Only admins of the organization and owners of the team can manage it");
    const membershipVersion = await nextMembershipVersion(tx, input.organizationId);
    const memberships = await tx.find(TeamMember, { team }, { fields: ["user"] });
    const userIds = memberships.map((row) => idOf(row.user));
    recordEvent(tx, teamDeleted, {
      organizationId: input.organizationId,
      actor: caller,
      payload: { teamId: team.id, title: team.title, userIds, membershipVersion },
    });
    await tx.nativeDelete(TeamMember, { team: team.id });
    tx.remove(team);
    return { deleted: true };
  });
}
