import type { EntityManager } from "@mikro-orm/postgresql";
import { validateChosenSecret } from "../../domain/tokens.js";
import { conflictOnUniqueViolation } from "../shared/conflicts.js";
import { createOrganizationIn, type CreatedOrganization } from "../shared/organizations.js";
import { displayNameOrDefault, normalizeEmail, validateTitle } from "../shared/validation.js";
import type { UseCaseDeps } from "../../deps.js";

export interface CreateOrganizationInput {
  title: string;
  ownerEmail: string;
  ownerDisplayName: string;
  /** A chosen secret for the owner's token (first-run bootstrap); empty = generated. */
  ownerToken: string;
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
