import type { EntityManager, EntityMetadata } from "@mikro-orm/postgresql";
import { AppError, type CallerInput, isId, queryRows, sql } from "@imprint/runtime";
import type { UseCaseDeps } from "../../deps.js";
import { Installation, TargetInstallation, type TargetKind } from "../../domain/installation.js";
import type { Integration } from "../../domain/integration.js";
import { organizationStanding } from "./access.js";
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
  const standing = owner.admin ? owner : await organizationStanding(deps, caller, installation.organizationId);
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
  const rows = await queryRows(
    em,
    sql<{ installation_id: string; count: string }>`select installation_id, count(*) as count from target_installations
      where kind = 'space' and installation_id in (${sql.join(installations.map((installation) => installation.id))}) group by installation_id`,
  );
  for (const row of rows) counts.set(row.installation_id, Number(row.count));
  return counts;
}

/** An organization's installation of an integration, its installation on one space, and its space count. */
export interface InstallationPlace {
  installation: Installation;
  /** The installation on the space asked for; null when none was asked for or it is not installed there. */
  target: TargetInstallation | null;
  spaceCount: number;
}

/** The columns an entity is stored in (its lazy ones apart). */
const storedColumnsOf = new WeakMap<EntityMetadata, string[]>();
function storedColumns(meta: EntityMetadata): string[] {
  let columns = storedColumnsOf.get(meta);
  if (!columns) {
    columns = meta.props.filter((prop) => prop.persist !== false && !prop.lazy).flatMap((prop) => prop.fieldNames ?? []);
    storedColumnsOf.set(meta, columns);
  }
  return columns;
}

/**
 * The organization's installation of the integration, with its installation on `spaceId` and its
 * space count, in one round trip: a render or a request pays one query for its place, not three.
 */
export async function findInstallationPlace(
  em: EntityManager,
  integrationId: string,
  organizationId: string,
  spaceId?: string,
): Promise<InstallationPlace | null> {
  const installationColumns = storedColumns(em.getMetadata(Installation));
  const targetColumns = storedColumns(em.getMetadata(TargetInstallation));
  const columns = [
    ...installationColumns.map((column) => sql.ref(`n.${column}`)),
    ...targetColumns.map((column) => sql`${sql.ref(`t.${column}`)} as ${sql.id(`target_${column}`)}`),
  ];
  const rows = await queryRows(
    em,
    sql<Record<string, unknown>>`select ${sql.join(columns)},
      (select count(*) from target_installations c where c.installation_id = n.id and c.kind = 'space') as space_count
     from installations n
     left join target_installations t on t.installation_id = n.id and t.kind = 'space' and t.target_id = ${spaceId && isId(spaceId) ? spaceId : null}
     where n.integration_id = ${integrationId} and n.organization_id = ${organizationId}`,
  );
  const row = rows[0];
  if (!row) return null;
  const installation = em.map(Installation, Object.fromEntries(installationColumns.map((column) => [column, row[column]])));
  const target =
    row.target_id === null || row.target_id === undefined
      ? null
      : em.map(TargetInstallation, Object.fromEntries(targetColumns.map((column) => [column, row[`target_${column}`]])));
  return { installation, target, spaceCount: Number(row.space_count) };
}
