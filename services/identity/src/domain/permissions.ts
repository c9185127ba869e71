import type { MemberRoleValue, Role } from "./roles.js";

/** What a member may do on their organization (the `permissions` object of the REST organization). */
export interface OrganizationPermissions {
  view: boolean;
  admin: boolean;
  ownTeam: boolean;
  createContent: boolean;
  createOpenapiSpec: boolean;
  ingestConversations: boolean;
  viewBilling: boolean;
  listMembers: boolean;
  listTeams: boolean;
  listIntegrations: boolean;
  listInstallations: boolean;
  installIntegration: boolean;
}

/** Permissions of someone who is not a member: none. */
export const NO_PERMISSIONS: OrganizationPermissions = {
  view: false,
  admin: false,
  ownTeam: false,
  createContent: false,
  createOpenapiSpec: false,
  ingestConversations: false,
  viewBilling: false,
  listMembers: false,
  listTeams: false,
  listIntegrations: false,
  listInstallations: false,
  installIntegration: false,
};

const READER: OrganizationPermissions = { ...NO_PERMISSIONS, view: true, listMembers: true, listTeams: true };
const CONTRIBUTOR: OrganizationPermissions = { ...READER, listIntegrations: true, listInstallations: true };

/**
 * The organization permission table, documented in docs/permissions.md ("Organization").
 * Each role has at least the permissions of the roles below it. Admins manage every team, so
 * they count as owning one.
 */
export const ORGANIZATION_PERMISSIONS: Readonly<Record<Role | "guest", OrganizationPermissions>> = {
  admin: {
    view: true,
    admin: true,
    ownTeam: true,
    createContent: true,
    createOpenapiSpec: true,
    ingestConversations: true,
    viewBilling: true,
    listMembers: true,
    listTeams: true,
    listIntegrations: true,
    listInstallations: true,
    installIntegration: true,
  },
  create: { ...CONTRIBUTOR, createContent: true, createOpenapiSpec: true, ingestConversations: true },
  review: CONTRIBUTOR,
  edit: CONTRIBUTOR,
  comment: READER,
  read: READER,
  guest: { ...NO_PERMISSIONS, view: true },
};

export function organizationPermissionsFor(role: MemberRoleValue | undefined): OrganizationPermissions {
  return ORGANIZATION_PERMISSIONS[role ?? "guest"];
}
