import type { EntityManager } from "@mikro-orm/postgresql";
import { AppError, recordEvent } from "@imprint/runtime";
import { LinkInvite } from "../../domain/link-invite.js";
import type { MemberRoleValue, Role } from "../../domain/roles.js";
import { inviteCreated } from "../../events.js";
import { requireCaller } from "../shared/validation.js";
import type { CallerInput, UseCaseDeps } from "../../deps.js";
import { LEVEL_RULE, ROLE_RULE, requireInviteAdmin, validateTargetId, type InviteLinkView } from "./shared.js";

export interface CreateInviteLinkInput {
  caller: CallerInput | undefined;
  organizationId: string;
  /** null = guest; undefined = none given (a link to a space or collection) or not a valid role. */
  role: MemberRoleValue | undefined;
  /** null = guest (refused); undefined = none given. */
  level: MemberRoleValue | undefined;
  /** Empty = none. */
  spaceId: string;
  collectionId: string;
  expiresAt: Date | undefined;
  disabled: boolean;
}

interface ValidLink {
  role: MemberRoleValue;
  level: Role | null;
  spaceId: string | null;
  collectionId: string | null;
}

/** A link to the organization names a role; a link to a space or collection one target and a level. */
function validateLink(input: CreateInviteLinkInput): ValidLink {
  if (input.spaceId && input.collectionId) throw AppError.invalidArgument("collection_id: a link invites to a space or to a collection, not both");
  const target = input.spaceId ? "space_id" : input.collectionId ? "collection_id" : null;
  if (target === null) {
    if (input.level !== undefined)
      throw AppError.invalidArgument("level: only a link to a space or collection takes a level (a link to the organization takes a role)");
    if (input.role === undefined) throw AppError.invalidArgument(`role: ${ROLE_RULE}`);
    return { role: input.role, level: null, spaceId: null, collectionId: null };
  }
  if (input.role !== undefined) throw AppError.invalidArgument("role: a link to a space or collection takes a level (its users join as guests)");
  if (input.level === undefined || input.level === null) throw AppError.invalidArgument(`level: ${LEVEL_RULE}`);
  return {
    role: null,
    level: input.level,
    spaceId: input.spaceId ? validateTargetId("space_id", input.spaceId) : null,
    collectionId: input.collectionId ? validateTargetId("collection_id", input.collectionId) : null,
  };
}

/** Creates an invite link (admins). The target space or collection is the gateway's to check: identity knows no content. */
export async function createInviteLink(em: EntityManager, input: CreateInviteLinkInput, deps: UseCaseDeps): Promise<InviteLinkView> {
  const caller = requireCaller(input.caller);
  const link = validateLink(input);
  return deps.unitOfWork.run(em, async (tx) => {
    const member = await requireInviteAdmin(tx, input.organizationId, caller, deps, "create invite links");
    const invite = tx.create(LinkInvite, {
      organization: member.organization,
      ...link,
      expiresAt: input.expiresAt ?? null,
      enabled: !input.disabled,
      revokedAt: null,
      createdAt: deps.clock(),
    });
    recordEvent(tx, inviteCreated, {
      organizationId: input.organizationId,
      actor: caller,
      payload: {
        inviteId: invite.id,
        role: link.role,
        level: link.level,
        spaceId: link.spaceId ?? "",
        collectionId: link.collectionId ?? "",
        expiresAt: invite.expiresAt?.toISOString() ?? null,
        enabled: invite.enabled,
      },
    });
    return { invite, redundant: invite.isRedundantFor(member.role ?? null) };
  });
}
