import { OrganizationServiceService } from "@imprint/proto/identity/v1/organizations";
import type { EntityManager } from "@mikro-orm/postgresql";
import { pageRequest, type AsyncImplementation } from "@imprint/runtime";
import { batchGetOrganizations } from "../use-cases/organizations/batch-get-organizations.js";
import { createLinkInvite } from "../use-cases/organizations/create-link-invite.js";
import { createOrganization } from "../use-cases/organizations/create-organization.js";
import { createOrganizationForCaller } from "../use-cases/organizations/create-organization-for-caller.js";
import { deleteLinkInvite } from "../use-cases/organizations/delete-link-invite.js";
import { getOrganization } from "../use-cases/organizations/get-organization.js";
import { listOrganizations } from "../use-cases/organizations/list-organizations.js";
import { listOrganizationsForEmailDomain } from "../use-cases/organizations/list-organizations-for-email-domain.js";
import { updateOrganization } from "../use-cases/organizations/update-organization.js";
import type { UseCaseDeps } from "../deps.js";
import { organizationToProto, roleFromProto } from "./mappers.js";

export const ORGANIZATION_SERVICE_NAME = "imprint.identity.v1.OrganizationService";

/**
 * Thin transport: each handler checks the request's shape (enums), runs one use case on a fresh
 * EntityManager (`em()`) with the deps service.ts built, and maps the result to proto messages.
 * Rules live in the use cases and the domain.
 */
export function organizationServiceImplementation(em: () => EntityManager, useCaseDeps: UseCaseDeps): AsyncImplementation<typeof OrganizationServiceService> {
  return {
    listOrganizations: async (request) => {
      const page = await listOrganizations(em(), { caller: request.caller, page: pageRequest(request.page) }, useCaseDeps);
      return {
        organizations: page.items.map(organizationToProto),
        page: { nextPageToken: page.nextPageToken, totalCount: page.totalCount },
      };
    },

    getOrganization: async (request) => {
      const view = await getOrganization(em(), { caller: request.caller, organizationId: request.organizationId }, useCaseDeps);
      return { organization: organizationToProto(view) };
    },

    updateOrganization: async (request) => {
      const view = await updateOrganization(
        em(),
        {
          caller: request.caller,
          organizationId: request.organizationId,
          updateMask: request.updateMask ?? [],
          title: request.title,
          emailDomains: request.emailDomains,
          hostname: request.hostname,
          defaultRole: roleFromProto(request.defaultRole),
          defaultContentSiteId: request.defaultContentSiteId,
          logoUrl: request.logoUrl,
          sso: request.sso,
          ai: request.ai,
          inviteLinks: request.inviteLinks,
          mergeRules: request.mergeRules,
          signInMethods: request.signInMethods,
        },
        useCaseDeps,
      );
      return { organization: organizationToProto(view) };
    },

    listOrganizationsForEmailDomain: async (request) => {
      const views = await listOrganizationsForEmailDomain(em(), { caller: request.caller, emailDomain: request.emailDomain }, useCaseDeps);
      return { organizations: views.map(organizationToProto) };
    },

    batchGetOrganizations: async (request) => {
      const organizations = await batchGetOrganizations(em(), { organizationIds: request.organizationIds }, useCaseDeps);
      return { organizations: organizations.map(organizationToProto) };
    },

    createOrganization: async (request) => {
      const created = await createOrganization(
        em(),
        { title: request.title, ownerEmail: request.ownerEmail, ownerDisplayName: request.ownerDisplayName, ownerToken: request.ownerToken },
        useCaseDeps,
      );
      return { organizationId: created.organization.id, userId: created.userId, token: created.token };
    },

    createLinkInvite: async (request) => createLinkInvite(em(), { organizationId: request.organizationId, role: roleFromProto(request.role) }, useCaseDeps),

    createOrganizationForCaller: async (request) => {
      const view = await createOrganizationForCaller(em(), { caller: request.caller, title: request.title, emailDomains: request.emailDomains }, useCaseDeps);
      return { organization: organizationToProto(view) };
    },

    deleteLinkInvite: async (request) =>
      deleteLinkInvite(em(), { caller: request.caller, organizationId: request.organizationId, inviteId: request.inviteId }, useCaseDeps),
  };
}
