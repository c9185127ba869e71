import { MemberRole, type Member as MemberMessage, type User as UserMessage } from "@imprint/proto/identity/v1";
import { MemberSort } from "@imprint/proto/identity/v1/members";
import { type InviteLink as InviteLinkMessage } from "@imprint/proto/identity/v1/invites";
import { type Organization as OrganizationMessage } from "@imprint/proto/identity/v1/organizations";
import { type SamlProvider as SamlProviderMessage } from "@imprint/proto/identity/v1/saml";
import { TeamRole, type Team as TeamMessage } from "@imprint/proto/identity/v1/teams";
import { type Session as SessionMessage } from "@imprint/proto/identity/v1/sessions";
import { type OwnToken } from "@imprint/proto/identity/v1/tokens";
import type { ApiToken } from "../domain/api-token.js";
import type { SessionView } from "../use-cases/shared/views.js";
import type { SamlProvider } from "../domain/saml-provider.js";
import type { TeamRoleValue } from "../domain/team.js";
import type { TeamView } from "../use-cases/teams/shared.js";
import type { MemberRoleValue, Role } from "../domain/roles.js";
import type { MemberData, UserData } from "../use-cases/shared/views.js";
import type { OrganizationView } from "../use-cases/shared/views.js";
import type { MemberSortField } from "../use-cases/members/list-members.js";
import type { InviteLinkView } from "../use-cases/invites/shared.js";
import { idOf } from "../use-cases/shared/queries.js";

const ROLE_TO_PROTO: Record<Role, MemberRole> = {
  admin: MemberRole.MEMBER_ROLE_ADMIN,
  create: MemberRole.MEMBER_ROLE_CREATE,
  review: MemberRole.MEMBER_ROLE_REVIEW,
  edit: MemberRole.MEMBER_ROLE_EDIT,
  comment: MemberRole.MEMBER_ROLE_COMMENT,
  read: MemberRole.MEMBER_ROLE_READ,
};

export function roleToProto(role: MemberRoleValue | undefined): MemberRole {
  // Nullable columns read as null or undefined; both mean guest.
  return role == null ? MemberRole.MEMBER_ROLE_GUEST : ROLE_TO_PROTO[role];
}

/** A stored role from the wire: null for guests, undefined for unspecified or unknown values. */
export function roleFromProto(role: MemberRole): MemberRoleValue | undefined {
  if (role === MemberRole.MEMBER_ROLE_GUEST) return null;
  const entry = Object.entries(ROLE_TO_PROTO).find(([, value]) => value === role);
  return entry ? (entry[0] as Role) : undefined;
}

export function memberSortFromProto(sort: MemberSort): MemberSortField | undefined | "invalid" {
  switch (sort) {
    case MemberSort.MEMBER_SORT_UNSPECIFIED:
      return undefined;
    case MemberSort.MEMBER_SORT_JOINED_AT:
      return "joinedAt";
    case MemberSort.MEMBER_SORT_LAST_SEEN_AT:
      return "lastSeenAt";
    case MemberSort.MEMBER_SORT_NAME:
      return "name";
    default:
      return "invalid";
  }
}

export function userToProto(user: UserData): UserMessage {
  return { id: user.id, displayName: user.displayName, email: user.email, photoUrl: user.photoUrl ?? "" };
}

export function organizationToProto({ organization, permissions }: OrganizationView): OrganizationMessage {
  return {
    id: organization.id,
    title: organization.title,
    createdAt: organization.createdAt,
    emailDomains: organization.emailDomains,
    hostname: organization.hostname ?? "",
    type: organization.type,
    useCase: organization.useCase ?? "",
    communityType: organization.communityType ?? "",
    defaultRole: roleToProto(organization.defaultRole),
    defaultContentSiteId: organization.defaultContentSiteId ?? "",
    sso: organization.sso,
    ai: organization.ai,
    inviteLinks: organization.inviteLinks,
    signInMethods: organization.signInMethods ?? [],
    plan: organization.plan,
    logoUrl: organization.logoUrl ?? "",
    customHostname: organization.customHostname ?? "",
    trialStatus: organization.trialStatus,
    mergeRulesType: organization.mergeRulesType,
    permissions,
    mergeRules: {
      type: organization.mergeRulesType,
      rules: (organization.mergeRules ?? []).map((rule) => ({ rule: rule.rule, userIds: rule.users ?? [] })),
    },
  };
}

