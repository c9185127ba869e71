import type { EntityManager } from "@mikro-orm/postgresql";
import { requireCaller, type CallerInput } from "@imprint/runtime";
import type { UseCaseDeps } from "../../deps.js";
import { findVisibleIntegration, type VisibleIntegration } from "../shared/integrations.js";

/** One integration the caller may see, with its standing in the owner organization. */
export async function getIntegration(
  em: EntityManager,
  input: { caller: CallerInput | undefined; name: string },
  deps: UseCaseDeps,
): Promise<VisibleIntegration> {
  return findVisibleIntegration(em, deps, requireCaller(input.caller), input.name);
}
