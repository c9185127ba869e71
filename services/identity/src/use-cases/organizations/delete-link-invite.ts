import { findOwnedOrNull, recordEvent } from "@imprint/runtime";
import type { EntityManager } from "@mikro-orm/postgresql";
import { LinkInvite } from "../../domain/link-invite.js";
import { requireMembership } from "../shared/access.js";
import { inviteDeleted } from "../../events.js";
import { isId, requireCaller } from "../shared/validation.js";
import type { CallerInput, UseCaseDeps } from "../../deps.js";

export interface DeleteLinkInviteInput {
  caller: CallerInput | undefined;
  organizationId: string;
  inviteId: string;
}

/**
 * Revokes an invite of the organization for good: it is no longer listed and refuses every join,
 * saying it was revoked (the row stays for that). `false` when there was none or it was already
 * revoked (deleting is idempotent).
 */
export async function deleteLinkInvite(em: EntityManager, input: DeleteLinkInviteInput, deps: UseCaseDeps): Promise<{ deleted: boolean }> {
  const caller = requireCaller(input.caller);
  const deleted = await deps.unitOfWork.run(em, async (tx) => {
    const member = await requireMembership(tx, input.organizationId, caller.userId, { tokenId: caller.tokenId, now: deps.clock() });
    member.requireAdmin("delete invite links");
    if (!isId(input.inviteId)) return false;
    const invite = await findOwnedOrNull(tx, LinkInvite, { organization: input.organizationId }, input.inviteId, { lock: true });
    if (!invite?.revoke(deps.clock())) return false;
    recordEvent(tx, inviteDeleted, {
      organizationId: input.organizationId,
      actor: caller,
      payload: { inviteId: input.inviteId },
    });
    return true;
  });
  return { deleted };
}
