import { recordEvent } from "@imprint/runtime";
import type { EntityManager } from "@mikro-orm/postgresql";
import { queryRows, sql } from "@imprint/runtime";
import { Member } from "../../domain/member.js";
import type { Organization } from "../../domain/organization.js";
import type { MemberRoleValue } from "../../domain/roles.js";
import type { User } from "../../domain/user.js";
import type { MemberData } from "./views.js";
import type { CallerInput, UseCaseDeps } from "../../deps.js";
import { memberAdded } from "../../events.js";

/** What a join through an invite link to a space or a collection grants there (content makes the grant). */
export interface InviteGrant {
  spaceId: string;
  collectionId: string;
  level: string;
  /** The organization's membership version after the join (nextMembershipVersion), ordering it with the member's removals. */
  membershipVersion: number;
}

/** Adds `user` to `organization` with `role` and records `member.added` (with the grant an invite link gives, if any). */
export function createMember(
  em: EntityManager,
  input: { organization: Organization; user: User; role: MemberRoleValue; grant?: InviteGrant },
  deps: UseCaseDeps,
  actor: CallerInput | null,
): Member {
  const member = em.create(Member, {
    organization: input.organization,
    user: input.user,
    role: input.role,
    disabled: false,
    sso: false,
    joinedAt: deps.clock(),
    lastSeenAt: null,
    sortName: input.user.displayName.toLowerCase(),
  });
  recordEvent(em, memberAdded, {
    organizationId: input.organization.id,
    actor,
    // A join through a link to a space or collection carries the grant; any other join, only who and the role.
    payload: {
      userId: input.user.id,
      role: input.role,
      ...(input.grant
        ? {
            membershipVersion: input.grant.membershipVersion,
            ...(input.grant.spaceId ? { inviteSpaceId: input.grant.spaceId } : { inviteCollectionId: input.grant.collectionId }),
            inviteLevel: input.grant.level,
          }
        : {}),
    },
  });
  return member;
}

/** The members with how many of the organization's teams each belongs to (one query for the list). */
export async function withTeamCounts<M extends MemberData>(
  em: EntityManager,
  organizationId: string,
  members: readonly M[],
): Promise<(MemberData & { teams: number })[]> {
  const userIds = members.map((member) => member.user.id);
  const rows =
    userIds.length === 0
      ? []
      : await queryRows(
          em,
          sql<{ user_id: string; teams: string }>`select tm.user_id, count(*) as teams from team_members tm join teams t on t.id = tm.team_id
           where t.organization_id = ${organizationId} and tm.user_id in (${sql.join(userIds)}) group by tm.user_id`,
        );
  const counts = new Map(rows.map((row) => [row.user_id, Number(row.teams)]));
  return members.map((member) => ({
    user: member.user,
    role: member.role ?? null,
    disabled: member.disabled,
    sso: member.sso,
    joinedAt: member.joinedAt,
    lastSeenAt: member.lastSeenAt ?? null,
    teams: counts.get(member.user.id) ?? 0,
  }));
}
