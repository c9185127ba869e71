import { recordEvent } from "@imprint/runtime";
import type { EntityManager } from "@mikro-orm/postgresql";
import type { CallerInput, UseCaseDeps } from "../../deps.js";
import type { User } from "../../domain/user.js";
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
  const { user } = await findOrCreateUser(tx, { email: input.ownerEmail, displayName: input.ownerDisplayName }, deps, null);
  const organization = createOrganizationWithOwner(tx, { title: input.title, emailDomains: [], owner: user }, deps, null);
  const { secret } = await createToken(tx, { user, label: `Owner of ${input.title}`.slice(0, 255), secret: input.ownerToken }, deps, null);
  return { organization, userId: user.id, token: secret };
}

/** A new organization with `owner` as its first member, an admin (`organization.created`, then `member.added`). */
export function createOrganizationWithOwner(
  tx: EntityManager,
  input: { title: string; emailDomains: string[]; owner: User },
  deps: UseCaseDeps,
  actor: CallerInput | null,
): Organization {
  const now = deps.clock();
  const organization = tx.create(Organization, {
    title: input.title,
    emailDomains: input.emailDomains,
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
    actor,
    payload: { organizationId: organization.id, title: organization.title, ownerUserId: input.owner.id },
  });
  createMember(tx, { organization, user: input.owner, role: "admin" }, deps, actor);
  return organization;
}
