import type { EntityManager } from "@mikro-orm/postgresql";
import { isId } from "@imprint/runtime";
import { TargetInstallation } from "../../domain/installation.js";
import { Integration } from "../../domain/integration.js";
import { SCRIPT_INJECT_SCOPE } from "../shared/http-answers.js";

/** The scripts a site injects: its active installations of integrations with the inject scope, by integration name. */
export async function listSiteScripts(em: EntityManager, input: { siteId: string }): Promise<Array<{ integrationName: string; installationId: string }>> {
  if (!isId(input.siteId)) return [];
  const targets = await em.find(TargetInstallation, { kind: "site", targetId: input.siteId, status: "active" });
  if (targets.length === 0) return [];
  const integrations = await em.find(Integration, { id: { $in: targets.map((target) => target.integrationId) } }, { fields: ["id", "name", "scopes"] });
  const byId = new Map(integrations.map((integration) => [integration.id, integration]));
  return targets
    .flatMap((target) => {
      const integration = byId.get(target.integrationId);
      return integration?.hasScope(SCRIPT_INJECT_SCOPE) ? [{ integrationName: integration.name, installationId: target.installationId }] : [];
    })
    .sort((a, b) => (a.integrationName < b.integrationName ? -1 : a.integrationName > b.integrationName ? 1 : 0));
}
