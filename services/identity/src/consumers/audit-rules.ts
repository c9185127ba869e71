import type { EventDefinition } from "@imprint/runtime";
import * as collaboration from "@imprint/proto/collaboration/v1/event-contracts";
import * as content from "@imprint/proto/content/v1/event-contracts";
import * as identity from "@imprint/proto/identity/v1/event-contracts";
import * as integration from "@imprint/proto/integration/v1/event-contracts";
import * as publishing from "@imprint/proto/publishing/v1/event-contracts";
import type { AuditAction } from "../domain/audit-event.js";

/** One entry an event makes: its action and target, in the envelope's organization unless it names another. */
export interface AuditRuleChange {
  action: AuditAction;
  target: { type: string; id: string; label?: string | null };
  organizationId?: string;
}

/** How one event type is audited: the entries an event of it makes (none when this one changed nothing worth recording). */
export interface AuditRule {
  contract: EventDefinition<unknown>;
  changes(payload: unknown, organizationId: string | null): AuditRuleChange[];
}

function rule<T>(contract: EventDefinition<T>, changes: (payload: T, organizationId: string | null) => AuditRuleChange | AuditRuleChange[] | null): AuditRule {
  return {
    contract,
    changes: (payload, organizationId) => {
      const result = changes(payload as T, organizationId);
      return result === null ? [] : Array.isArray(result) ? result : [result];
    },
  };
}

/** A field's new value from an `*.updated` event's changes, when it is text (a rename's new title). */
function changedText(changes: Record<string, { to?: unknown } | undefined> | undefined, field: string): string | null {
  const to = changes?.[field]?.to;
  return typeof to === "string" ? to : null;
}

const target = (type: string, id: string, label?: string | null) => ({ type, id, label: label ?? null });
const space = (id: string, label?: string | null) => target("space", id, label);
const collection = (id: string, label?: string | null) => target("collection", id, label);
const site = (id: string) => target("site", id);
const user = (id: string) => target("user", id);
const changeRequest = (id: string, label?: string | null) => target("change-request", id, label);
const installation = (id: string, label: string) => target("integration-installation", id, label);

/**
 * Every audited event type: what it records (docs/audit.md is the same table in prose). The target
 * types are GitBook's object names. A transfer is recorded in both organizations.
 */
