import type { EntityManager } from "@mikro-orm/postgresql";
import { findPage, type PageRequestLike } from "@imprint/runtime";
import { LinkInvite } from "../../domain/link-invite.js";
import { requireCaller } from "../shared/validation.js";
import type { CallerInput, UseCaseDeps } from "../../deps.js";
import { requireInviteAdmin, type InviteLinkView } from "./shared.js";

export interface ListInviteLinksInput {
  caller: CallerInput | undefined;
  organizationId: string;
  page: PageRequestLike | undefined;
}

/** The organization's links that are not revoked, newest first (admins). */
export async function listInviteLinks(
  em: EntityManager,
  input: ListInviteLinksInput,
  deps: UseCaseDeps,
): Promise<{ items: InviteLinkView[]; nextPageToken: string; totalCount: number }> {
  const caller = requireCaller(input.caller);
  const member = await requireInviteAdmin(em, input.organizationId, caller, deps, "list invite links");
  const page = await findPage(
    em,
    LinkInvite,
    { organization: input.organizationId, revokedAt: null },
    { fields: ["createdAt", "id"], direction: "desc", dateFields: ["createdAt"] },
    input.page,
  );
  return {
    items: page.items.map((invite) => ({ invite, redundant: invite.isRedundantFor(member.role ?? null) })),
    nextPageToken: page.nextPageToken,
    totalCount: page.totalCount,
  };
}
