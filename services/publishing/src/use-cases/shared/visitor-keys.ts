import type { EntityManager } from "@mikro-orm/postgresql";
import { executeStatement, queryRows, sql } from "@imprint/runtime";
import { newOrganizationVisitorKey, OrganizationVisitorKey } from "../../domain/organization-visitor-key.js";
import type { UseCaseDeps } from "../../deps.js";

/** The organization's member-token key, created (once, whoever races) when first needed. */
export async function organizationVisitorKey(em: EntityManager, deps: Pick<UseCaseDeps, "clock">, organizationId: string): Promise<string> {
  const found = await em.findOne(OrganizationVisitorKey, { organizationId });
  if (found) return found.key;
  await executeStatement(
    em,
    sql`insert into organization_visitor_keys (organization_id, key, created_at) values (${organizationId}, ${newOrganizationVisitorKey()}, ${deps.clock()}) on conflict (organization_id) do nothing`,
  );
  const [row] = await queryRows(em, sql<{ key: string }>`select key from organization_visitor_keys where organization_id = ${organizationId}`);
  return row!.key;
}
