import type { EntityManager } from "@mikro-orm/postgresql";
import { AppError, recordEvent } from "@imprint/runtime";
import { Member } from "../../domain/member.js";
import type { MemberRoleValue } from "../../domain/roles.js";
import { memberSsoEnabled } from "../../events.js";
import { conflictOnUniqueViolation } from "../shared/conflicts.js";
import { createMember } from "../shared/members.js";
import { findOrCreateUser } from "../shared/users.js";
import { displayNameOrDefault, normalizeEmail, requireCaller } from "../shared/validation.js";
import type { CallerInput, UseCaseDeps } from "../../deps.js";
import { requireInviteAdmin, ROLE_RULE } from "./shared.js";

export const MAX_INVITED_ADDRESSES = 100;

export interface InviteMembersInput {
  caller: CallerInput | undefined;
  organizationId: string;
  /** role: null = guest; undefined = the request's role; "invalid" = not a valid role. */
  emails: { email: string; role: MemberRoleValue | undefined | "invalid" }[];
  /** null = guest; undefined = the organization's default role; "invalid" = not a valid role. */
  role: MemberRoleValue | undefined | "invalid";
  sso: boolean;
}

/**
 * Adds the addresses as members at once (admins), GitBook's "invite": nothing is sent, as Imprint
 * has no mail server; each person signs in as usual (SSO, or a token an operator issues). Unknown
 * addresses become users, as AddMember and a first SSO sign-in make them; members already there
 * keep their role.
 */
export async function inviteMembers(em: EntityManager, input: InviteMembersInput, deps: UseCaseDeps): Promise<{ userIds: string[] }> {
  const caller = requireCaller(input.caller);
  if (input.emails.length === 0) throw AppError.invalidArgument("emails: name at least one address");
  if (input.emails.length > MAX_INVITED_ADDRESSES) throw AppError.invalidArgument(`emails: at most ${MAX_INVITED_ADDRESSES} addresses per call`);
  if (input.role === "invalid") throw AppError.invalidArgument(`role: ${ROLE_RULE}`);
  const wanted = new Map<string, MemberRoleValue | undefined>();
  input.emails.forEach((entry, index) => {
    if (entry.role === "invalid") throw AppError.invalidArgument(`emails[${index}].role: ${ROLE_RULE}`);
    const email = normalizeEmail(`emails[${index}]`, entry.email);
    if (!wanted.has(email)) wanted.set(email, entry.role);
  });
  const requestRole = input.role;

  return conflictOnUniqueViolation(
    deps.unitOfWork.run(em, async (tx) => {
      const admin = await requireInviteAdmin(tx, input.organizationId, caller, deps, "invite members");
      const organization = admin.organization;
      const defaultRole: MemberRoleValue = requestRole === undefined ? (organization.defaultRole ?? null) : requestRole;
      const userIds: string[] = [];
      for (const [email, role] of wanted) {
        const { user, created } = await findOrCreateUser(tx, { email, displayName: displayNameOrDefault("email", "", email) }, deps, caller);
        if (!created && (await tx.count(Member, { organization, user })) > 0) continue;
        const member = createMember(tx, { organization, user, role: role === undefined ? defaultRole : role }, deps, caller);
        if (input.sso && member.enableSso()) {
          recordEvent(tx, memberSsoEnabled, { organizationId: organization.id, actor: caller, payload: { userId: user.id } });
        }
        userIds.push(user.id);
      }
      return { userIds };
    }),
    "emails: the organization's members were changed by a concurrent request; retry",
  );
}
