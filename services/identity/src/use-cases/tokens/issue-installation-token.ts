import type { EntityManager } from "@mikro-orm/postgresql";
import { AppError, recordEvent } from "@imprint/runtime";
import { Member } from "../../domain/member.js";
import { Organization } from "../../domain/organization.js";
import type { MemberRoleValue } from "../../domain/roles.js";
import { installationPrincipalEmail, updateUserProfile, User, validateInstallationId } from "../../domain/user.js";
import { memberRoleChanged, userCreated, userUpdated } from "../../events.js";
import { conflictOnUniqueViolation } from "../shared/conflicts.js";
import { createMember } from "../shared/members.js";
import { idOf } from "../shared/queries.js";
import { createToken } from "../shared/tokens.js";
import { isId } from "../shared/validation.js";
import type { UseCaseDeps } from "../../deps.js";

export interface IssueInstallationTokenInput {
  organizationId: string;
  /** The installation, as the integration service identifies it. */
  installationId: string;
  integrationName: string;
  /** The principal's display name. */
  integrationTitle: string;
  /** The role the token acts with: null = guest; undefined = not a valid role. */
  role: MemberRoleValue | undefined;
  /** 0 = the default. */
  ttlSeconds: number;
}

export interface IssuedInstallationToken {
  tokenId: string;
  token: string;
  expiresAt: Date;
  /** The installation's principal. */
  userId: string;
}

export const DEFAULT_INSTALLATION_TOKEN_TTL_SECONDS = 3600;
export const MAX_INSTALLATION_TOKEN_TTL_SECONDS = 86_400;

/** A required text of at most 255 characters once trimmed. */
function requiredText(field: string, value: string): string {
  const text = value.trim();
  if (text.length === 0) throw AppError.invalidArgument(`${field}: is required`);
  if (text.length > 255) throw AppError.invalidArgument(`${field}: must be at most 255 characters`);
  return text;
}

function ttlSecondsOf(value: number): number {
  if (value === 0) return DEFAULT_INSTALLATION_TOKEN_TTL_SECONDS;
  if (!Number.isInteger(value) || value < 1 || value > MAX_INSTALLATION_TOKEN_TTL_SECONDS) {
    throw AppError.invalidArgument(
      `ttl_seconds: must be between 1 and ${MAX_INSTALLATION_TOKEN_TTL_SECONDS} (0 for ${DEFAULT_INSTALLATION_TOKEN_TTL_SECONDS})`,
    );
  }
  return value;
}

/**
 * The installation's principal, created on the first issue (`user.created`); later issues give it
 * the integration's current title (`user.updated` when it changed).
 */
async function findOrCreatePrincipal(tx: EntityManager, input: { installationId: string; title: string }, deps: UseCaseDeps): Promise<User> {
  const existing = await tx.findOne(User, { integrationInstallationId: input.installationId });
  if (existing) {
    const changed = updateUserProfile(existing, { displayName: input.title });
    if (Object.keys(changed).length > 0) {
      recordEvent(tx, userUpdated, {
        organizationId: null,
        actor: null,
        payload: { userId: existing.id, changedFields: Object.keys(changed), changes: changed },
      });
    }
    return existing;
  }
  const id = crypto.randomUUID();
  const user = tx.create(User, {
    id,
    email: installationPrincipalEmail(id),
    displayName: input.title,
    photoUrl: null,
    createdAt: deps.clock(),
    integrationInstallationId: input.installationId,
  });
  recordEvent(tx, userCreated, { organizationId: null, actor: null, payload: { userId: user.id, email: user.email, displayName: user.displayName } });
  return user;
}

/**
 * The principal's membership of the organization with `role`: created (`member.added`) or given
 * the role (`member.role_changed`, so other services' cached roles drop). An installation belongs
 * to one organization: a principal that is a member of another one is refused.
 */
async function joinWithRole(tx: EntityManager, organization: Organization, principal: User, role: MemberRoleValue, deps: UseCaseDeps): Promise<void> {
  const memberships = await tx.find(Member, { user: principal });
  if (memberships.some((member) => idOf(member.organization) !== organization.id)) {
    throw new AppError("failed_precondition", "installation_id: the installation belongs to another organization");
  }
  const member = memberships[0];
  if (!member) {
    createMember(tx, { organization, user: principal, role }, deps, null);
    return;
  }
  member.sortName = principal.displayName.toLowerCase();
  const from = member.role ?? null;
  // Not changeMemberRole: a principal is no admin that the last-admin rule keeps.
  if (from === role) return;
  member.role = role;
  recordEvent(tx, memberRoleChanged, { organizationId: organization.id, actor: null, payload: { userId: principal.id, from, to: role } });
}

/**
 * Internal (the integration service): a short-lived API token of the installation's principal, a
 * member of the organization with `role` and of no other. Everything in one transaction; two first
 * issues of one installation at once: one wins, the other is a retryable conflict.
 */
export async function issueInstallationToken(em: EntityManager, input: IssueInstallationTokenInput, deps: UseCaseDeps): Promise<IssuedInstallationToken> {
  if (!isId(input.organizationId)) throw AppError.invalidArgument("organization_id: must be a UUID");
  const installationId = validateInstallationId("installation_id", input.installationId);
  const name = requiredText("integration_name", input.integrationName);
  const title = requiredText("integration_title", input.integrationTitle);
  const role = input.role;
  if (role === undefined) throw AppError.invalidArgument("role: must be a role (admin, create, review, edit, comment, read) or guest");
  const ttlSeconds = ttlSecondsOf(input.ttlSeconds);

  return conflictOnUniqueViolation(
    deps.unitOfWork.run(em, async (tx) => {
      const organization = await tx.findOne(Organization, input.organizationId);
      if (!organization) throw AppError.notFound("Organization");
      const principal = await findOrCreatePrincipal(tx, { installationId, title }, deps);
      await joinWithRole(tx, organization, principal, role, deps);
      const expiresAt = new Date(deps.clock().getTime() + ttlSeconds * 1000);
      const { token, secret } = await createToken(tx, { user: principal, label: `Integration ${name}`.slice(0, 255), expiresAt }, deps, null);
      return { tokenId: token.id, token: secret, expiresAt, userId: principal.id };
    }),
    "installation_id: the installation's principal was created by a concurrent request; retry",
  );
}
