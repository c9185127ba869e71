import type { EntityManager } from "@mikro-orm/postgresql";
import { AppError } from "@imprint/runtime";
import { organizationPermissionsFor } from "../../domain/permissions.js";
import { User } from "../../domain/user.js";
import { createOrganizationWithOwner } from "../shared/organizations.js";
import type { OrganizationView } from "../shared/views.js";
import { normalizeEmailDomain, requireCaller, validateTitle } from "../shared/validation.js";
import type { CallerInput, UseCaseDeps } from "../../deps.js";

export interface CreateOrganizationForCallerInput {
  caller: CallerInput | undefined;
  title: string;
  emailDomains: string[];
}

const MAX_EMAIL_DOMAINS = 100;

/** An organization whose first member, an admin, is the caller (who keeps the token it called with). */
export async function createOrganizationForCaller(em: EntityManager, input: CreateOrganizationForCallerInput, deps: UseCaseDeps): Promise<OrganizationView> {
  const caller = requireCaller(input.caller);
  const title = validateTitle("title", input.title);
  if (input.emailDomains.length > MAX_EMAIL_DOMAINS) throw AppError.invalidArgument(`email_domains: at most ${MAX_EMAIL_DOMAINS} domains`);
  const emailDomains = [...new Set(input.emailDomains.map((domain, index) => normalizeEmailDomain(`email_domains[${index}]`, domain)))];
  const organization = await deps.unitOfWork.run(em, async (tx) => {
    const user = await tx.findOne(User, caller.userId);
    if (!user) throw AppError.unauthenticated();
    if (user.integrationInstallationId != null) throw AppError.permissionDenied("An integration installation cannot create organizations");
    return createOrganizationWithOwner(tx, { title, emailDomains, owner: user }, deps, caller);
  });
  return { organization, permissions: organizationPermissionsFor("admin") };
}