export const AUDIT_RULES: readonly AuditRule[] = [
  // identity
  rule(identity.organizationCreated, (p) => ({ action: "organization.created", target: target("organization", p.organizationId, p.title) })),
  rule(identity.organizationUpdated, (p, org) =>
    org ? { action: "organization.settings.updated", target: target("organization", org, changedText(p.changes, "title")) } : null,
  ),
  rule(identity.memberAdded, (p) => ({ action: "organization.member.added", target: user(p.userId) })),
  rule(identity.memberRoleChanged, (p) => ({ action: "organization.member.role-updated", target: user(p.userId) })),
  rule(identity.memberRemoved, (p) => ({ action: "organization.member.removed", target: user(p.userId) })),
  rule(identity.memberSsoEnabled, (p) => ({ action: "organization.member.sso-enabled", target: user(p.userId) })),
  rule(identity.inviteCreated, (p) => ({ action: "organization.link-invite.created", target: target("invite", p.inviteId) })),
  rule(identity.inviteUpdated, (p) => ({ action: "organization.link-invite.updated", target: target("invite", p.inviteId) })),
  rule(identity.inviteDeleted, (p) => ({ action: "organization.link-invite.deleted", target: target("invite", p.inviteId) })),
  rule(identity.teamCreated, (p) => ({ action: "organization.team.created", target: target("team", p.teamId, p.title) })),
  rule(identity.teamUpdated, (p) => ({ action: "organization.team.updated", target: target("team", p.teamId, p.to) })),
  rule(identity.teamDeleted, (p) => ({ action: "organization.team.deleted", target: target("team", p.teamId, p.title) })),
  rule(identity.teamMemberAdded, (p) => ({ action: "organization.team.member-added", target: user(p.userId) })),
  rule(identity.teamMemberRoleChanged, (p) => ({ action: "organization.team.member-updated", target: user(p.userId) })),
  rule(identity.teamMemberRemoved, (p) => ({ action: "organization.team.member-removed", target: user(p.userId) })),
  rule(identity.samlProviderCreated, (p) => ({ action: "organization.saml-provider.created", target: target("saml-provider", p.providerId, p.label) })),
  rule(identity.samlProviderUpdated, (p) => ({ action: "organization.saml-provider.updated", target: target("saml-provider", p.providerId) })),
  rule(identity.samlProviderDeleted, (p) => ({ action: "organization.saml-provider.deleted", target: target("saml-provider", p.providerId) })),
  rule(identity.samlProviderActivated, (p) => ({ action: "organization.saml-provider.activated", target: target("saml-provider", p.providerId) })),
  rule(identity.oidcProviderCreated, (p) => ({ action: "organization.oidc-provider.created", target: target("oidc-provider", p.providerId, p.label) })),
  rule(identity.oidcProviderUpdated, (p) => ({ action: "organization.oidc-provider.updated", target: target("oidc-provider", p.providerId) })),
  rule(identity.oidcProviderDeleted, (p) => ({ action: "organization.oidc-provider.deleted", target: target("oidc-provider", p.providerId) })),

  // content
  rule(content.spaceCreated, (p) => ({ action: "space.created", target: space(p.spaceId, p.title) })),
  rule(content.spaceUpdated, (p) => ({ action: "space.updated", target: space(p.spaceId, changedText(p.changes, "title")) })),
  rule(content.spaceDeleted, (p) => ({ action: "space.deleted", target: space(p.spaceId) })),
  rule(content.spaceRestored, (p) => ({ action: "space.restored", target: space(p.spaceId) })),
  rule(content.spacePurged, (p) => ({ action: "space.purged", target: space(p.spaceId) })),
  rule(content.spaceMoved, (p) => ({ action: "space.moved", target: space(p.spaceId) })),
  rule(content.spaceTransferred, (p) => [
    { action: "space.transferred", target: space(p.spaceId), organizationId: p.toOrganizationId },
    { action: "space.transferred", target: space(p.spaceId), organizationId: p.fromOrganizationId },
  ]),
  rule(content.spaceDuplicated, (p) => ({ action: "space.duplicated", target: space(p.spaceId, p.title) })),
  rule(content.collectionCreated, (p) => ({ action: "collection.created", target: collection(p.collectionId, p.title) })),
  rule(content.collectionUpdated, (p) => ({ action: "collection.updated", target: collection(p.collectionId, changedText(p.changes, "title")) })),
  rule(content.collectionMoved, (p) => ({ action: "collection.moved", target: collection(p.collectionId) })),
  rule(content.collectionDeleted, (p) => ({ action: "collection.deleted", target: collection(p.collectionId) })),
  rule(content.collectionTransferred, (p) => [
    { action: "collection.transferred", target: collection(p.collectionId), organizationId: p.toOrganizationId },
    { action: "collection.transferred", target: collection(p.collectionId), organizationId: p.fromOrganizationId },
  ]),
  // The space's own content changed (an edit, an import, a Git sync): not a change request's draft
  // (its merge is change-request.merged), not a merge (two parents), not a space's first revision (space.created).
  rule(content.spacePermissionChanged, (p) => ({ action: "space.permission.updated", target: space(p.spaceId) })),
  rule(content.collectionPermissionChanged, (p) => ({ action: "collection.permission.updated", target: collection(p.collectionId) })),
  rule(content.revisionCreated, (p) =>
    !p.changeRequestId && p.movedHead && p.parents.length === 1 ? { action: "space.content.updated", target: space(p.spaceId) } : null,
  ),
  rule(content.openApiSpecCreated, (p) => ({ action: "openapi-spec.created", target: target("openapi-spec", p.specId, p.slug) })),
  rule(content.openApiSpecUpdated, (p) => ({ action: "openapi-spec.updated", target: target("openapi-spec", p.specId, p.slug) })),
  rule(content.openApiSpecDeleted, (p) => ({ action: "openapi-spec.deleted", target: target("openapi-spec", p.specId, p.slug) })),
  rule(content.translationSettingsCreated, (p) => ({ action: "translation.created", target: target("translation", p.translationSettingsId, p.title) })),
  rule(content.translationSettingsUpdated, (p) => ({
    action: "translation.updated",
    target: target("translation", p.translationSettingsId, changedText(p.changes, "title")),
  })),
  rule(content.translationSettingsDeleted, (p) => ({ action: "translation.deleted", target: target("translation", p.translationSettingsId) })),

  // collaboration
  rule(collaboration.changeRequestCreated, (p) => ({ action: "change-request.created", target: changeRequest(p.changeRequestId, p.subject) })),
  rule(collaboration.changeRequestUpdated, (p) => ({
    action: "change-request.updated",
    target: changeRequest(p.changeRequestId, changedText(p.changes, "subject")),
  })),
  rule(collaboration.changeRequestArchived, (p) => ({ action: "change-request.archived", target: changeRequest(p.changeRequestId) })),
  rule(collaboration.changeRequestMerged, (p) => ({ action: "change-request.merged", target: changeRequest(p.changeRequestId) })),
  rule(collaboration.changeRequestUpdatedFromMain, (p) => ({ action: "change-request.updated-from-main", target: changeRequest(p.changeRequestId) })),
  // Reviews decide whether a change request may be merged (merge rules).
  rule(collaboration.changeRequestReviewersRequested, (p) => ({ action: "change-request.reviewers-requested", target: changeRequest(p.changeRequestId) })),
  rule(collaboration.changeRequestReviewerRemoved, (p) => ({ action: "change-request.reviewer-removed", target: changeRequest(p.changeRequestId) })),
  rule(collaboration.changeRequestReviewSubmitted, (p) => ({ action: "change-request.review-submitted", target: changeRequest(p.changeRequestId) })),

  // publishing
  rule(publishing.siteCreated, (p) => ({ action: "site.created", target: target("site", p.siteId, p.title) })),
  rule(publishing.siteUpdated, (p) => ({ action: "site.updated", target: target("site", p.siteId, changedText(p.changes, "title")) })),
  rule(publishing.siteDeleted, (p) => ({ action: "site.deleted", target: site(p.siteId) })),
  rule(publishing.sitePublished, (p) => ({ action: "site.published", target: site(p.siteId) })),
  rule(publishing.siteUnpublished, (p) => ({ action: "site.unpublished", target: site(p.siteId) })),
  rule(publishing.sitePublishingAuthRegenerated, (p) => ({ action: "site.publishing-auth.regenerated", target: site(p.siteId) })),
  rule(publishing.siteSpaceCreated, (p) => ({ action: "site.space.created", target: target("site-space", p.siteSpaceId) })),
  rule(publishing.siteSpaceUpdated, (p) => ({ action: "site.space.updated", target: target("site-space", p.siteSpaceId) })),
  rule(publishing.siteSpaceMoved, (p) => ({ action: "site.space.moved", target: target("site-space", p.siteSpaceId) })),
  rule(publishing.siteSpaceDeleted, (p) => ({ action: "site.space.deleted", target: target("site-space", p.siteSpaceId) })),
  rule(publishing.siteSectionCreated, (p) => ({ action: "site.section.created", target: target("site-section", p.sectionId, p.title) })),
  rule(publishing.siteSectionUpdated, (p) => ({
    action: "site.section.updated",
    target: target("site-section", p.sectionId, changedText(p.changes, "title")),
  })),
  rule(publishing.siteSectionMoved, (p) => ({ action: "site.section.moved", target: target("site-section", p.sectionId) })),
  rule(publishing.siteSectionDeleted, (p) => ({ action: "site.section.deleted", target: target("site-section", p.sectionId) })),
  rule(publishing.siteSectionGroupCreated, (p) => ({
    action: "site.section-group.created",
    target: target("site-section-group", p.sectionGroupId, p.title),
  })),
  rule(publishing.siteSectionGroupUpdated, (p) => ({
    action: "site.section-group.updated",
    target: target("site-section-group", p.sectionGroupId, changedText(p.changes, "title")),
  })),
  rule(publishing.siteSectionGroupMoved, (p) => ({ action: "site.section-group.moved", target: target("site-section-group", p.sectionGroupId) })),
  rule(publishing.siteSectionGroupDeleted, (p) => ({ action: "site.section-group.deleted", target: target("site-section-group", p.sectionGroupId) })),
  rule(publishing.shareLinkCreated, (p) => ({ action: "site.share-link.created", target: target("share-link", p.shareLinkId, p.name) })),
  rule(publishing.shareLinkUpdated, (p) => ({
    action: "site.share-link.updated",
    target: target("share-link", p.shareLinkId, changedText(p.changes, "name")),
  })),
  rule(publishing.shareLinkDeleted, (p) => ({ action: "site.share-link.deleted", target: target("share-link", p.shareLinkId) })),
  rule(publishing.siteExternalLinkCreated, (p) => ({ action: "site.external-link.created", target: target("site-external-link", p.linkId, p.title) })),
  rule(publishing.siteExternalLinkUpdated, (p) => ({
    action: "site.external-link.updated",
    target: target("site-external-link", p.linkId, changedText(p.changes, "title")),
  })),
  rule(publishing.siteExternalLinkMoved, (p) => ({ action: "site.external-link.moved", target: target("site-external-link", p.linkId) })),
  rule(publishing.siteExternalLinkDeleted, (p) => ({ action: "site.external-link.deleted", target: target("site-external-link", p.linkId) })),
  rule(publishing.siteRedirectCreated, (p) => ({ action: "site.redirect.created", target: target("site-redirect", p.siteRedirectId, p.source) })),
  rule(publishing.siteRedirectUpdated, (p) => ({ action: "site.redirect.updated", target: target("site-redirect", p.siteRedirectId) })),
  rule(publishing.siteRedirectDeleted, (p) => ({ action: "site.redirect.deleted", target: target("site-redirect", p.siteRedirectId, p.source) })),
  // Who may do what on a site: the grantee (a user, or a team) is the target.
  rule(publishing.sitePermissionUpdated, (p) => ({ action: "site.permission.updated", target: p.userId ? user(p.userId) : target("team", p.teamId) })),
  rule(publishing.sitePermissionRemoved, (p) => ({ action: "site.permission.removed", target: p.userId ? user(p.userId) : target("team", p.teamId) })),

  // integration
  rule(integration.integrationPublished, (p) => ({ action: "integration.published", target: target("integration", p.integrationId, p.name) })),
  rule(integration.integrationUnpublished, (p) => ({ action: "integration.unpublished", target: target("integration", p.integrationId, p.name) })),
  rule(integration.installationCreated, (p) => ({ action: "integration.installation.created", target: installation(p.installationId, p.integrationName) })),
  rule(integration.installationUpdated, (p) => ({ action: "integration.installation.updated", target: installation(p.installationId, p.integrationName) })),
  rule(integration.installationDeleted, (p) => ({ action: "integration.installation.deleted", target: installation(p.installationId, p.integrationName) })),
  rule(integration.targetInstallationCreated, (p) => ({
    action: "integration.installation.target-added",
    target: installation(p.installationId, p.integrationName),
  })),
  rule(integration.targetInstallationUpdated, (p) => ({
    action: "integration.installation.target-updated",
    target: installation(p.installationId, p.integrationName),
  })),
  rule(integration.targetInstallationDeleted, (p) => ({
    action: "integration.installation.target-removed",
    target: installation(p.installationId, p.integrationName),
  })),
];

