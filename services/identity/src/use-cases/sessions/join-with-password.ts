import type { EntityManager } from "@mikro-orm/postgresql";
import { AppError } from "@imprint/runtime";
import { Organization } from "../../domain/organization.js";
import { hashPassword, validatePassword } from "../../domain/password.js";
import { User, validateUserDisplayName } from "../../domain/user.js";
import { joinOrganizationWithInvite } from "../invites/join-organization-with-invite.js";
import { conflictOnUniqueViolation } from "../shared/conflicts.js";
import { findOrCreateUser } from "../shared/users.js";
import { isId, normalizeEmail } from "../shared/validation.js";
import { startSession, storePassword, type StartedSession } from "./shared.js";
import type { UseCaseDeps } from "../../deps.js";

export interface JoinWithPasswordInput {
  organizationId: string;
  inviteId: string;
  email: string;
  password: string;
  displayName: string;
}

export const ACCOUNT_EXISTS = "email: an account with this e-mail exists: sign in, then open the invite link again";

/**
 * A person without an account joins through an invite link: their user and password are created
 * and they join with the link (joinOrganizationWithInvite, its refusals included) in one
 * transaction, then a "password" session starts. Refused when the organization does not let its
 * members sign in with a password, or requires SSO (they would have no way in).
 */
export async function joinWithPassword(em: EntityManager, input: JoinWithPasswordInput, deps: UseCaseDeps): Promise<StartedSession> {
  const email = normalizeEmail("email", input.email);
  const displayName = validateUserDisplayName("display_name", input.displayName);
  if (!isId(input.organizationId)) throw AppError.notFound("Invite");
  const hash = await hashPassword(validatePassword("password", input.password));
  return conflictOnUniqueViolation(
    deps.unitOfWork.run(em, async (tx) => {
      const organization = await tx.findOne(Organization, input.organizationId);
      if (!organization) throw AppError.notFound("Invite");
      if (organization.sso) throw AppError.permissionDenied("This organization requires single sign-on: join by signing in through its identity provider");
      if (!organization.signInMethods.includes("password")) {
        throw AppError.permissionDenied(
          `This organization does not allow signing in with a password (signInMethods: ${organization.signInMethods.join(", ")})`,
        );
      }
      if ((await tx.count(User, { email })) > 0) throw new AppError("already_exists", ACCOUNT_EXISTS);
      const { user } = await findOrCreateUser(tx, { email, displayName }, deps, null);
      await storePassword(tx, user, hash, deps);
      await joinOrganizationWithInvite(tx, { caller: { userId: user.id, tokenId: "" }, organizationId: organization.id, inviteId: input.inviteId }, deps);
      return startSession(tx, user, "password", deps);
    }),
    ACCOUNT_EXISTS,
  );
}
