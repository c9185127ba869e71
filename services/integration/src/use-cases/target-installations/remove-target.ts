import { recordEvent } from "@imprint/runtime";
import type { EntityManager } from "@mikro-orm/postgresql";
import type { UseCaseDeps } from "../../deps.js";
import { TargetInstallation, type TargetKind } from "../../domain/installation.js";
import { Integration } from "../../domain/integration.js";
import { targetInstallationDeleted } from "../../events.js";
import { recordTargetDeleted } from "../shared/targets.js";

/**
 * A space or site is gone for good (purged, deleted, or moved to another organization): its
 * installations go with it, each integration hearing `*_installation_deleted`.
 */
export async function removeTarget(
  em: EntityManager,
  input: { sourceEventId: string; kind: TargetKind; targetId: string },
  deps: UseCaseDeps,
): Promise<number> {
  const targets = await em.find(TargetInstallation, { kind: input.kind, targetId: input.targetId });
  if (targets.length === 0) return 0;
  const integrations = await em.find(Integration, { id: { $in: targets.map((target) => target.integrationId) } }, { fields: ["id", "name"] });
  const names = new Map(integrations.map((integration) => [integration.id, integration.name]));
  for (const target of targets) {
    recordEvent(em, targetInstallationDeleted, {
      organizationId: target.organizationId,
      actor: null,
      payload: { installationId: target.installationId, integrationName: names.get(target.integrationId) ?? "", kind: target.kind, targetId: target.targetId },
    });
    recordTargetDeleted(em, deps, target.integrationId, target, `${input.sourceEventId}:${target.id}`);
    em.remove(target);
  }
  return targets.length;
}
