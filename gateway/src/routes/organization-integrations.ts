import { z } from "zod";
import type { Caller } from "@imprint/proto/common/v1";
import type { OrganizationInstallation } from "@imprint/proto/integration/v1/installations";
import { TargetKind } from "@imprint/proto/integration/v1/target_installations";
import { AppError } from "@imprint/runtime/core";
import { toRestInstallation, toRestSiteIntegrationScript } from "../mappers/integration.js";
import { pageQueryShape, toPageRequest, toPagedList, type ListCursors } from "../pagination.js";
import { defineRoute, ok, type Route } from "../route.js";
import { pathId, queryParam } from "../validation.js";
import type { RouteDeps } from "./deps.js";
import { restIntegrations } from "./integration-views.js";
import { integrationParams, listIntegrationsQuery } from "./integrations.js";

const organizationParams = z.object({ organizationId: pathId() });
const siteParams = organizationParams.extend({ siteId: pathId() });
const organizationIntegrationParams = organizationParams.extend(integrationParams.shape);
const searchQuery = { search: queryParam.string(256).optional() };

/** listOrganizationIntegrationsStatus: `site` and `space` scope `target=site` and `target=space`. */
export const installationsStatusQuery = z.object({
  ...pageQueryShape,
  target: z.enum(["organization", "space", "site"], { error: "must be organization, space or site" }).optional(),
  site: pathId().optional(),
  space: pathId().optional(),
});

const TARGET_KINDS = { organization: TargetKind.TARGET_KIND_UNSPECIFIED, space: TargetKind.TARGET_KIND_SPACE, site: TargetKind.TARGET_KIND_SITE };

/** GitBook's InstalledIntegrationTarget of an installation the integration service listed. */
function installedTarget(item: OrganizationInstallation, organizationId: string) {
  if (item.targetKind === TargetKind.TARGET_KIND_SPACE) return { type: "space", spaceId: item.targetId };
  if (item.targetKind === TargetKind.TARGET_KIND_SITE) return { type: "site", siteId: item.targetId };
  return { type: "organization", organizationId };
}

/**
 * What an organization and its sites have installed (GitBook's organization and site listings of
 * the `integrations` operations): the integrations it can use, its installations and their
 * statuses, a site's integrations and the scripts its pages inject (the integration service's one
 * list, the same the reader loads).
 */
export function organizationIntegrationRoutes({ upstreams, urls }: RouteDeps): Route[] {
  const integration = upstreams.integration;
  const installations = (
    caller: Caller,
    organizationId: string,
    cursors: ListCursors,
    query: z.output<z.ZodObject<typeof pageQueryShape>>,
    filters: { search?: string; name?: string; targetKind?: TargetKind; targetId?: string },
  ) =>
    integration.installations.listOrganizationInstallations({
      caller,
      organizationId,
      page: toPageRequest(query, cursors),
      search: filters.search ?? "",
      name: filters.name ?? "",
      targetKind: filters.targetKind ?? TargetKind.TARGET_KIND_UNSPECIFIED,
      targetId: filters.targetId ?? "",
    });

  return [
    // listOrganizationIntegrations: public integrations and the organization's own.
    defineRoute({
      method: "GET",
      path: "/v1/orgs/:organizationId/integrations",
      params: organizationParams,
      query: listIntegrationsQuery,
      handler: async ({ params, query, principal, cursors }) => {
        const response = await integration.integrations.listIntegrations({
          caller: principal.caller,
          page: toPageRequest(query, cursors),
          search: query.search ?? "",
          category: query.category ?? "",
          blockDomain: query.blockDomain ?? "",
          blocks: query.blocks,
          contentSources: query.contentSources,
          owner: query.owner ?? "",
          scope: query.scope ?? "",
          target: query.target ?? "",
          organizationId: params.organizationId,
          siteId: "",
        });
        return ok(toPagedList(await restIntegrations(upstreams, urls, response.integrations), response.page, cursors));
      },
    }),

    // listOrganizationInstallations: each installation with its integration.
    defineRoute({
      method: "GET",
      path: "/v1/orgs/:organizationId/installations",
      params: organizationParams,
      query: z.object({ ...pageQueryShape, ...searchQuery }),
      handler: async ({ params, query, principal, cursors }) => {
        const response = await installations(principal.caller, params.organizationId, cursors, query, { search: query.search });
        const rest = await restIntegrations(
          upstreams,
          urls,
          response.installations.map((item) => item.integration!),
        );
        const items = response.installations.map((item, index) => ({ installation: toRestInstallation(item.installation, urls), integration: rest[index]! }));
        return ok(toPagedList(items, response.page, cursors));
      },
    }),

    // listOrganizationIntegrationsStatus: installations on the organization (by default), its spaces or its sites.
    defineRoute({
      method: "GET",
      path: "/v1/orgs/:organizationId/integrations/installations-status",
      params: organizationParams,
      query: installationsStatusQuery,
      handler: async ({ params, query, principal, cursors }) => {
        const target = query.target ?? "organization";
        if (query.site !== undefined && target !== "site") throw AppError.invalidArgument("site: only with target=site");
        if (query.space !== undefined && target !== "space") throw AppError.invalidArgument("space: only with target=space");
        const response = await installations(principal.caller, params.organizationId, cursors, query, {
          targetKind: TARGET_KINDS[target],
          targetId: query.site ?? query.space ?? "",
        });
        const rest = await restIntegrations(
          upstreams,
          urls,
          response.installations.map((item) => item.integration!),
        );
        const items = response.installations.map((item, index) => ({
          status: item.status,
          integration: rest[index]!,
          target: installedTarget(item, params.organizationId),
        }));
        return ok(toPagedList(items, response.page, cursors));
      },
    }),

    // getOrganizationIntegrationStatus: 404 when the integration is not installed on the organization.
    defineRoute({
      method: "GET",
      path: "/v1/orgs/:organizationId/integrations/:integrationName/installation_status",
      params: organizationIntegrationParams,
      handler: async ({ params, principal, cursors }) => {
        const response = await installations(principal.caller, params.organizationId, cursors, {}, { name: params.integrationName });
        const installed = response.installations[0];
        if (!installed) throw AppError.notFound("Integration installation");
        return ok({ status: installed.status });
      },
    }),

    // listSiteIntegrations: the integrations installed on the site.
    defineRoute({
      method: "GET",
      path: "/v1/orgs/:organizationId/sites/:siteId/integrations",
      params: siteParams,
      query: z.object({ ...pageQueryShape, ...searchQuery }),
      handler: async ({ params, query, principal, cursors }) => {
        const response = await integration.integrations.listIntegrations({
          caller: principal.caller,
          page: toPageRequest(query, cursors),
          search: query.search ?? "",
          category: "",
          blockDomain: "",
          owner: "",
          scope: "",
          target: "",
          organizationId: params.organizationId,
          siteId: params.siteId,
        });
        return ok(toPagedList(await restIntegrations(upstreams, urls, response.integrations), response.page, cursors));
      },
    }),

    // listSiteIntegrationScripts: the scripts the site's pages load, as the reader injects them.
    defineRoute({
      method: "GET",
      path: "/v1/orgs/:organizationId/sites/:siteId/integration-scripts",
      params: siteParams,
      handler: async ({ params, principal }) => {
        const { scripts } = await integration.scripts.listSiteScripts({
          caller: principal.caller,
          organizationId: params.organizationId,
          siteId: params.siteId,
        });
        return ok(scripts.map(toRestSiteIntegrationScript));
      },
    }),
  ];
}
