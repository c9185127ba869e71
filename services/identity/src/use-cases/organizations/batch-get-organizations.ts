import type { EntityManager } from "@mikro-orm/postgresql";
import { Organization } from "../../domain/organization.js";
import { NO_PERMISSIONS } from "../../domain/permissions.js";
import type { OrganizationView } from "../shared/views.js";
import { batchIds } from "../shared/batch.js";
import type { UseCaseDeps } from "../../deps.js";

export interface BatchGetOrganizationsInput {
  organizationIds: readonly string[];
}

/** What anyone may see of an organization: the caller may be no member (the owner of a public integration). */
const PUBLIC_FIELDS = ["id", "title", "createdAt", "type", "useCase", "communityType", "hostname", "logoUrl", "customHostname", "plan", "trialStatus"] as const;

/**
 * Organizations by id with their public fields only (e-mail domains, default role and content,
 * SSO, AI, invite links and merge rules left empty; no permissions): internal, so no caller.
 * Unknown ids are left out; the rest keep request order.
 */
export async function batchGetOrganizations(em: EntityManager, input: BatchGetOrganizationsInput, _deps: UseCaseDeps): Promise<OrganizationView[]> {
  const ids = batchIds("organization_ids", input.organizationIds);
  if (ids.length === 0) return [];
  const organizations = await em.find(Organization, { id: { $in: ids } }, { fields: [...PUBLIC_FIELDS] });
  const byId = new Map(organizations.map((organization) => [organization.id, organization]));
  return ids.flatMap((id) => {
    const organization = byId.get(id);
    if (!organization) return [];
    return [
      {
        organization: {
          id: organization.id,
          title: organization.title,
          createdAt: organization.createdAt,
          type: organization.type,
          useCase: organization.useCase,
          communityType: organization.communityType,
          hostname: organization.hostname,
          logoUrl: organization.logoUrl,
          customHostname: organization.customHostname,
          plan: organization.plan,
          trialStatus: organization.trialStatus,
          emailDomains: [],
          defaultRole: null,
          defaultContentSiteId: null,
          sso: false,
          ai: false,
          inviteLinks: false,
          mergeRulesType: "",
        },
        permissions: NO_PERMISSIONS,
      },
    ];
  });
}
