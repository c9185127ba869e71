import type { InstallationServiceService } from "@imprint/proto/integration/v1/installations";
import type { EntityManager } from "@mikro-orm/postgresql";
import { TargetKind as TargetKindMessage } from "@imprint/proto/integration/v1/target_installations";
import { AppError, pageInfo, pageRequest, type AsyncImplementation } from "@imprint/runtime";
import type { UseCaseDeps } from "../deps.js";
import { getInstallation } from "../use-cases/installations/get-installation.js";
import { installIntegration } from "../use-cases/installations/install-integration.js";
import { issueInstallationToken } from "../use-cases/installations/issue-installation-token.js";
import { listInstallations } from "../use-cases/installations/list-installations.js";
import { listOrganizationInstallations } from "../use-cases/installations/list-organization-installations.js";
import { spaceCounts } from "../use-cases/shared/installations.js";
import { uninstall } from "../use-cases/installations/uninstall.js";
import { updateInstallation } from "../use-cases/installations/update-installation.js";
import { installationToProto, integrationToProto, targetKindFromProto, targetKindToProto } from "./mappers.js";

export const INSTALLATION_SERVICE_NAME = "imprint.integration.v1.InstallationService";

/** Thin transport: one use case per call on a fresh EntityManager, its result mapped to the response. */
export function installationServiceImplementation(em: () => EntityManager, deps: UseCaseDeps): AsyncImplementation<typeof InstallationServiceService> {
  return {
    listInstallations: async (request) => {
      const scoped = em();
      const { integration, page } = await listInstallations(
        scoped,
        { caller: request.caller, name: request.name, page: pageRequest(request.page), externalId: request.externalId },
        deps,
      );
      const counts = await spaceCounts(scoped, page.items);
      return {
        installations: page.items.map((installation) => installationToProto(integration, installation, counts.get(installation.id) ?? 0)),
        page: pageInfo(page),
      };
    },

    installIntegration: async (request) => {
      const { integration, installation, created } = await installIntegration(
        em(),
        { caller: request.caller, name: request.name, organizationId: request.organizationId },
        deps,
      );
      return { installation: installationToProto(integration, installation, 0), created };
    },

    getInstallation: async (request) => {
      const scoped = em();
      const { integration, installation } = await getInstallation(
        scoped,
        { caller: request.caller, name: request.name, installationId: request.installationId },
        deps,
      );
      const counts = await spaceCounts(scoped, [installation]);
      return { installation: installationToProto(integration, installation, counts.get(installation.id) ?? 0) };
    },

    updateInstallation: async (request) => {
      const scoped = em();
      const { integration, installation } = await updateInstallation(
        scoped,
        {
          caller: request.caller,
          name: request.name,
          installationId: request.installationId,
          updateMask: request.updateMask ?? [],
          configurationJson: request.configurationJson,
          externalIds: request.externalIds?.values ?? [],
          spaceSelection: request.spaceSelection,
          siteSelection: request.siteSelection,
        },
        deps,
      );
      const counts = await spaceCounts(scoped, [installation]);
      return { installation: installationToProto(integration, installation, counts.get(installation.id) ?? 0) };
    },

    uninstall: async (request) => ({
      existed: await uninstall(em(), { caller: request.caller, name: request.name, installationId: request.installationId }, deps),
    }),

    issueInstallationToken: async (request) => {
      const issued = await issueInstallationToken(em(), { caller: request.caller, name: request.name, installationId: request.installationId }, deps);
      return { token: issued.token, expiresAt: issued.expiresAt };
    },

    listOrganizationInstallations: async (request) => {
      const targetKind = targetKindFromProto(request.targetKind);
      if (!targetKind && request.targetKind !== TargetKindMessage.TARGET_KIND_UNSPECIFIED)
        throw AppError.invalidArgument("target_kind: must be space or site, or unset");
      if (!targetKind && request.targetId) throw AppError.invalidArgument("target_id: only with a target_kind");
      const page = await listOrganizationInstallations(
        em(),
        {
          caller: request.caller,
          organizationId: request.organizationId,
          page: pageRequest(request.page),
          search: request.search,
          name: request.name,
          targetKind,
          targetId: request.targetId,
        },
        deps,
      );
      return {
        installations: page.items.map((item) => ({
          integration: integrationToProto(item.integration, item.owner),
          installation: installationToProto(item.integration, item.installation, item.spaceCount),
          targetKind: item.target ? targetKindToProto(item.target.kind) : TargetKindMessage.TARGET_KIND_UNSPECIFIED,
          targetId: item.target?.id ?? "",
          status: item.status,
        })),
        page: pageInfo(page),
      };
    },
  };
}
