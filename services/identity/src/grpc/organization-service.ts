import type { EntityManager } from "@mikro-orm/postgresql";
import { AppError, pageRequest, sortDirectionFromProto, type AsyncImplementation } from "@imprint/runtime";
import { IdentityServiceService, MemberRole, type CreateSamlProviderRequest } from "@imprint/proto/identity/v1";
import { addMember } from "../use-cases/members/add-member.js";
import { authenticateToken } from "../use-cases/tokens/authenticate-token.js";
import { batchGetMembers } from "../use-cases/members/batch-get-members.js";
import { batchGetOrganizations } from "../use-cases/organizations/batch-get-organizations.js";
import { batchGetUsers } from "../use-cases/users/batch-get-users.js";
import { createLinkInvite } from "../use-cases/organizations/create-link-invite.js";
import { createOrganization } from "../use-cases/organizations/create-organization.js";
import { createUser } from "../use-cases/users/create-user.js";
import { deleteLinkInvite } from "../use-cases/organizations/delete-link-invite.js";
import { getMember } from "../use-cases/members/get-member.js";
import { getUser } from "../use-cases/users/get-user.js";
import { getMembership } from "../use-cases/members/get-membership.js";
import { getOrganization } from "../use-cases/organizations/get-organization.js";
import { issueInstallationToken } from "../use-cases/tokens/issue-installation-token.js";
import { issueToken } from "../use-cases/tokens/issue-token.js";
import { listMembers } from "../use-cases/members/list-members.js";
import { listOrganizations } from "../use-cases/organizations/list-organizations.js";
import { listOrganizationsForEmailDomain } from "../use-cases/organizations/list-organizations-for-email-domain.js";
import { pingMember } from "../use-cases/members/ping-member.js";
import { removeMember } from "../use-cases/members/remove-member.js";
import { revokeInstallationTokens } from "../use-cases/tokens/revoke-installation-tokens.js";
import { revokeToken } from "../use-cases/tokens/revoke-token.js";
import { setMemberSso } from "../use-cases/members/set-member-sso.js";
import { updateMember } from "../use-cases/members/update-member.js";
import { updateOrganization } from "../use-cases/organizations/update-organization.js";
import { updateUser } from "../use-cases/users/update-user.js";
import { createTeam, deleteTeam, getTeam, listTeams, updateTeam } from "../use-cases/teams/manage-teams.js";
import { batchGetTeams, getUserTeams, listMemberTeams, listTeamMembers, listTeamMemberships, putTeamMember, removeTeamMember, updateTeamMembers } from "../use-cases/teams/team-members.js";
import { createSamlProvider, deleteSamlProvider, getSamlProvider, listSamlProviders, listSsoProviders, updateSamlProvider, type SamlProviderValues } from "../use-cases/saml/manage-providers.js";
import { completeSamlSignIn, startSamlSignIn } from "../use-cases/saml/sign-in.js";
import type { UseCaseDeps } from "../deps.js";
import {
  memberSortFromProto,
  memberToProto,
  organizationToProto,
  roleFromProto,
  roleToProto,
  samlProviderToProto,
  teamRoleFromProto,
  teamRoleToProto,
  teamToProto,
  userToProto,
} from "./mappers.js";

export const IDENTITY_SERVICE_NAME = "imprint.identity.v1.IdentityService";

/**
 * Thin transport: each handler checks the request's shape (enums), runs one use case on a fresh
 * EntityManager (`em()`) with the deps service.ts built, and maps the result to proto messages.
 * Rules live in the use cases and the domain.
 */
