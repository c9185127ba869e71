import type { EntityManager } from "@mikro-orm/postgresql";
import { AppError, type CallerInput } from "@imprint/runtime";
import type { UseCaseDeps } from "../../deps.js";
import { Integration, isIntegrationName } from "../../domain/integration.js";
import { organizationStanding, type Standing } from "./access.js";

/** An integration with the caller's standing in its owner organization. */
export interface VisibleIntegration {
  integration: Integration;
  owner: Standing;
}

/**
 * The integration by name, when the caller may see it: public and unlisted ones to anyone signed
 * in, private ones to members of the owner organization; otherwise not_found, as if it did not exist.
 */
export async function findVisibleIntegration(
  em: EntityManager,
  deps: Pick<UseCaseDeps, "memberships">,
  caller: CallerInput,
  name: string,
): Promise<VisibleIntegration> {
  if (!isIntegrationName(name)) throw AppError.notFound("Integration");
  return visibleTo(deps, caller, await em.findOne(Integration, { name }));
}

/**
 * findVisibleIntegration for renders, from what the render lookups keep (the integration is shared
 * by concurrent renders: read it, never change it).
 */
export async function findVisibleKeptIntegration(
  deps: Pick<UseCaseDeps, "memberships" | "renderLookups">,
  caller: CallerInput,
  name: string,
): Promise<VisibleIntegration> {
  if (!isIntegrationName(name)) throw AppError.notFound("Integration");
  return visibleTo(deps, caller, await deps.renderLookups.integration(name));
}

async function visibleTo(deps: Pick<UseCaseDeps, "memberships">, caller: CallerInput, integration: Integration | null): Promise<VisibleIntegration> {
  if (!integration) throw AppError.notFound("Integration");
  const owner = await organizationStanding(deps, caller, integration.ownerOrganizationId);
  if (!integration.isVisibleTo(owner.member)) throw AppError.notFound("Integration");
  return { integration, owner };
}

/** The integration when the caller administers its owner organization (publishing, development mode, its event log). */
export async function findOwnedIntegration(
  em: EntityManager,
  deps: Pick<UseCaseDeps, "memberships">,
  caller: CallerInput,
  name: string,
  action: string,
): Promise<Integration> {
  const { integration, owner } = await findVisibleIntegration(em, deps, caller, name);
  if (!owner.admin) throw AppError.permissionDenied(`Only admins of the organization that publishes ${integration.name} can ${action}`);
  return integration;
}
