import type { EntityManager } from "@mikro-orm/postgresql";
import { queryRows, sql } from "@imprint/runtime";

/** An installation that hears an event, with the space or site installation it concerns (if any). */
export interface Recipient {
  integrationId: string;
  installationId: string;
  organizationId: string;
  targetInstallationId: string | null;
}

/**
 * The installations of an organization that hear an event about one space or site: those whose
 * integration asks for `scope`, installed on that space/site, or on all of the organization's
 * (selection `all`, where the integration's target allows it). One query, whatever their number.
 */
export async function recipientsFor(
  em: EntityManager,
  input: { organizationId: string; kind: "space" | "site"; targetId: string; scope: string },
): Promise<Recipient[]> {
  const selection = sql.ref(input.kind === "space" ? "i.space_selection" : "i.site_selection");
  const rows = await queryRows(
    em,
    sql<{
      integration_id: string;
      installation_id: string;
      organization_id: string;
      target_installation_id: string | null;
    }>`select i.integration_id, i.id as installation_id, i.organization_id, t.id as target_installation_id
       from installations i
       join integrations g on g.id = i.integration_id
       left join target_installations t on t.installation_id = i.id and t.kind = ${input.kind} and t.target_id = ${input.targetId}
      where i.organization_id = ${input.organizationId}
        and g.scopes @> ${JSON.stringify([input.scope])}::jsonb
        and (t.id is not null or (${selection} = 'all' and g.target in ('all', ${input.kind})))
      order by i.created_at, i.id`,
  );
  return rows.map((row) => ({
    integrationId: row.integration_id,
    installationId: row.installation_id,
    organizationId: row.organization_id,
    targetInstallationId: row.target_installation_id,
  }));
}
