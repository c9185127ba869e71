import type { EntityManager } from "@mikro-orm/postgresql";
import { requireCaller, type CallerInput } from "@imprint/runtime";
import type { UseCaseDeps } from "../../deps.js";
import type { Installation } from "../../domain/installation.js";
import type { Integration } from "../../domain/integration.js";
import { findInstallation } from "../shared/installations.js";

/** One installation the caller may see. */
export async function getInstallation(
  em: EntityManager,
  input: { caller: CallerInput | undefined; name: string; installationId: string },
  deps: UseCaseDeps,
): Promise<{ integration: Integration; installation: Installation }> {
  return findInstallation(em, deps, requireCaller(input.caller), input.name, input.installationId, "view");
}
