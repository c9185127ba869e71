import type { EntityManager } from "@mikro-orm/postgresql";
import { findPage, requireCaller, type CallerInput, type Page, type PageRequestLike } from "@imprint/runtime";
import type { UseCaseDeps } from "../../deps.js";
import { TargetInstallation, type TargetKind } from "../../domain/installation.js";
import type { Integration } from "../../domain/integration.js";
import { callerMessage } from "../shared/access.js";
import { findInstallation } from "../shared/installations.js";
import { findVisibleIntegration } from "../shared/integrations.js";

export interface ListTargetInstallationsInput {
  caller: CallerInput | undefined;
  name: string;
  kind: TargetKind;
  installationId: string;
  externalId: string;
  page: PageRequestLike | undefined;
}

/**
 * An integration's space or site installations, oldest first: of one installation, or of every
 * installation the caller can see (all for the owner's admins, else its organizations').
 */
export async function listTargetInstallations(
  em: EntityManager,
  input: ListTargetInstallationsInput,
  deps: UseCaseDeps,
): Promise<{ integration: Integration; page: Page<TargetInstallation> }> {
  const caller = requireCaller(input.caller);
  const where: Record<string, unknown> = { kind: input.kind };
  let integration: Integration;
  if (input.installationId) {
    const found = await findInstallation(em, deps, caller, input.name, input.installationId, "view");
    integration = found.integration;
    where.installationId = found.installation.id;
  } else {
    const visible = await findVisibleIntegration(em, deps, caller, input.name);
    integration = visible.integration;
    if (!visible.owner.admin) {
      const { organizations } = await deps.identity.organizations.listOrganizations({ caller: callerMessage(caller), page: { pageToken: "", pageSize: 1000 } });
      where.organizationId = { $in: organizations.map((organization) => organization.id) };
    }
  }
  where.integrationId = integration.id;
  if (input.externalId) where.externalIds = { $contains: [input.externalId] };
  const page = await findPage(em, TargetInstallation, where, { fields: ["createdAt", "id"], direction: "asc" }, input.page);
  return { integration, page };
}
