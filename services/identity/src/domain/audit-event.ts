import { createHash } from "node:crypto";
import { defineEntity, p } from "@mikro-orm/postgresql";

/**
 * Every action the audit log records, by GitBook's action id, with its label. GitBook's ids are
 * `<resource>.<sub-resource>.<verb>` in kebab case (`organization.team.member-added`,
 * `site.redirect.created`); the ones GitBook publishes are used as they are, the others follow
 * that pattern (docs/audit.md says which is which).
 */
export const AUDIT_ACTIONS = {
  "organization.created": "Created organization",
  "organization.settings.updated": "Updated organization settings",
  "organization.member.added": "Added organization member",
  "organization.member.role-updated": "Updated organization member role",
  "organization.member.removed": "Removed organization member",
  "organization.member.sso-enabled": "Enabled SSO for organization member",
  "organization.link-invite.created": "Created organization invite link",
  "organization.link-invite.updated": "Updated organization invite link",
  "organization.link-invite.deleted": "Deleted organization invite link",
  "organization.team.created": "Created organization team",
  "organization.team.updated": "Updated organization team",
  "organization.team.deleted": "Deleted organization team",
  "organization.team.member-added": "Added organization team member",
  "organization.team.member-updated": "Updated organization team member",
  "organization.team.member-removed": "Removed organization team member",
  "organization.saml-provider.created": "Created SAML provider",
  "organization.saml-provider.updated": "Updated SAML provider",
  "organization.saml-provider.deleted": "Deleted SAML provider",
  "organization.saml-provider.activated": "Activated SAML provider",
  "organization.oidc-provider.created": "Created OpenID Connect provider",
  "organization.oidc-provider.updated": "Updated OpenID Connect provider",
  "organization.oidc-provider.deleted": "Deleted OpenID Connect provider",
  "space.created": "Created space",
  "space.updated": "Updated space",
  "space.deleted": "Deleted space",
  "space.restored": "Restored space",
  "space.purged": "Permanently deleted space",
  "space.moved": "Moved space",
  "space.transferred": "Transferred space",
  "space.duplicated": "Duplicated space",
  "space.content.updated": "Updated space content",
  "space.permission.updated": "Updated space permissions",
  "collection.created": "Created collection",
  "collection.updated": "Updated collection",
  "collection.moved": "Moved collection",
  "collection.deleted": "Deleted collection",
  "collection.transferred": "Transferred collection",
  "collection.permission.updated": "Updated collection permissions",
  "change-request.created": "Created change request",
  "change-request.updated": "Updated change request",
  "change-request.archived": "Archived change request",
  "change-request.merged": "Merged change request",
  "change-request.updated-from-main": "Updated change request from main",
  "change-request.reviewers-requested": "Requested change request reviewers",
  "change-request.reviewer-removed": "Removed change request reviewer",
  "change-request.review-submitted": "Submitted change request review",
  "openapi-spec.created": "Created OpenAPI specification",
  "openapi-spec.updated": "Updated OpenAPI specification",
  "openapi-spec.deleted": "Deleted OpenAPI specification",
  "translation.created": "Created translation",
  "translation.updated": "Updated translation",
  "translation.deleted": "Deleted translation",
  "site.created": "Created site",
  "site.updated": "Updated site",
  "site.deleted": "Deleted site",
  "site.published": "Published site",
  "site.unpublished": "Unpublished site",
  "site.publishing-auth.regenerated": "Regenerated site visitor authentication keys",
  "site.space.created": "Added space to site",
  "site.space.updated": "Updated site space",
  "site.space.moved": "Moved site space",
  "site.space.deleted": "Removed space from site",
  "site.section.created": "Created site section",
  "site.section.updated": "Updated site section",
  "site.section.moved": "Moved site section",
  "site.section.deleted": "Deleted site section",
  "site.section-group.created": "Created site section group",
  "site.section-group.updated": "Updated site section group",
  "site.section-group.moved": "Moved site section group",
  "site.section-group.deleted": "Deleted site section group",
  "site.share-link.created": "Created site share link",
  "site.share-link.updated": "Updated site share link",
  "site.share-link.deleted": "Deleted site share link",
  "site.external-link.created": "Created site external link",
  "site.external-link.updated": "Updated site external link",
  "site.external-link.moved": "Moved site external link",
  "site.external-link.deleted": "Deleted site external link",
  "site.redirect.created": "Created site redirect",
  "site.redirect.updated": "Updated site redirect",
  "site.redirect.deleted": "Deleted site redirect",
  "site.permission.updated": "Updated site permission",
  "site.permission.removed": "Removed site permission",
  "integration.published": "Published integration",
  "integration.unpublished": "Unpublished integration",
  "integration.installation.created": "Installed integration",
  "integration.installation.updated": "Updated integration installation",
  "integration.installation.deleted": "Uninstalled integration",
  "integration.installation.target-added": "Installed integration on a space or site",
  "integration.installation.target-updated": "Updated integration installation on a space or site",
  "integration.installation.target-removed": "Uninstalled integration from a space or site",
} as const;

