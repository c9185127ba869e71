import type { EntityManager } from "@mikro-orm/postgresql";
import { requireCaller } from "../shared/validation.js";
import type { CallerInput, UseCaseDeps } from "../../deps.js";
import { findLiveInvite, requireInviteAdmin, type InviteLinkView } from "./shared.js";

export interface GetInviteLinkInput {
  caller: CallerInput | undefined;
  organizationId: string;
  inviteId: string;
}

/** One link of the organization (admins); a revoked one is not found, as after a delete. */
export async function getInviteLink(em: EntityManager, input: GetInviteLinkInput, deps: UseCaseDeps): Promise<InviteLinkView> {
  const caller = requireCaller(input.caller);
  const member = await requireInviteAdmin(em, input.organizationId, caller, deps, "read invite links");
  const invite = await findLiveInvite(em, input.organizationId, input.inviteId);
  return { invite, redundant: invite.isRedundantFor(member.role ?? null) };
}
