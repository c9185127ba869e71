import type { EntityManager } from "@mikro-orm/postgresql";
import { requireCaller, type CallerInput } from "@imprint/runtime";
import type { UseCaseDeps } from "../../deps.js";
import type { TargetInstallation, TargetKind } from "../../domain/installation.js";
import type { Integration } from "../../domain/integration.js";
import { findInstallation, findTargetInstallation } from "../shared/installations.js";

/** One space or site installation the caller may see. */
export async function getTargetInstallation(
  em: EntityManager,
  input: { caller: CallerInput | undefined; name: string; installationId: string; kind: TargetKind; targetId: string },
  deps: UseCaseDeps,
): Promise<{ integration: Integration; target: TargetInstallation }> {
  const { integration, installation } = await findInstallation(em, deps, requireCaller(input.caller), input.name, input.installationId, "view");
  return { integration, target: await findTargetInstallation(em, installation, input.kind, input.targetId) };
}
