import type { EntityManager } from "@mikro-orm/postgresql";
import { findPage, requireCaller, type CallerInput, type Page, type PageRequestLike } from "@imprint/runtime";
import type { UseCaseDeps } from "../../deps.js";
import { IntegrationEventRecord } from "../../domain/integration-event.js";
import { findOwnedIntegration } from "../shared/integrations.js";

/**
 * The events an integration was sent, newest first, once their delivery ended (`success` or
 * `failed`, GitBook's two statuses): its developers' log, for admins of its owner organization.
 */
export async function listIntegrationEvents(
  em: EntityManager,
  input: { caller: CallerInput | undefined; name: string; page: PageRequestLike | undefined },
  deps: UseCaseDeps,
): Promise<Page<IntegrationEventRecord>> {
  const integration = await findOwnedIntegration(em, deps, requireCaller(input.caller), input.name, "read its events");
  return findPage(
    em,
    IntegrationEventRecord,
    { integrationId: integration.id, state: { $in: ["success", "failed"] } },
    { fields: ["createdAt", "id"], direction: "desc" },
    input.page,
    {},
  );
}
