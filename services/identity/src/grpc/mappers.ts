import {
  MemberRole,
  MemberSort,
  type Member as MemberMessage,
  type Organization as OrganizationMessage,
  type User as UserMessage,
} from "@imprint/proto/identity/v1";
import type { MemberRoleValue, Role } from "../domain/roles.js";
import type { MemberData, UserData } from "../use-cases/shared/views.js";
import type { OrganizationView } from "../use-cases/shared/views.js";
import type { MemberSortField } from "../use-cases/list-members.js";

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
    plan: organization.plan,
    logoUrl: organization.logoUrl ?? "",
    customHostname: organization.customHostname ?? "",
    trialStatus: organization.trialStatus,
    mergeRulesType: organization.mergeRulesType,
    permissions,
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
    // Spaces, teams and sites belong to contexts that do not exist yet: nothing is shared
    // with a member individually, so the counts are 0 until those contexts report them.
    spaces: 0,
    teams: 0,
    sites: 0,
  };
}