/** The event types deliberately left out of the audit log, each with why (docs/audit.md lists them too). */
export const NOT_AUDITED: Readonly<Record<string, string>> = {
  "user.created": "a user became known to Imprint, in no organization (its joining one is member.added)",
  "user.updated": "a user's own profile (name, photo), in no organization",
  "token.issued": "a user's own credential, in no organization (the envelope's is null); an installation's token also changes nothing it may do",
  "token.revoked": "a user's own credential, in no organization (the envelope's is null)",
  "user.signed_in_with_sso": "a sign-in changes nothing by itself; the teams it joins are team_member.added, an SSO member's first sign-in member.sso_enabled",
  "branch.created": "content's side of change_request.created, which is audited",
  "branch.merged": "content's side of change_request.merged, which is audited",
  "git_sync.conflict_kept":
    "the import that found the conflict is revision.created (audited), and the change request keeping the other side is change_request.created (audited)",
  "branch.updated": "content's side of change_request.updated_from_main, which is audited",
  "openapi_spec.processed": "the outcome of processing a source that openapi_spec.created or .updated recorded; nobody acted",
  "comment.created": "discussion, not the documentation's content, access, publication or settings",
  "comment.updated": "discussion, not the documentation's content, access, publication or settings",
  "comment.resolved": "discussion, not the documentation's content, access, publication or settings",
  "comment.reopened": "discussion, not the documentation's content, access, publication or settings",
  "comment.deleted": "discussion, not the documentation's content, access, publication or settings",
  "comment_reply.created": "discussion, not the documentation's content, access, publication or settings",
  "comment_reply.updated": "discussion, not the documentation's content, access, publication or settings",
  "comment_reply.deleted": "discussion, not the documentation's content, access, publication or settings",
  "space_counters.announced": "derived counters collaboration announces; nothing changed",
  "space_publication.updated": "publishing's derived record of whether a space is published, following site and site-space events that are audited",
  "integration.development_mode_changed":
    "where an integration's own calls go while its developer works on it (GitBook's 'gitbook dev'); its installations and what anyone may do are unchanged",
};

/** Every event contract of every context, by context: what the audit consumers read (and the completeness test checks). */
export const CONTEXT_EVENTS = {
  identity: identity.identityEvents,
  content: content.contentEvents,
  collaboration: collaboration.collaborationEvents,
  publishing: publishing.publishingEvents,
  integration: integration.integrationEvents,
} as const satisfies Record<string, readonly EventDefinition<unknown>[]>;
