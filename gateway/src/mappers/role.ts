import { MemberRole } from "@imprint/proto/identity/v1";
import { AppError } from "@imprint/runtime/core";
import { z } from "zod";

/** The REST role names; a guest has no role (null on the wire). */
export const ROLE_NAMES = ["admin", "create", "edit", "review", "comment", "read"] as const;
export type RoleName = (typeof ROLE_NAMES)[number];

export const roleSchema = z.enum(ROLE_NAMES);
/** A role, or null for a guest. */
export const roleOrGuestSchema = roleSchema.nullable();

const ROLE_BY_NAME: Readonly<Record<RoleName, MemberRole>> = {
  admin: MemberRole.MEMBER_ROLE_ADMIN,
  create: MemberRole.MEMBER_ROLE_CREATE,
  edit: MemberRole.MEMBER_ROLE_EDIT,
  review: MemberRole.MEMBER_ROLE_REVIEW,
  comment: MemberRole.MEMBER_ROLE_COMMENT,
  read: MemberRole.MEMBER_ROLE_READ,
};

export function toProtoRole(role: RoleName | null): MemberRole {
  return role === null ? MemberRole.MEMBER_ROLE_GUEST : ROLE_BY_NAME[role];
}

export function toRestRole(role: MemberRole): RoleName | null {
  switch (role) {
    case MemberRole.MEMBER_ROLE_ADMIN:
      return "admin";
    case MemberRole.MEMBER_ROLE_CREATE:
      return "create";
    case MemberRole.MEMBER_ROLE_EDIT:
      return "edit";
    case MemberRole.MEMBER_ROLE_REVIEW:
      return "review";
    case MemberRole.MEMBER_ROLE_COMMENT:
      return "comment";
    case MemberRole.MEMBER_ROLE_READ:
      return "read";
    case MemberRole.MEMBER_ROLE_GUEST:
      return null;
    default:
      // The contract says unspecified never appears in a response; if it does, it is a bug upstream.
      throw new AppError("internal", `upstream answered an unknown member role ${String(role)}`);
  }
}
