import type { EntityManager } from "@mikro-orm/postgresql";
import { AppError, recordEvent } from "@imprint/runtime";
import { LinkInvite } from "../../domain/link-invite.js";
import { Organization } from "../../domain/organization.js";
import type { MemberRoleValue } from "../../domain/roles.js";
import { inviteCreated } from "../../events.js";
import { isId } from "../shared/validation.js";
import type { UseCaseDeps } from "../../deps.js";

export interface CreateLinkInviteInput {
  organizationId: string;
  /** null = guest; undefined = not a valid role. */
  role: MemberRoleValue | undefined;
}

/** Administrative: creates an invite link (no caller: operators run it through the admin CLI). */
export async function createLinkInvite(em: EntityManager, input: CreateLinkInviteInput, deps: UseCaseDeps): Promise<{ inviteId: string }> {
  const role = input.role;
  if (role === undefined) throw AppError.invalidArgument("role: must be a role (admin, create, review, edit, comment, read) or guest");
  if (!isId(input.organizationId)) throw AppError.notFound("Organization");
  const invite = await deps.unitOfWork.run(em, async (tx) => {
    const organization = await tx.findOne(Organization, input.organizationId);
    if (!organization) throw AppError.notFound("Organization");
    const created = tx.create(LinkInvite, {
      organization,
      role,
      level: null,
      spaceId: null,
      collectionId: null,
      expiresAt: null,
      enabled: true,
      revokedAt: null,
      createdAt: deps.clock(),
    });
    recordEvent(tx, inviteCreated, {
      organizationId: organization.id,
      actor: null,
      payload: { inviteId: created.id, role, level: null, spaceId: "", collectionId: "", expiresAt: null, enabled: true },
    });
    return created;
  });
  return { inviteId: invite.id };
}
