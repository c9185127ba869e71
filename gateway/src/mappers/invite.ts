import type { InviteLink } from "@imprint/proto/identity/v1/invites";
import { AppError } from "@imprint/runtime/core";
import type { RestCollection } from "./collection.js";
import { toRestRole, type RoleName } from "./role.js";
import type { RestSpace } from "./space.js";

/**
 * GitBook's invite link (`InviteLinkToOrganization`, `InviteLinkToSpace` or
 * `InviteLinkToCollection`) with Imprint's `expiresAt` (null: never) and `enabled`. A link to a
 * space or collection carries its target's object, as the caller reads it; one the caller can no
 * longer read (deleted) is left out.
 */
export interface RestInviteLink {
  object: "invite";
  id: string;
  role?: RoleName | null;
  level?: RoleName | null;
  space?: RestSpace;
  collection?: RestCollection;
  redundant: boolean;
  expiresAt: string | null;
  enabled: boolean;
}

/** The targets of the links answered, read once per answer. */
export interface InviteTargets {
  spaces: ReadonlyMap<string, RestSpace>;
  collections: ReadonlyMap<string, RestCollection>;
}

/**
 * `inList`: GitBook's list declares its items as links to the organization, so there a link to a
 * space or collection also says the organization role its users get (`role: null`, guests); a
 * single link leaves it out (one of GitBook's three shapes exactly).
 */
export function toRestInviteLink(invite: InviteLink | undefined, targets: InviteTargets, options: { inList?: boolean } = {}): RestInviteLink {
  if (!invite) throw new AppError("internal", "upstream answered without an invite link");
  const rest: RestInviteLink = {
    object: "invite",
    id: invite.id,
    redundant: invite.redundant,
    expiresAt: invite.expiresAt ? invite.expiresAt.toISOString() : null,
    enabled: invite.enabled,
  };
  if (!invite.spaceId && !invite.collectionId) return { ...rest, role: toRestRole(invite.role) };
  if (options.inList) rest.role = null;
  rest.level = toRestRole(invite.level);
  const space = invite.spaceId ? targets.spaces.get(invite.spaceId) : undefined;
  const collection = invite.collectionId ? targets.collections.get(invite.collectionId) : undefined;
  if (space) rest.space = space;
  if (collection) rest.collection = collection;
  return rest;
}
