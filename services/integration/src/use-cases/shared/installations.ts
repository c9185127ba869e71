import type { EntityManager } from "@mikro-orm/postgresql";
import { AppError, isId, type CallerInput } from "@imprint/runtime";
import type { UseCaseDeps } from "../../deps.js";
import { Installation, TargetInstallation, type TargetKind } from "../../domain/installation.js";
import type { Integration } from "../../domain/integration.js";
import { standingIn } from "./access.js";
import { findVisibleIntegration } from "./integrations.js";

/** What the caller may do with an installation. */
export type InstallationRight = "view" | "change";

/**
 * An installation of the integration the caller may see (members of its organization, and admins
 * of the integration's owner) or change (admins of either). Anyone else: not_found.
 */
export async function findInstallation(
  em: EntityManager,
  deps: Pick<UseCaseDeps, "memberships">,
  caller: CallerInput,
  name: string,
  installationId: string,
  right: InstallationRight,
): Promise<{ integration: Integration; installation: Installation }> {
  const { integration, owner } = await findVisibleIntegration(em, deps, caller, name);
  if (!isId(installationId)) throw AppError.notFound("Installation");
  const installation = await em.findOne(Installation, { id: installationId, integrationId: integration.id });
  if (!installation) throw AppError.notFound("Installation");
  const standing = owner.admin ? owner : await standingIn(deps, caller, installation.organizationId);
  if (!owner.admin && !standing.member) throw AppError.notFound("Installation");
  if (right === "change" && !owner.admin && !standing.admin) throw AppError.permissionDenied("Only organization admins can change an installation");
  return { integration, installation };
}

/** A space or site installation of an installation; not_found when the integration is not installed there. */
export async function findTargetInstallation(em: EntityManager, installation: Installation, kind: TargetKind, targetId: string): Promise<TargetInstallation> {
  const found = isId(targetId) ? await em.findOne(TargetInstallation, { installationId: installation.id, kind, targetId }) : null;
  if (!found) throw AppError.notFound(kind === "space" ? "Space installation" : "Site installation");
  return found;
}

/** How many spaces each installation is installed on (GitBook's installation `spaces`), in one query. */
export async function spaceCounts(em: EntityManager, installations: readonly Installation[]): Promise<Map<string, number>> {
  const counts = new Map<string, number>();
  if (installations.length === 0) return counts;
  const rows = await em
    .getConnection()
    .execute<{ installation_id: string; count: string }[]>(
      `select installation_id, count(*) as count from target_installations where kind = 'space' and installation_id in (${installations.map(() => "?").join(", ")}) group by installation_id`,
      installations.map((installation) => installation.id),
    );
  for (const row of rows) counts.set(row.installation_id, Number(row.count));
  return counts;
}
