import type { EntityManager } from "@mikro-orm/postgresql";
import { isId } from "@imprint/runtime";
import type { UseCaseDeps } from "../../deps.js";
import { TargetInstallation } from "../../domain/installation.js";
import { Integration } from "../../domain/integration.js";
import { type CallerInput, requireCaller } from "../shared/access.js";
import { SCRIPT_COOKIES_SCOPE, SCRIPT_INJECT_SCOPE } from "../shared/http-answers.js";
import { requireSiteVisible } from "../shared/targets.js";

/** A script a site's pages load. */
export interface SiteScript {
  integrationName: string;
  installationId: string;
  /** The public API's `script.js` of the installation on the site (getPublishedScript serves it). */
  url: string;
  /** The integration's Content-Security-Policy, sent with the script; "" for none. */
  contentSecurityPolicy: string;
  /** The integration asks for `site:script:cookies`. */
  cookies: boolean;
}

/** Where a site's pages load an installation's script from. */
export function siteScriptUrl(publicUrl: string, integrationName: string, installationId: string, siteId: string): string {
  return `${publicUrl}/v1/integrations/${encodeURIComponent(integrationName)}/installations/${encodeURIComponent(installationId)}/sites/${encodeURIComponent(siteId)}/script.js`;
}

/**
 * The scripts a site injects: its active installations of integrations with the inject scope, by
 * integration name. The one list of them: the reader's pages load these, and the published view and
 * listSiteIntegrationScripts show these. Without a caller (the reader; the gateway once publishing
 * let the caller see the published site) there is no check: a published site's scripts are in its
 * pages. With one, the caller must see the site in `organizationId`.
 */
export async function listSiteScripts(
  em: EntityManager,
  input: { siteId: string; caller?: CallerInput | undefined; organizationId?: string },
  deps: Pick<UseCaseDeps, "sites" | "settings">,
): Promise<SiteScript[]> {
  if (input.caller) await requireSiteVisible(deps, requireCaller(input.caller), input.organizationId ?? "", input.siteId);
  if (!isId(input.siteId)) return [];
  const targets = await em.find(TargetInstallation, { kind: "site", targetId: input.siteId, status: "active" });
  if (targets.length === 0) return [];
  const integrations = await em.find(
    Integration,
    { id: { $in: targets.map((target) => target.integrationId) } },
    { fields: ["id", "name", "scopes", "contentSecurityPolicy"] },
  );
  const byId = new Map(integrations.map((integration) => [integration.id, integration]));
  return targets
    .flatMap((target) => {
      const integration = byId.get(target.integrationId);
      if (!integration?.hasScope(SCRIPT_INJECT_SCOPE)) return [];
      return [
        {
          integrationName: integration.name,
          installationId: target.installationId,
          url: siteScriptUrl(deps.settings.publicUrl, integration.name, target.installationId, input.siteId),
          contentSecurityPolicy: integration.contentSecurityPolicy ?? "",
          cookies: integration.hasScope(SCRIPT_COOKIES_SCOPE),
        },
      ];
    })
    .sort((a, b) => (a.integrationName < b.integrationName ? -1 : a.integrationName > b.integrationName ? 1 : 0));
}
