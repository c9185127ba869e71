import { atLeast, lesser, type DefaultLevel, type Level } from "./levels.js";
import type { Membership } from "../memberships.js";

/** What the caller may do on a space (GitBook's `Space.permissions`). */
export interface SpacePermissions {
  view: boolean;
  access: boolean;
  admin: boolean;
  viewInviteLinks: boolean;
  edit: boolean;
  triggerGitSync: boolean;
  comment: boolean;
  merge: boolean;
  review: boolean;
  installIntegration: boolean;
}

/** What the caller may do on a collection (GitBook's `Collection.permissions`). */
export interface CollectionPermissions {
  view: boolean;
  admin: boolean;
  viewInviteLinks: boolean;
  create: boolean;
}

/**
 * The caller's level on one collection or space (docs/permissions.md):
 * - organization admins: `admin` on everything of the organization;
 * - guests: nothing by role (what they see comes from grants to them or their teams, which the
 *   checks add: checks.ts);
 * - other members: the item's `defaultLevel` capped by their organization role; `inherit` takes the
 *   level they have on the parent collection (at the top level: their organization role); `null`
 *   gives nothing.
 * `parentLevel` is the caller's level on the parent collection (ignored at the top level).
 */
export function levelOn(membership: Membership | null, defaultLevel: DefaultLevel, parent: { level: Level | null } | null): Level | null {
  const role = membership?.role ?? null;
  if (role === null) return null;
  if (role === "admin") return "admin";
  if (defaultLevel === "inherit") return parent ? parent.level : role;
  if (defaultLevel === null) return null;
  return lesser(role, defaultLevel);
}

/**
 * The caller's level on an item given the default levels of its ancestors, nearest first
 * (`[own, parent, grandparent, ...]`, ending with the top-level collection or the item itself).
 */
export function levelThroughChain(membership: Membership | null, chain: readonly DefaultLevel[]): Level | null {
  let level: { level: Level | null } | null = null;
  for (let index = chain.length - 1; index >= 0; index--) level = { level: levelOn(membership, chain[index] ?? null, level) };
  return level ? level.level : levelOn(membership, "inherit", null);
}

export function spacePermissions(level: Level | null, space: { editMode: "live" | "locked" }): SpacePermissions {
  // A locked space takes no content edits from anyone; its settings stay with its admins.
  const live = space.editMode === "live";
  return {
    view: atLeast(level, "read"),
    access: atLeast(level, "read"),
    admin: atLeast(level, "admin"),
    viewInviteLinks: atLeast(level, "admin"),
    edit: live && atLeast(level, "edit"),
    triggerGitSync: live && atLeast(level, "edit"),
    comment: atLeast(level, "comment"),
    merge: live && atLeast(level, "review"),
    review: atLeast(level, "review"),
    installIntegration: atLeast(level, "admin"),
  };
}

export function collectionPermissions(level: Level | null): CollectionPermissions {
  return {
    view: atLeast(level, "read"),
    admin: atLeast(level, "admin"),
    viewInviteLinks: atLeast(level, "admin"),
    create: atLeast(level, "create"),
  };
}
