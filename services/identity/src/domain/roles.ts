/** Organization roles, from most to least capable. A member with no role (null) is a guest. */
export const ROLES = ["admin", "create", "review", "edit", "comment", "read"] as const;
export type Role = (typeof ROLES)[number];
/** A member's role as stored: null means guest. */
export type MemberRoleValue = Role | null;

export function isRole(value: unknown): value is Role {
  return typeof value === "string" && (ROLES as readonly string[]).includes(value);
}
