import type { Member, Organization, OrganizationPermissions, User } from "@imprint/identity";

/**
 * Entity → REST JSON, written directly against the database rows as a single-process service
 * would. The bodies must equal the gateway's, field for field: the benchmark checks that before
 * measuring (see assertSameAnswers in ../run.ts).
 */
export interface BaseUrls {
  api: string;
  app: string;
}

function userJson(user: User, urls: BaseUrls) {
  return {
    object: "user",
    id: user.id,
    displayName: user.displayName,
    email: user.email,
    ...(user.photoUrl ? { photoURL: user.photoUrl } : {}),
    urls: { location: `${urls.api}/v1/users/${encodeURIComponent(user.id)}` },
  };
}

/** `member.user` must be loaded. */
export function memberJson(member: Member, urls: BaseUrls) {
  return {
    object: "member",
    id: member.user.id,
    role: member.role ?? null,
    user: userJson(member.user, urls),
    disabled: member.disabled,
    joinedAt: member.joinedAt.toISOString(),
    ...(member.lastSeenAt ? { lastSeenAt: member.lastSeenAt.toISOString() } : {}),
    sso: member.sso,
    // Nothing is shared with members individually until content contexts exist.
    spaces: 0,
    teams: 0,
    sites: 0,
  };
}

export function organizationJson(organization: Organization, permissions: OrganizationPermissions, urls: BaseUrls) {
  const id = encodeURIComponent(organization.id);
  return {
    object: "organization",
    id: organization.id,
    title: organization.title,
    createdAt: organization.createdAt.toISOString(),
    emailDomains: organization.emailDomains,
    ...(organization.hostname ? { hostname: organization.hostname } : {}),
    type: organization.type || "business",
    ...(organization.useCase ? { useCase: organization.useCase } : {}),
    ...(organization.communityType ? { communityType: organization.communityType } : {}),
    defaultRole: organization.defaultRole ?? null,
    ...(organization.defaultContentSiteId ? { defaultContent: { type: "site", site: organization.defaultContentSiteId } } : {}),
    sso: organization.sso,
    ai: organization.ai,
    inviteLinks: organization.inviteLinks,
    plan: organization.plan || "free",
    mergeRules: { type: organization.mergeRulesType || "none" },
    urls: {
      location: `${urls.api}/v1/orgs/${id}`,
      app: `${urls.app}/o/${id}/`,
      ...(organization.logoUrl ? { logo: organization.logoUrl } : {}),
    },
    trial: { status: organization.trialStatus || "notapplicable", count: 0 },
    ...(organization.customHostname ? { customHostname: organization.customHostname } : {}),
    ...(organization.signInMethods.length > 0 ? { signInMethods: organization.signInMethods } : {}),
    permissions: {
      view: permissions.view,
      access: permissions.view,
      admin: permissions.admin,
      ownTeam: permissions.ownTeam,
      createContent: permissions.createContent,
      createOpenAPISpec: permissions.createOpenapiSpec,
      ingestConversations: permissions.ingestConversations,
      viewBilling: permissions.viewBilling,
      listMembers: permissions.listMembers,
      listTeams: permissions.listTeams,
      listIntegrations: permissions.listIntegrations,
      listInstallations: permissions.listInstallations,
      installIntegration: permissions.installIntegration,
    },
  };
}
