import type { MergeRules, Organization, OrganizationPermissions } from "@imprint/proto/identity/v1/organizations";
import { AppError } from "@imprint/runtime/core";
import { toRestRole, type RoleName } from "./role.js";
import type { PublicUrls } from "./urls.js";

export interface RestOrganizationPermissions {
  view: boolean;
  access: boolean;
  admin: boolean;
  ownTeam: boolean;
  createContent: boolean;
  createOpenAPISpec: boolean;
  ingestConversations: boolean;
  viewBilling: boolean;
  listMembers: boolean;
  listTeams: boolean;
  listIntegrations: boolean;
  listInstallations: boolean;
  installIntegration: boolean;
}

export interface RestOrganization {
  object: "organization";
  id: string;
  title: string;
  createdAt: string;
  emailDomains: string[];
  hostname?: string;
  type: string;
  useCase?: string;
  communityType?: string;
  defaultRole: RoleName | null;
  defaultContent?: { type: "site"; site: string };
  sso: boolean;
  ai: boolean;
  inviteLinks: boolean;
  /** Imprint's: how members may sign in to act in it; absent in public views. */
  signInMethods?: string[];
  plan: string;
  mergeRules: RestMergeRules;
  urls: { location: string; app: string; logo?: string };
  trial: { status: string; count: number };
  customHostname?: string;
  permissions: RestOrganizationPermissions;
}

/** GitBook's MergeRulesStandaloneConfiguration: `none`, or `rules` each with its users where it names some. */
export type RestMergeRules = { type: "none" } | { type: "rules"; rules: { rule: string; users?: string[] }[] };

function toRestMergeRules(mergeRules: MergeRules | undefined): RestMergeRules {
  // Public views (BatchGetOrganizations) carry no rules: they read as none.
  if (mergeRules?.type !== "rules") return { type: "none" };
  return { type: "rules", rules: mergeRules.rules.map(({ rule, userIds }) => (userIds.length > 0 ? { rule, users: userIds } : { rule })) };
}

function toRestPermissions(permissions: OrganizationPermissions | undefined): RestOrganizationPermissions {
  const p = permissions;
  return {
    view: p?.view ?? false,
    // "Can view the organization in the application": the app shows whatever the API lets one view.
    access: p?.view ?? false,
    admin: p?.admin ?? false,
    ownTeam: p?.ownTeam ?? false,
    createContent: p?.createContent ?? false,
    createOpenAPISpec: p?.createOpenapiSpec ?? false,
    ingestConversations: p?.ingestConversations ?? false,
    viewBilling: p?.viewBilling ?? false,
    listMembers: p?.listMembers ?? false,
    listTeams: p?.listTeams ?? false,
    listIntegrations: p?.listIntegrations ?? false,
    listInstallations: p?.listInstallations ?? false,
    installIntegration: p?.installIntegration ?? false,
  };
}

/** Empty strings from proto3 mean "not set": such optional fields are left out, not sent as "". */
export function toRestOrganization(organization: Organization | undefined, urls: PublicUrls): RestOrganization {
  if (!organization) throw new AppError("internal", "upstream answered without an organization");
  const o = organization;
  const id = encodeURIComponent(o.id);
  const rest: RestOrganization = {
    object: "organization",
    id: o.id,
    title: o.title,
    createdAt: (o.createdAt ?? new Date(0)).toISOString(),
    emailDomains: o.emailDomains,
    // type, plan and trial.status are required on the wire; identity always sets them, and these
    // fallbacks (its own defaults) only keep the response valid should one ever arrive empty.
    type: o.type || "business",
    defaultRole: toRestRole(o.defaultRole),
    sso: o.sso,
    ai: o.ai,
    inviteLinks: o.inviteLinks,
    plan: o.plan || "free",
    mergeRules: toRestMergeRules(o.mergeRules),
    urls: { location: `${urls.api}/v1/orgs/${id}`, app: `${urls.app}/o/${id}/` },
    // The trial counter is not tracked by Imprint: no trial has ever been consumed.
    trial: { status: o.trialStatus || "notapplicable", count: 0 },
    permissions: toRestPermissions(o.permissions),
  };
  if (o.hostname) rest.hostname = o.hostname;
  if (o.useCase) rest.useCase = o.useCase;
  if (o.communityType) rest.communityType = o.communityType;
  if (o.defaultContentSiteId) rest.defaultContent = { type: "site", site: o.defaultContentSiteId };
  if (o.logoUrl) rest.urls.logo = o.logoUrl;
  if (o.customHostname) rest.customHostname = o.customHostname;
  if (o.signInMethods.length > 0) rest.signInMethods = o.signInMethods;
  return rest;
}