/** `member.user` must be loaded. */
export function memberToProto(member: MemberData): MemberMessage {
  return {
    user: userToProto(member.user),
    role: roleToProto(member.role),
    disabled: member.disabled,
    joinedAt: member.joinedAt,
    lastSeenAt: member.lastSeenAt ?? undefined,
    sso: member.sso,
    // Spaces and sites are not shared with a member individually (content and publishing grant
    // access by role and by team), so those counts are 0.
    spaces: 0,
    teams: member.teams ?? 0,
    sites: 0,
  };
}

export function samlProviderToProto(provider: SamlProvider): SamlProviderMessage {
  return {
    id: provider.id,
    organizationId: idOf(provider.organization),
    label: provider.label,
    entityId: provider.entityId,
    ssoUrl: provider.ssoUrl,
    certificate: provider.certificate,
    defaultTeamId: provider.defaultTeam ? idOf(provider.defaultTeam) : "",
    defaultRole: roleToProto(provider.defaultRole ?? null),
    groupsAttribute: provider.groupsAttribute,
    active: provider.status === "active",
    createdAt: provider.createdAt,
  };
}

export function teamRoleToProto(role: TeamRoleValue): TeamRole {
  return role === "owner" ? TeamRole.TEAM_ROLE_OWNER : TeamRole.TEAM_ROLE_MEMBER;
}

/** A team role from a request: unspecified is undefined (the use case's default); anything else unknown is "invalid". */
export function teamRoleFromProto(role: TeamRole): TeamRoleValue | undefined | "invalid" {
  if (role === TeamRole.TEAM_ROLE_UNSPECIFIED) return undefined;
  if (role === TeamRole.TEAM_ROLE_OWNER) return "owner";
  if (role === TeamRole.TEAM_ROLE_MEMBER) return "member";
  return "invalid";
}

export function teamToProto(view: TeamView): TeamMessage {
  const organization = view.team.organization;
  return {
    id: view.team.id,
    organizationId: idOf(organization),
    title: view.team.title,
    members: view.members,
    createdAt: view.team.createdAt,
    canAdmin: view.canAdmin,
  };
}

export function inviteLinkToProto({ invite, redundant }: InviteLinkView): InviteLinkMessage {
  const toTarget = Boolean(invite.spaceId || invite.collectionId);
  return {
    id: invite.id,
    organizationId: idOf(invite.organization),
    role: roleToProto(invite.joinRole),
    level: toTarget ? roleToProto(invite.level) : MemberRole.MEMBER_ROLE_UNSPECIFIED,
    spaceId: invite.spaceId ?? "",
    collectionId: invite.collectionId ?? "",
    expiresAt: invite.expiresAt ?? undefined,
    enabled: invite.enabled,
    createdAt: invite.createdAt,
    redundant,
  };
}

/** A session as its client sees it (never the secret's hash). */
export function sessionToProto(session: SessionView): SessionMessage {
  return { id: session.id, method: session.method, csrfToken: session.csrfToken, createdAt: session.createdAt, expiresAt: session.expiresAt };
}

/** A personal token as its owner lists it: never its secret. */
export function ownTokenToProto(token: ApiToken): OwnToken {
  return {
    id: token.id,
    label: token.label ?? "",
    lastFour: token.lastFour,
    createdAt: token.createdAt,
    lastUsedAt: token.lastUsedAt ?? undefined,
    expiresAt: token.expiresAt ?? undefined,
  };
}
