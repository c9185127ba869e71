import { UniqueConstraintViolationException, type EntityManager } from "@mikro-orm/postgresql";
import { AppError, parseUpdateMask, recordEvent } from "@imprint/runtime";
import { validateMergeRules } from "../../domain/merge-rules.js";
import { Organization, updateOrganizationSettings, type OrganizationChanges } from "../../domain/organization.js";
import { organizationPermissionsFor } from "../../domain/permissions.js";
import { signInMethodOf, validateSignInMethods } from "../../domain/session.js";
import { sessionMethod } from "../shared/sso.js";
import type { MemberRoleValue } from "../../domain/roles.js";
import type { OrganizationView } from "../shared/views.js";
import { requireMembership } from "../shared/access.js";
import { organizationUpdated } from "../../events.js";
import { normalizeEmailDomain, requireCaller, validateTitle } from "../shared/validation.js";
import type { CallerInput, UseCaseDeps } from "../../deps.js";

const UPDATABLE_FIELDS = [
  "title",
  "email_domains",
  "hostname",
  "default_role",
  "default_content_site_id",
  "logo_url",
  "sso",
  "ai",
  "invite_links",
  "merge_rules",
  "sign_in_methods",
] as const;
type UpdatableField = (typeof UPDATABLE_FIELDS)[number];

export interface UpdateOrganizationInput {
  caller: CallerInput | undefined;
  organizationId: string;
  /** Field paths, snake_case or camelCase. */
  updateMask: string[];
  title: string;
  emailDomains: string[];
  hostname: string;
  /** null = guest; undefined = not a valid role. */
  defaultRole: MemberRoleValue | undefined;
  defaultContentSiteId: string;
  logoUrl: string;
  sso: boolean;
  ai: boolean;
  inviteLinks: boolean;
  /** Type "none" or "rules", and the rules (validateMergeRules). */
  mergeRules: { type: string; rules: { rule: string; userIds: string[] }[] } | undefined;
  /** Some of "password", "oidc", "saml". */
  signInMethods: string[];
}

const HOSTNAME = /^[a-z0-9](?:[a-z0-9-]{1,30})[a-z0-9]$/;
const MAX_EMAIL_DOMAINS = 100;

/** Validates each masked field and returns the new values, before any database access. */
function validateChanges(fields: Set<UpdatableField>, input: UpdateOrganizationInput): OrganizationChanges {
  const changes: OrganizationChanges = {};
  if (fields.has("title")) changes.title = validateTitle("title", input.title);
  if (fields.has("email_domains")) {
    if (input.emailDomains.length > MAX_EMAIL_DOMAINS) throw AppError.invalidArgument(`email_domains: at most ${MAX_EMAIL_DOMAINS} domains`);
    const domains = input.emailDomains.map((domain, index) => normalizeEmailDomain(`email_domains[${index}]`, domain));
    changes.emailDomains = [...new Set(domains)];
  }
  if (fields.has("hostname")) {
    const hostname = input.hostname.trim().toLowerCase();
    if (hostname !== "") {
      if (hostname.length < 3) throw AppError.invalidArgument("hostname: must be at least 3 characters");
      if (hostname.length > 32) throw AppError.invalidArgument("hostname: must be at most 32 characters");
      if (!HOSTNAME.test(hostname))
        throw AppError.invalidArgument("hostname: must be lowercase letters, digits and hyphens, not starting or ending with a hyphen");
    }
    changes.hostname = hostname || null;
  }
  if (fields.has("default_role")) {
    if (input.defaultRole === undefined) throw AppError.invalidArgument("default_role: must be a role (admin, create, review, edit, comment, read) or guest");
    changes.defaultRole = input.defaultRole;
  }
  if (fields.has("default_content_site_id")) {
    const siteId = input.defaultContentSiteId.trim();
    if (siteId.length > 64) throw AppError.invalidArgument("default_content_site_id: must be at most 64 characters");
    changes.defaultContentSiteId = siteId || null;
  }
  if (fields.has("logo_url")) {
    const logoUrl = input.logoUrl.trim();
    if (logoUrl !== "" && (logoUrl.length > 2048 || !/^https?:\/\//.test(logoUrl) || !URL.canParse(logoUrl))) {
      throw AppError.invalidArgument("logo_url: must be an http(s) URL of at most 2048 characters");
    }
    changes.logoUrl = logoUrl || null;
  }
  if (fields.has("sso")) changes.sso = input.sso;
  if (fields.has("ai")) changes.ai = input.ai;
  if (fields.has("invite_links")) changes.inviteLinks = input.inviteLinks;
  if (fields.has("merge_rules")) {
    if (!input.mergeRules) throw AppError.invalidArgument("merge_rules: required when the update mask names it");
    const mergeRules = validateMergeRules(input.mergeRules.type, input.mergeRules.rules);
    changes.mergeRulesType = mergeRules.type;
    changes.mergeRules = mergeRules.rules.length > 0 ? mergeRules.rules : null;
  }
  if (fields.has("sign_in_methods")) changes.signInMethods = validateSignInMethods("sign_in_methods", input.signInMethods);
  return changes;
}

/** Applies the masked fields; records `organization.updated` with the fields that really changed. */
export async function updateOrganization(em: EntityManager, input: UpdateOrganizationInput, deps: UseCaseDeps): Promise<OrganizationView> {
  const caller = requireCaller(input.caller);
  const changes = validateChanges(parseUpdateMask(input.updateMask, UPDATABLE_FIELDS), input);

  const view = await deps.unitOfWork
    .run(em, async (tx) => {
      const member = await requireMembership(tx, input.organizationId, caller.userId, { tokenId: caller.tokenId, now: deps.clock() });
      member.requireAdmin("update the organization");
      const organization = member.organization;
      const method = changes.signInMethods && caller.tokenId ? await sessionMethod(tx, caller.tokenId) : undefined;
      if (method !== undefined && !changes.signInMethods!.includes(signInMethodOf(method))) {
        throw new AppError(
          "failed_precondition",
          `sign_in_methods: must keep ${signInMethodOf(method)}, the way you signed in, or you could not act in the organization any more`,
        );
      }
      if (changes.hostname && (await tx.count(Organization, { hostname: changes.hostname, id: { $ne: organization.id } })) > 0) {
        throw new AppError("already_exists", "hostname: is already used by another organization");
      }
      const changed = updateOrganizationSettings(organization, changes, deps.clock);
      if (Object.keys(changed).length > 0) {
        recordEvent(tx, organizationUpdated, {
          organizationId: organization.id,
          actor: caller,
          payload: { changedFields: Object.keys(changed), changes: changed },
        });
      }
      return { organization, permissions: organizationPermissionsFor(member.role), recorded: Object.keys(changed).length > 0 };
    })
    .catch((error: unknown) => {
      // Two organizations claiming the same hostname at the same moment: the index decides.
      if (error instanceof UniqueConstraintViolationException) {
        throw new AppError("already_exists", "hostname: is already used by another organization");
      }
      throw error;
    });
  return { organization: view.organization, permissions: view.permissions };
}
