import { AppError, isId, type CallerInput } from "@imprint/runtime";
import type { UseCaseDeps } from "../../deps.js";
import type { Installation, TargetInstallation } from "../../domain/installation.js";
import type { Integration } from "../../domain/integration.js";
import { callerMessage, organizationStanding } from "./access.js";

/** Where a component renders, as GitBook's ContentKitContext says, resolved to an installation. */
export interface RenderPlace {
  organizationId: string;
  installation: Installation;
  target: TargetInstallation | null;
  /** How many spaces the installation is installed on (its `spaces` in the environment). */
  spaceCount: number;
  /** The event's space or site, as GitBook's SpaceEvent / SiteEvent carry it. */
  spaceId?: string;
  siteId?: string;
}

function stringField(context: Record<string, unknown>, name: string): string {
  const value = context[name];
  if (typeof value !== "string" || value === "") throw AppError.invalidArgument(`context.${name}: is required`);
  return value;
}

/**
 * The organization and installation a render's context points at: its organization
 * (configuration contexts), its space (documents and space configuration; the caller must be able
 * to read it) or its site installation. The caller must be a member of that organization, and the
 * integration installed there. The rows come from the render lookups (kept; see RenderLookups).
 */
export async function resolveRenderPlace(
  deps: Pick<UseCaseDeps, "spaceReads" | "memberships" | "renderLookups">,
  caller: CallerInput,
  integration: Integration,
  context: Record<string, unknown>,
): Promise<RenderPlace> {
  const type = context.type;
  let organizationId: string;
  let target: TargetInstallation | null = null;
  let spaceId: string | undefined;
  let siteId: string | undefined;
  switch (type) {
    case "configuration_account":
    case "configuration_contentsource":
      organizationId = stringField(context, "organizationId");
      if (typeof context.spaceId === "string" && context.spaceId) spaceId = context.spaceId;
      break;
    case "document":
    case "configuration_space": {
      spaceId = stringField(context, "spaceId");
      if (!isId(spaceId)) throw AppError.notFound("Space");
      organizationId = await deps.spaceReads.organizationOf(callerMessage(caller), spaceId);
      break;
    }
    case "configuration_site": {
      siteId = stringField(context, "siteId");
      const found = isId(siteId) ? await deps.renderLookups.siteInstallation(integration, siteId) : null;
      if (!found) throw AppError.notFound("Site installation");
      organizationId = found.organizationId;
      target = found;
      break;
    }
    default:
      throw AppError.invalidArgument(
        "context.type: must be configuration_account, configuration_space, configuration_site, configuration_contentsource or document",
      );
  }
  if (!(await organizationStanding(deps, caller, organizationId)).member) throw AppError.notFound("Organization");
  const found = await deps.renderLookups.place(integration, organizationId, target ? undefined : spaceId && isId(spaceId) ? spaceId : undefined);
  if (!found) throw new AppError("failed_precondition", `${integration.name} is not installed in this organization`);
  return {
    organizationId,
    installation: found.installation,
    target: target ?? found.target,
    spaceCount: found.spaceCount,
    ...(spaceId ? { spaceId } : {}),
    ...(siteId ? { siteId } : {}),
  };
}
