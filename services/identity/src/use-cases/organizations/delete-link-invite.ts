import { recordEvent } from "@imprint/runtime";
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

/** Deletes an invite of the organization; `false` when there was none (deleting is idempotent). */
export async function deleteLinkInvite(em: EntityManager, input: DeleteLinkInviteInput, deps: UseCaseDeps): Promise<{ deleted: boolean }> {
  const caller = requireCaller(input.caller);
  const deleted = await deps.unitOfWork.run(em, async (tx) => {
    const member = await requireMembership(tx, input.organizationId, caller.userId, { tokenId: caller.tokenId, now: deps.clock() });
    member.requireAdmin("delete invite links");
    if (!isId(input.inviteId)) return false;
    const count = await tx.nativeDelete(LinkInvite, { id: input.inviteId, organization: input.organizationId });
    if (count === 0) return false;
    recordEvent(tx, inviteDeleted, {
      organizationId: input.organizationId,
      actor: caller,
      payload: { inviteId: input.inviteId },
    });
    return true;
  });
  return { deleted };
}
