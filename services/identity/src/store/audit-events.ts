import type { EntityManager } from "@mikro-orm/postgresql";
import { executeStatement, queryRows, sql } from "@imprint/runtime";
import type { AuditActorType, AuditSource } from "../domain/audit-event.js";

/** One entry as written to `audit_events`. */
export interface AuditEventRow {
  id: string;
  organizationId: string;
  occurredAt: Date;
  action: string;
  actor: { type: AuditActorType; id: string; label: string | null };
  source: AuditSource;
  target: { type: string; id: string; label: string | null };
  eventType: string;
  payload: Record<string, unknown>;
  recordedAt: Date;
}

/** Writes an entry unless one with its id is there (a replayed or duplicated event adds nothing); true when written. */
export async function insertAuditEvent(em: EntityManager, row: AuditEventRow): Promise<boolean> {
  const written = await executeStatement(
    em,
    sql`insert into audit_events (id, organization_id, occurred_at, action, actor_type, actor_id, actor_label, source,
          target_type, target_id, target_label, event_type, payload, recorded_at)
        values (${row.id}, ${row.organizationId}, ${row.occurredAt}, ${row.action}, ${row.actor.type}, ${row.actor.id}, ${row.actor.label},
          ${row.source}, ${row.target.type}, ${row.target.id}, ${row.target.label}, ${row.eventType}, ${JSON.stringify(row.payload)}::jsonb,
          ${row.recordedAt})
        on conflict (id) do nothing`,
  );
  return written === 1;
}

/** The user an actor's id names: its display name, and the installation it is the principal of. */
export async function findActorUser(em: EntityManager, userId: string): Promise<{ displayName: string; installationId: string | null } | null> {
  const [row] = await queryRows(
    em,
    sql<{
      display_name: string;
      integration_installation_id: string | null;
    }>`select display_name, integration_installation_id from users where id::text = ${userId}`,
  );
  return row ? { displayName: row.display_name, installationId: row.integration_installation_id } : null;
}

/**
 * What a target is called, when its event does not say: the name identity holds for its own
 * resources (a user, a team, the organization, a SAML or OpenID provider), else the latest label an earlier
 * entry of the organization's log recorded for it; null when neither knows.
 */
export async function knownTargetLabel(em: EntityManager, organizationId: string, target: { type: string; id: string }): Promise<string | null> {
  const own =
    target.type === "user"
      ? sql<{ label: string }>`select display_name as label from users where id::text = ${target.id}`
      : target.type === "team"
        ? sql<{ label: string }>`select title as label from teams where id::text = ${target.id} and organization_id = ${organizationId}`
        : target.type === "organization"
          ? sql<{ label: string }>`select title as label from organizations where id::text = ${target.id}`
          : target.type === "saml-provider"
            ? sql<{ label: string }>`select label from saml_providers where id::text = ${target.id} and organization_id = ${organizationId}`
            : target.type === "oidc-provider"
              ? sql<{ label: string }>`select label from oidc_providers where id::text = ${target.id} and organization_id = ${organizationId}`
              : null;
  if (own) {
    const [row] = await queryRows(em, own);
    if (row) return row.label;
  }
  const [earlier] = await queryRows(
    em,
    sql<{ label: string }>`select target_label as label from audit_events
      where organization_id = ${organizationId} and target_id = ${target.id} and target_label is not null
      order by occurred_at desc limit 1`,
  );
  return earlier?.label ?? null;
}

/** Deletes up to `limit` entries that occurred before `before`; the number deleted. */
export async function deleteAuditEventsBefore(em: EntityManager, before: Date, limit: number): Promise<number> {
  return executeStatement(em, sql`delete from audit_events where id in (select id from audit_events where occurred_at < ${before} limit ${limit})`);
}
