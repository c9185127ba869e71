import type { InstallationServiceService } from "@imprint/proto/integration/v1/installations";
import type { EntityManager } from "@mikro-orm/postgresql";
import { pageInfo, pageRequest, type AsyncImplementation } from "@imprint/runtime";
import type { UseCaseDeps } from "../deps.js";
import { getInstallation } from "../use-cases/installations/get-installation.js";
import { installIntegration } from "../use-cases/installations/install-integration.js";
import { issueInstallationToken } from "../use-cases/installations/issue-installation-token.js";
import { listInstallations } from "../use-cases/installations/list-installations.js";
import { spaceCounts } from "../use-cases/shared/installations.js";
import { uninstall } from "../use-cases/installations/uninstall.js";
import { updateInstallation } from "../use-cases/installations/update-installation.js";
import { installationToProto } from "./mappers.js";

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
  };
}
