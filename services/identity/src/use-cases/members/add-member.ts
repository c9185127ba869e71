import type { EntityManager } from "@mikro-orm/postgresql";
import { AppError, recordEvent } from "@imprint/runtime";
import { Member } from "../../domain/member.js";
import { Organization } from "../../domain/organization.js";
import { changeMemberRole } from "../../store/members.js";
import { lockOrganization } from "../../store/organizations.js";
import type { MemberRoleValue } from "../../domain/roles.js";
import { memberRoleChanged } from "../../events.js";
import { createMember } from "../shared/members.js";
import { conflictOnUniqueViolation } from "../shared/conflicts.js";
import { findOrCreateUser } from "../shared/users.js";
import { displayNameOrDefault, isId, normalizeEmail } from "../shared/validation.js";
import type { UseCaseDeps } from "../../deps.js";

export interface AddMemberInput {
  organizationId: string;
  email: string;
  /** null = guest; undefined = not a valid role. */
  role: MemberRoleValue | undefined;
}

async function addOrUpdateMemberIn(
  tx: EntityManager,
  organizationId: string,
  email: string,
  role: MemberRoleValue,
  deps: UseCaseDeps,
): Promise<{ member: Member; changed: boolean }> {
  const organization = await tx.findOne(Organization, organizationId);
  if (!organization) throw AppError.notFound("Organization");
  await lockOrganization(tx, organization.id);
  const { user, created } = await findOrCreateUser(tx, { email, displayName: displayNameOrDefault("email", "", email) }, deps, null);
  const existing = created ? null : await tx.findOne(Member, { organization, user }, { populate: ["user"] });
  if (!existing) return { member: createMember(tx, { organization, user, role }, deps, null), changed: true };
  const change = await changeMemberRole(tx, existing, role);
  if (!change) return { member: existing, changed: false };
  recordEvent(tx, memberRoleChanged, {
    organizationId: organization.id,
    actor: null,
    payload: { userId: user.id, ...change },
  });
  return { member: existing, changed: true };
}

/**
 * Administrative: adds a user (created when unknown) to an organization, or changes the role of
 * an existing member (the last admin still cannot be demoted).
 */
export async function addMember(em: EntityManager, input: AddMemberInput, deps: UseCaseDeps): Promise<Member> {
  const role = input.role;
  if (role === undefined) throw AppError.invalidArgument("role: must be a role (admin, create, review, edit, comment, read) or guest");
  const email = normalizeEmail("email", input.email);
  if (!isId(input.organizationId)) throw AppError.notFound("Organization");

  const result = await conflictOnUniqueViolation(
    deps.unitOfWork.run(em, (tx) => addOrUpdateMemberIn(tx, input.organizationId, email, role, deps)),
    "email: the membership was changed by a concurrent request; retry",
  );
  return result.member;
}
