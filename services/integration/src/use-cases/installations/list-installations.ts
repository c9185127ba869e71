import type { EntityManager } from "@mikro-orm/postgresql";
import { findPage, requireCaller, type CallerInput, type Page, type PageRequestLike } from "@imprint/runtime";
import type { UseCaseDeps } from "../../deps.js";
import { Installation } from "../../domain/installation.js";
import type { Integration } from "../../domain/integration.js";
import { callerMessage } from "../shared/access.js";
import { findVisibleIntegration } from "../shared/integrations.js";

/**
 * An integration's installations, oldest first: all of them for admins of its owner organization
 * (its developers), else those of the organizations the caller belongs to.
 */
export async function listInstallations(
  em: EntityManager,
  input: { caller: CallerInput | undefined; name: string; page: PageRequestLike | undefined; externalId: string },
  deps: UseCaseDeps,
): Promise<{ integration: Integration; page: Page<Installation> }> {
  const caller = requireCaller(input.caller);
  const { integration, owner } = await findVisibleIntegration(em, deps, caller, input.name);
  const where: Record<string, unknown> = { integrationId: integration.id };
  if (!owner.admin) {
    const { organizations } = await deps.identity.organizations.listOrganizations({ caller: callerMessage(caller), page: { pageToken: "", pageSize: 1000 } });
    where.organizationId = { $in: organizations.map((organization) => organization.id) };
  }
  if (input.externalId) where.externalIds = { $contains: [input.externalId] };
  const page = await findPage(em, Installation, where, { fields: ["createdAt", "id"], direction: "asc" }, input.page);
  return { integration, page };
}
