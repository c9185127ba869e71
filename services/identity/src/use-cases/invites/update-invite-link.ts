import type { EntityManager } from "@mikro-orm/postgresql";
import { AppError, parseUpdateMask, recordEvent } from "@imprint/runtime";
import type { MemberRoleValue } from "../../domain/roles.js";
import { inviteUpdated } from "../../events.js";
import { requireCaller } from "../shared/validation.js";
import type { CallerInput, UseCaseDeps } from "../../deps.js";
import { findLiveInvite, LEVEL_RULE, requireInviteAdmin, ROLE_RULE, type InviteLinkView } from "./shared.js";

const UPDATABLE_FIELDS = ["role", "level", "expires_at", "enabled"] as const;

export interface UpdateInviteLinkInput {
  caller: CallerInput | undefined;
  organizationId: string;
  inviteId: string;
  /** Field paths, snake_case or camelCase. */
  updateMask: string[];
  /** null = guest; undefined = not a valid role. */
  role: MemberRoleValue | undefined;
  level: MemberRoleValue | undefined;
  /** undefined = never expires. */
  expiresAt: Date | undefined;
  enabled: boolean;
}

/** Changes the masked fields of a link (admins); records `invite.updated` with what really changed. */
export async function updateInviteLink(em: EntityManager, input: UpdateInviteLinkInput, deps: UseCaseDeps): Promise<InviteLinkView> {
  const caller = requireCaller(input.caller);
  const fields = parseUpdateMask(input.updateMask, UPDATABLE_FIELDS);
  if (fields.has("role") && input.role === undefined) throw AppError.invalidArgument(`role: ${ROLE_RULE}`);
  if (fields.has("level") && (input.level === undefined || input.level === null)) throw AppError.invalidArgument(`level: ${LEVEL_RULE}`);
  return deps.unitOfWork.run(em, async (tx) => {
    const member = await requireInviteAdmin(tx, input.organizationId, caller, deps, "update invite links");
    const invite = await findLiveInvite(tx, input.organizationId, input.inviteId, { lock: true });
    const toTarget = Boolean(invite.spaceId || invite.collectionId);
    if (fields.has("role") && toTarget) throw AppError.invalidArgument("role: this link invites to a space or collection: change its level");
    if (fields.has("level") && !toTarget) throw AppError.invalidArgument("level: this link invites to the organization: change its role");
    const changes: Record<string, { from: unknown; to: unknown }> = {};
    const change = (name: string, from: unknown, to: unknown) => {
      if (from !== to) changes[name] = { from, to };
    };
    if (fields.has("role")) {
      change("role", invite.role ?? null, input.role ?? null);
      invite.role = input.role ?? null;
    }
    if (fields.has("level")) {
      change("level", invite.level ?? null, input.level ?? null);
      invite.level = input.level ?? null;
    }
    if (fields.has("expires_at")) {
      change("expiresAt", invite.expiresAt?.toISOString() ?? null, input.expiresAt?.toISOString() ?? null);
      invite.expiresAt = input.expiresAt ?? null;
    }
    if (fields.has("enabled")) {
      change("enabled", invite.enabled, input.enabled);
      invite.enabled = input.enabled;
    }
    if (Object.keys(changes).length > 0) {
      recordEvent(tx, inviteUpdated, {
        organizationId: input.organizationId,
        actor: caller,
        payload: { inviteId: invite.id, changedFields: Object.keys(changes), changes },
      });
    }
    return { invite, redundant: invite.isRedundantFor(member.role ?? null) };
  });
}
