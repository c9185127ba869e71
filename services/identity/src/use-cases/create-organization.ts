import type { EntityManager } from "@mikro-orm/postgresql";
import { AppError } from "@imprint/runtime";
import { Organization } from "../domain/organization.js";
import { CHOSEN_SECRET_PATTERN } from "../domain/tokens.js";
import { createMember } from "./shared/members.js";
import { conflictOnUniqueViolation } from "./shared/conflicts.js";
import { organizationCreated, recordIdentityEvent } from "../events.js";
import { createToken } from "./shared/tokens.js";
import { findOrCreateUser } from "./shared/users.js";
import { displayNameOrDefault, normalizeEmail, validateTitle } from "./shared/validation.js";
import type { UseCaseDeps } from "../deps.js";

export interface CreateOrganizationInput {
  title: string;
  ownerEmail: string;
  ownerDisplayName: string;
  /** A chosen secret for the owner's token (first-run bootstrap); empty = generated. */
  ownerToken: string;
}

export interface CreatedOrganization {
  organization: Organization;
  userId: string;
  token: string;
}

export function validateChosenSecret(field: string, secret: string): string {
  if (!CHOSEN_SECRET_PATTERN.test(secret)) {
    throw AppError.invalidArgument(`${field}: must start with "imp_" followed by 8 to 200 letters, digits, "-" or "_"`);
  }
  return secret;
}

/** The organization, its owner (created when unknown) as admin, and the owner's token, in the caller's transaction. */
export async function createOrganizationIn(
  tx: EntityManager,
  input: { title: string; ownerEmail: string; ownerDisplayName: string; ownerToken?: string | undefined },
  deps: UseCaseDeps,
): Promise<CreatedOrganization> {
  const now = deps.clock();
  const { user } = await findOrCreateUser(tx, { email: input.ownerEmail, displayName: input.ownerDisplayName }, deps, null);
  const organization = tx.create(Organization, {
    title: input.title,
    emailDomains: [],
    hostname: null,
    useCase: null,
    communityType: null,
    defaultRole: null,
    defaultContentSiteId: null,
    logoUrl: null,
    customHostname: null,
    createdAt: now,
    updatedAt: now,
  });
  recordIdentityEvent(tx, deps, organizationCreated, {
    organizationId: organization.id,
    actor: null,
    payload: { organizationId: organization.id, title: organization.title, ownerUserId: user.id },
  });
  createMember(tx, { organization, user, role: "admin" }, deps, null);
  const { secret } = await createToken(tx, { user, label: `Owner of ${input.title}`.slice(0, 255), secret: input.ownerToken }, deps, null);
  return { organization, userId: user.id, token: secret };
}

/** Administrative: creates an organization with an owner (admin) and issues the owner a token. */
export async function createOrganization(em: EntityManager, input: CreateOrganizationInput, deps: UseCaseDeps): Promise<CreatedOrganization> {
  const title = validateTitle("title", input.title);
  const ownerEmail = normalizeEmail("owner_email", input.ownerEmail);
  const ownerDisplayName = displayNameOrDefault("owner_display_name", input.ownerDisplayName, ownerEmail);
  const ownerToken = input.ownerToken ? validateChosenSecret("owner_token", input.ownerToken) : undefined;
  const created = await conflictOnUniqueViolation(
    deps.unitOfWork.run(em, (tx) => createOrganizationIn(tx, { title, ownerEmail, ownerDisplayName, ownerToken }, deps)),
    "owner_email: the owner was created by a concurrent request; retry",
  );
  return created;
}
