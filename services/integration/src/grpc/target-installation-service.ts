import type { TargetInstallationServiceService, TargetKind } from "@imprint/proto/integration/v1/target_installations";
import type { EntityManager } from "@mikro-orm/postgresql";
import { pageInfo, pageRequest, type AsyncImplementation, type CallerInput } from "@imprint/runtime";
import type { UseCaseDeps } from "../deps.js";
import { getTargetInstallation } from "../use-cases/target-installations/get-target-installation.js";
import { installOnTarget } from "../use-cases/target-installations/install-on-target.js";
import { listTargetInstallations } from "../use-cases/target-installations/list-target-installations.js";
import { parseJsonObject } from "../use-cases/shared/json.js";
import { targetKindOf } from "../use-cases/shared/targets.js";
import { uninstallFromTarget } from "../use-cases/target-installations/uninstall-from-target.js";
import { updateTargetInstallation } from "../use-cases/target-installations/update-target-installation.js";
import { targetInstallationToProto, targetKindFromProto } from "./mappers.js";

/** The installation on one target that a request names: its caller, integration, installation and target. */
function targetOf(request: { caller?: CallerInput; name: string; installationId: string; kind: TargetKind; targetId: string }) {
  return {
    caller: request.caller,
    name: request.name,
    installationId: request.installationId,
    kind: targetKindOf(targetKindFromProto(request.kind)),
    targetId: request.targetId,
  };
}

export const TARGET_INSTALLATION_SERVICE_NAME = "imprint.integration.v1.TargetInstallationService";

/** Thin transport: one use case per call on a fresh EntityManager, its result mapped to the response. */
export function targetInstallationServiceImplementation(
  em: () => EntityManager,
  deps: UseCaseDeps,
): AsyncImplementation<typeof TargetInstallationServiceService> {
  return {
    listTargetInstallations: async (request) => {
      const { integration, page } = await listTargetInstallations(
        em(),
        {
          caller: request.caller,
          name: request.name,
          kind: targetKindOf(targetKindFromProto(request.kind)),
          installationId: request.installationId,
          externalId: request.externalId,
          page: pageRequest(request.page),
        },
        deps,
      );
      return { installations: page.items.map((target) => targetInstallationToProto(integration, target)), page: pageInfo(page) };
    },

    installOnTarget: async (request) => {
      const { integration, target, created } = await installOnTarget(
        em(),
        {
          ...targetOf(request),
          configuration: parseJsonObject("configuration", request.configurationJson),
          externalIds: request.externalIds,
        },
        deps,
      );
      return { installation: targetInstallationToProto(integration, target), created };
    },

    getTargetInstallation: async (request) => {
      const { integration, target } = await getTargetInstallation(
        em(),
        {
          ...targetOf(request),
        },
        deps,
      );
      return { installation: targetInstallationToProto(integration, target) };
    },

    updateTargetInstallation: async (request) => {
      const { integration, target } = await updateTargetInstallation(
        em(),
        {
          ...targetOf(request),
          updateMask: request.updateMask ?? [],
          configurationJson: request.configurationJson,
          externalIds: request.externalIds?.values ?? [],
        },
        deps,
      );
      return { installation: targetInstallationToProto(integration, target) };
    },

    uninstallFromTarget: async (request) => ({
      existed: await uninstallFromTarget(
        em(),
        {
          ...targetOf(request),
        },
        deps,
      ),
    }),
  };
}