export type AuditAction = keyof typeof AUDIT_ACTIONS;

export function isAuditAction(value: string): value is AuditAction {
  return Object.hasOwn(AUDIT_ACTIONS, value);
}

/** GitBook's kinds of actor: who made a change. */
export type AuditActorType = "user" | "installation" | "system";
/** GitBook's entry points: a user's API call, an installation's, or nobody's (a job, a consequence). */
export type AuditSource = "api" | "integration" | "workflow";

/** The id and label of the system actor, for changes nobody made directly (a job, a consequence). */
export const SYSTEM_ACTOR = { type: "system", id: "imprint", label: "Imprint" } as const;

/** How many days an entry is kept by default (AUDIT_RETENTION_DAYS). */
export const DEFAULT_AUDIT_RETENTION_DAYS = 365;

/**
 * One change recorded in an organization's audit log (GitBook's AuditEvent). Kept only by the
 * consumers of the domain events, never written by a use case of its own: its id is the domain
 * event's (or derived from it for a second organization, see `auditEventId`), so a replayed or
 * duplicated event finds its row and adds nothing.
 */
export const AuditEventSchema = defineEntity({
  name: "AuditEvent",
  tableName: "audit_events",
  properties: {
    id: p.uuid().primary(),
    // No foreign key: entries outlive nothing they name, and arrive in any order.
    organizationId: p.uuid(),
    occurredAt: p.datetime(),
    action: p.string().length(64),
    actorType: p.string().length(16),
    actorId: p.string().length(128),
    actorLabel: p.string().length(255).nullable(),
    source: p.string().length(16),
    targetType: p.string().length(64),
    targetId: p.string().length(128),
    targetLabel: p.string().length(255).nullable(),
    eventType: p.string().length(64),
    payload: p.json<Record<string, unknown>>(),
    recordedAt: p.datetime(),
  },
  indexes: [
    { properties: ["organizationId", "occurredAt", "id"], name: "audit_events_organization_occurred_at_index" },
    { properties: ["organizationId", "action", "occurredAt"], name: "audit_events_organization_action_index" },
    { properties: ["organizationId", "actorId", "occurredAt"], name: "audit_events_organization_actor_index" },
    { properties: ["organizationId", "targetId", "occurredAt"], name: "audit_events_organization_target_index" },
    { properties: ["occurredAt"], name: "audit_events_occurred_at_index" },
  ],
});
export class AuditEvent extends AuditEventSchema.class {}
AuditEventSchema.setClass(AuditEvent);

/**
 * The id of a domain event's entry in one organization's log: the event's own id in the
 * organization it names, a stable uuid derived from both in another one (a transfer is recorded
 * in the organization it left too), so a replay finds the same ids.
 */
export function auditEventId(eventId: string, organizationId: string, eventOrganizationId: string | null): string {
  if (organizationId === eventOrganizationId) return eventId;
  const hex = createHash("sha1").update(`${eventId}/${organizationId}`).digest("hex");
  // Shaped as a version-5 uuid (name-based, SHA-1), RFC 4122 variant.
  const variant = ((Number.parseInt(hex[16]!, 16) & 0x3) | 0x8).toString(16);
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-5${hex.slice(13, 16)}-${variant}${hex.slice(17, 20)}-${hex.slice(20, 32)}`;
}

/** The moment before which entries are deleted, for a retention in days. */
export function auditRetentionCutoff(now: Date, retentionDays: number): Date {
  return new Date(now.getTime() - retentionDays * 24 * 60 * 60 * 1000);
}
