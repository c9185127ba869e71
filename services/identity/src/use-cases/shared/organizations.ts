import { recordEvent } from "@imprint/runtime";
import type { EntityManager } from "@mikro-orm/postgresql";
import type { UseCaseDeps } from "../../deps.js";
import { Organization } from "../../domain/organization.js";
import { organizationCreated } from "../../events.js";
import { createMember } from "./members.js";
import { createToken } from "./tokens.js";
import { findOrCreateUser } from "./users.js";

export interface CreatedOrganization {
  organization: Organization;
  userId: string;
  token: string;
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
  recordEvent(tx, organizationCreated, {
    organizationId: organization.id,
    actor: null,
    payload: { organizationId: organization.id, title: organization.title, ownerUserId: user.id },
  });
  createMember(tx, { organization, user, role: "admin" }, deps, null);
  const { secret } = await createToken(tx, { user, label: `Owner of ${input.title}`.slice(0, 255), secret: input.ownerToken }, deps, null);
  return { organization, userId: user.id, token: secret };
}