export function identityServiceImplementation(em: () => EntityManager, useCaseDeps: UseCaseDeps): AsyncImplementation<typeof IdentityServiceService> {
  return {
    authenticateToken: async (request) => {
      const principal = await authenticateToken(em(), { token: request.token }, useCaseDeps);
      return {
        caller: { userId: principal.user.id, tokenId: principal.tokenId },
        user: userToProto(principal.user),
        expiresAt: principal.expiresAt ?? undefined,
      };
    },

    getUser: async (request) => {
      const user = await getUser(em(), { caller: request.caller, userId: request.userId }, useCaseDeps);
      return { user: userToProto(user) };
    },

    updateUser: async (request) => {
      const user = await updateUser(
        em(),
        {
          caller: request.caller,
          userId: request.userId,
          updateMask: request.updateMask ?? [],
          displayName: request.displayName,
          photoUrl: request.photoUrl,
        },
        useCaseDeps,
      );
      return { user: userToProto(user) };
    },

    listOrganizations: async (request) => {
      const page = await listOrganizations(em(), { caller: request.caller, page: pageRequest(request.page) }, useCaseDeps);
      return {
        organizations: page.items.map(organizationToProto),
        page: { nextPageToken: page.nextPageToken, totalCount: page.totalCount },
      };
    },

    getOrganization: async (request) => {
      const view = await getOrganization(em(), { caller: request.caller, organizationId: request.organizationId }, useCaseDeps);
      return { organization: organizationToProto(view) };
    },

    updateOrganization: async (request) => {
      const view = await updateOrganization(
        em(),
        {
          caller: request.caller,
          organizationId: request.organizationId,
          updateMask: request.updateMask ?? [],
          title: request.title,
          emailDomains: request.emailDomains,
          hostname: request.hostname,
          defaultRole: roleFromProto(request.defaultRole),
          defaultContentSiteId: request.defaultContentSiteId,
          logoUrl: request.logoUrl,
          sso: request.sso,
          ai: request.ai,
          inviteLinks: request.inviteLinks,
        },
        useCaseDeps,
      );
      return { organization: organizationToProto(view) };
    },

    listOrganizationsForEmailDomain: async (request) => {
      const views = await listOrganizationsForEmailDomain(em(), { caller: request.caller, emailDomain: request.emailDomain }, useCaseDeps);
      return { organizations: views.map(organizationToProto) };
    },

    deleteLinkInvite: async (request) =>
      deleteLinkInvite(em(), { caller: request.caller, organizationId: request.organizationId, inviteId: request.inviteId }, useCaseDeps),

    listMembers: async (request) => {
      const order = sortDirectionFromProto(request.order);
      const sort = memberSortFromProto(request.sort);
      if (sort === "invalid") throw AppError.invalidArgument("sort: must be joinedAt, lastSeenAt or name");
      const anyRole = request.role === MemberRole.MEMBER_ROLE_UNSPECIFIED;
      const role = anyRole ? undefined : roleFromProto(request.role);
      if (!anyRole && role === undefined) throw AppError.invalidArgument("role: must be a role (admin, create, review, edit, comment, read) or guest");
      const page = await listMembers(
        em(),
        { caller: request.caller, organizationId: request.organizationId, page: pageRequest(request.page), order, role, search: request.search, sort },
        useCaseDeps,
      );
      return { members: page.items.map(memberToProto), page: { nextPageToken: page.nextPageToken, totalCount: page.totalCount } };
    },

    getMember: async (request) => {
      const member = await getMember(em(), { caller: request.caller, organizationId: request.organizationId, userId: request.userId }, useCaseDeps);
      return { member: memberToProto(member) };
    },

    updateMember: async (request) => {
      const member = await updateMember(
        em(),
        { caller: request.caller, organizationId: request.organizationId, userId: request.userId, role: roleFromProto(request.role) },
        useCaseDeps,
      );
      return { member: memberToProto(member) };
    },

    removeMember: async (request) =>
      removeMember(em(), { caller: request.caller, organizationId: request.organizationId, userId: request.userId }, useCaseDeps),

    pingMember: async (request) => {
      const member = await pingMember(em(), { caller: request.caller, organizationId: request.organizationId }, useCaseDeps);
      return { member: memberToProto(member) };
    },

    setMemberSso: async (request) => {
      const member = await setMemberSso(em(), { caller: request.caller, organizationId: request.organizationId, userId: request.userId }, useCaseDeps);
      return { member: memberToProto(member) };
    },

    getMembership: async (request) => {
      const membership = await getMembership(em(), { organizationId: request.organizationId, userId: request.userId, tokenId: request.tokenId }, useCaseDeps);
      return { role: roleToProto(membership.role), disabled: membership.disabled };
    },

    batchGetUsers: async (request) => {
      const users = await batchGetUsers(em(), { userIds: request.userIds }, useCaseDeps);
      return { users: users.map(userToProto) };
    },

    batchGetMembers: async (request) => {
      const members = await batchGetMembers(em(), { organizationId: request.organizationId, userIds: request.userIds }, useCaseDeps);
      return { members: members.map(memberToProto) };
    },

    batchGetOrganizations: async (request) => {
      const organizations = await batchGetOrganizations(em(), { organizationIds: request.organizationIds }, useCaseDeps);
      return { organizations: organizations.map(organizationToProto) };
    },

    createOrganization: async (request) => {
      const created = await createOrganization(
        em(),
        { title: request.title, ownerEmail: request.ownerEmail, ownerDisplayName: request.ownerDisplayName, ownerToken: request.ownerToken },
        useCaseDeps,
      );
      return { organizationId: created.organization.id, userId: created.userId, token: created.token };
    },

    createUser: async (request) => {
      const result = await createUser(em(), { email: request.email, displayName: request.displayName }, useCaseDeps);
      return { user: userToProto(result.user), created: result.created };
    },

    issueToken: async (request) => issueToken(em(), { email: request.email, label: request.label }, useCaseDeps),

    revokeToken: async (request) => revokeToken(em(), { token: request.token, tokenId: request.tokenId }, useCaseDeps),

    addMember: async (request) => {
      const member = await addMember(
        em(),
        { organizationId: request.organizationId, email: request.email, role: roleFromProto(request.role) },
        useCaseDeps,
      );
      return { member: memberToProto(member) };
    },

    createLinkInvite: async (request) =>
      createLinkInvite(em(), { organizationId: request.organizationId, role: roleFromProto(request.role) }, useCaseDeps),

    issueInstallationToken: async (request) =>
      issueInstallationToken(
        em(),
        {
          organizationId: request.organizationId,
          installationId: request.installationId,
          integrationName: request.integrationName,
          integrationTitle: request.integrationTitle,
          role: roleFromProto(request.role),
          ttlSeconds: request.ttlSeconds,
        },
        useCaseDeps,
      ),

    revokeInstallationTokens: async (request) => revokeInstallationTokens(em(), { installationId: request.installationId }, useCaseDeps),
  
    listTeams: async (request) => {
      const page = await listTeams(
        em(),
        { caller: request.caller, organizationId: request.organizationId, page: pageRequest(request.page), ownerUserId: request.ownerUserId, title: request.title },
        useCaseDeps,
      );
      return { teams: page.items.map(teamToProto), page: { nextPageToken: page.nextPageToken, totalCount: page.totalCount } };
    },

    createTeam: async (request) => {
      const view = await createTeam(em(), { caller: request.caller, organizationId: request.organizationId, title: request.title, memberUserIds: request.memberUserIds }, useCaseDeps);
      return { team: teamToProto(view) };
    },

    getTeam: async (request) => ({ team: teamToProto(await getTeam(em(), { caller: request.caller, organizationId: request.organizationId, teamId: request.teamId }, useCaseDeps)) }),

    updateTeam: async (request) => ({
      team: teamToProto(await updateTeam(em(), { caller: request.caller, organizationId: request.organizationId, teamId: request.teamId, title: request.title }, useCaseDeps)),
    }),

    deleteTeam: async (request) => deleteTeam(em(), { caller: request.caller, organizationId: request.organizationId, teamId: request.teamId }, useCaseDeps),

    listTeamMembers: async (request) => {
      const page = await listTeamMembers(em(), { caller: request.caller, organizationId: request.organizationId, teamId: request.teamId, page: pageRequest(request.page) }, useCaseDeps);
      return {
        members: page.items.map((item) => ({ member: memberToProto(item.member), role: teamRoleToProto(item.role) })),
        page: { nextPageToken: page.nextPageToken, totalCount: page.totalCount },
      };
    },

    updateTeamMembers: async (request) => {
      const roles: Record<string, "owner" | "member"> = {};
      for (const [userId, role] of Object.entries(request.roles)) {
        const value = teamRoleFromProto(role);
        if (value === undefined || value === "invalid") throw AppError.invalidArgument(`memberships.${userId}.role: must be owner or member`);
        roles[userId] = value;
      }
      await updateTeamMembers(
        em(),
        { caller: request.caller, organizationId: request.organizationId, teamId: request.teamId, add: request.add, remove: request.remove, roles },
        useCaseDeps,
      );
      return {};
    },

    putTeamMember: async (request) => {
      const role = teamRoleFromProto(request.role);
      if (role === "invalid") throw AppError.invalidArgument("role: must be owner or member");
      await putTeamMember(em(), { caller: request.caller, organizationId: request.organizationId, teamId: request.teamId, userId: request.userId, role }, useCaseDeps);
      return {};
    },

    removeTeamMember: async (request) =>
      removeTeamMember(em(), { caller: request.caller, organizationId: request.organizationId, teamId: request.teamId, userId: request.userId }, useCaseDeps),

    listMemberTeams: async (request) => {
      const page = await listMemberTeams(
        em(),
        { caller: request.caller, organizationId: request.organizationId, userId: request.userId, page: pageRequest(request.page), title: request.title },
        useCaseDeps,
      );
      return {
        teams: page.items.map((item) => ({ team: teamToProto(item.view), role: teamRoleToProto(item.role) })),
        page: { nextPageToken: page.nextPageToken, totalCount: page.totalCount },
      };
    },

    getUserTeams: async (request) => ({ teamIds: await getUserTeams(em(), { organizationId: request.organizationId, userId: request.userId }, useCaseDeps) }),

    listTeamMemberships: async (request) => listTeamMemberships(em(), { organizationId: request.organizationId }, useCaseDeps),

    batchGetTeams: async (request) => ({ teams: (await batchGetTeams(em(), { organizationId: request.organizationId, teamIds: request.teamIds }, useCaseDeps)).map(teamToProto) }),

    listSamlProviders: async (request) => {
      const page = await listSamlProviders(em(), { caller: request.caller, organizationId: request.organizationId, page: pageRequest(request.page) }, useCaseDeps);
      return { providers: page.items.map(samlProviderToProto), page: { nextPageToken: page.nextPageToken, totalCount: page.totalCount } };
    },

    createSamlProvider: async (request) => {
      const provider = await createSamlProvider(em(), { caller: request.caller, organizationId: request.organizationId, values: samlValuesFromProto(request, undefined) }, useCaseDeps);
      return { provider: samlProviderToProto(provider) };
    },

    getSamlProvider: async (request) => ({
      provider: samlProviderToProto(await getSamlProvider(em(), { caller: request.caller, organizationId: request.organizationId, providerId: request.providerId }, useCaseDeps)),
    }),

    updateSamlProvider: async (request) => {
      const values = samlValuesFromProto(request.values ?? ({} as never), request.updateMask ?? []);
      const provider = await updateSamlProvider(em(), { caller: request.caller, organizationId: request.organizationId, providerId: request.providerId, values }, useCaseDeps);
      return { provider: samlProviderToProto(provider) };
    },

    deleteSamlProvider: async (request) => deleteSamlProvider(em(), { caller: request.caller, organizationId: request.organizationId, providerId: request.providerId }, useCaseDeps),

    listSsoProviders: async (request) => ({ providers: await listSsoProviders(em(), { organizationId: request.organizationId }, useCaseDeps) }),

    startSamlSignIn: async (request) => ({ redirectUrl: await startSamlSignIn(em(), { providerId: request.providerId, service: request.service }, useCaseDeps) }),

    completeSamlSignIn: async (request) => {
      const signIn = await completeSamlSignIn(em(), { providerId: request.providerId, service: request.service, samlResponse: request.samlResponse }, useCaseDeps);
      return { user: userToProto(signIn.user), organizationId: signIn.organizationId, token: signIn.token, tokenExpiresAt: signIn.tokenExpiresAt };
    },
};
}

