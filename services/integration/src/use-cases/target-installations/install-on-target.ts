import { randomUUID } from "node:crypto";
import type { EntityManager } from "@mikro-orm/postgresql";
import { AppError, requireCaller, type CallerInput, recordEvent } from "@imprint/runtime";
import type { UseCaseDeps } from "../../deps.js";
import { checkExternalIds, TargetInstallation, type TargetKind } from "../../domain/installation.js";
import { newSigningSecret, type Integration } from "../../domain/integration.js";
import { targetInstallationCreated } from "../../events.js";
import { wakeDelivery } from "../shared/deliveries.js";
import { findInstallation } from "../shared/installations.js";
import { createOrFindWinner } from "../shared/races.js";
import { recordTargetSetup, requireTargetInOrganization, targetConfiguration, targetStatus } from "../shared/targets.js";

export interface InstallOnTargetInput {
  caller: CallerInput | undefined;
  name: string;
  installationId: string;
  kind: TargetKind;
  targetId: string;
  configuration: Record<string, unknown>;
  externalIds: string[];
}

/**
 * Installs an integration on a space or a site of its installation's organization (as its target
 * allows); the integration hears `space_installation_setup` / `site_installation_setup`.
 * Installing twice answers the existing one, also to a request racing the one that created it.
 */
export async function installOnTarget(
  em: EntityManager,
  input: InstallOnTargetInput,
  deps: UseCaseDeps,
): Promise<{ integration: Integration; target: TargetInstallation; created: boolean }> {
  const caller = requireCaller(input.caller);
  const { integration, installation } = await findInstallation(em, deps, caller, input.name, input.installationId, "change");
  if (!integration.allowsTarget(input.kind))
    throw AppError.invalidArgument(`${integration.name} cannot be installed on ${input.kind}s (its target is ${integration.target})`);
  await requireTargetInOrganization(deps, caller, installation, input.kind, input.targetId);
  const existing = await em.findOne(TargetInstallation, { installationId: installation.id, kind: input.kind, targetId: input.targetId });
  if (existing) return { integration, target: existing, created: false };
  const configuration = targetConfiguration(integration, input.kind, input.configuration);
  const externalIds = checkExternalIds("externalIds", input.externalIds);

  const { value: target, created } = await createOrFindWinner(
    () =>
      deps.unitOfWork.run(em, async (tx) => {
        const now = deps.clock();
        const created = tx.create(TargetInstallation, {
          id: randomUUID(),
          installationId: installation.id,
          integrationId: integration.id,
          organizationId: installation.organizationId,
          kind: input.kind,
          targetId: input.targetId,
          status: targetStatus(integration, input.kind, configuration),
          configuration,
          externalIds,
          signingSecret: newSigningSecret(),
          createdAt: now,
          updatedAt: now,
        });
        recordEvent(tx, targetInstallationCreated, {
          organizationId: installation.organizationId,
          actor: caller,
          payload: { installationId: installation.id, integrationName: integration.name, kind: input.kind, targetId: input.targetId, status: created.status },
        });
        recordTargetSetup(tx, deps, integration, created, undefined, `target_installation.created:${created.id}`);
        return created;
      }),
    () => em.fork().findOne(TargetInstallation, { installationId: installation.id, kind: input.kind, targetId: input.targetId }),
  );
  if (created) {
    deps.renderLookups.forget(integration.name);
    wakeDelivery(deps);
  }
  return { integration, target, created };
}