const SAML_MASK_FIELDS = ["label", "entity_id", "sso_url", "certificate", "default_team_id", "default_role", "groups_attribute"] as const;

/**
 * A provider's values from a create request (every field) or an update (the masked fields only).
 * MEMBER_ROLE_UNSPECIFIED at creation means the organization's default role.
 */
function samlValuesFromProto(request: CreateSamlProviderRequest, mask: string[] | undefined): SamlProviderValues {
  const named = (field: (typeof SAML_MASK_FIELDS)[number]) => mask === undefined || mask.includes(field);
  for (const path of mask ?? []) if (!(SAML_MASK_FIELDS as readonly string[]).includes(path)) throw AppError.invalidArgument(`update_mask: unknown field ${path}`);
  const values: SamlProviderValues = {};
  if (named("label")) values.label = request.label;
  if (named("entity_id")) values.entityId = request.entityId;
  if (named("sso_url")) values.ssoUrl = request.ssoUrl;
  if (named("certificate")) values.certificate = request.certificate;
  if (named("default_team_id")) values.defaultTeamId = request.defaultTeamId;
  if (named("default_role")) {
    if (request.defaultRole === MemberRole.MEMBER_ROLE_UNSPECIFIED) {
      if (mask === undefined) values.defaultRole = "organization";
      else throw AppError.invalidArgument("defaultRole: must be a role or null");
    } else {
      const role = roleFromProto(request.defaultRole);
      if (role === undefined) throw AppError.invalidArgument("defaultRole: must be a role or null");
      values.defaultRole = role;
    }
  }
  if (named("groups_attribute")) values.groupsAttribute = request.groupsAttribute;
  return values;
}
