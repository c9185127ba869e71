import { contextEvents } from "@imprint/runtime";
import {
  InviteCreated,
  InviteDeleted,
  MemberAdded,
  MemberRemoved,
  MemberRoleChanged,
  MemberSsoEnabled,
  OrganizationCreated,
  OrganizationUpdated,
  SamlProviderActivated,
  SamlProviderCreated,
  SamlProviderDeleted,
  SamlProviderUpdated,
  TeamCreated,
  TeamDeleted,
  TeamMemberAdded,
  TeamMemberRemoved,
  TeamMemberRoleChanged,
  TeamUpdated,
  TokenIssued,
  TokenRevoked,
  UserCreated,
  UserSignedInWithSso,
  UserUpdated,
} from "@imprint/proto/identity/v1/events";

/** The context of identity's events: stream `IMPRINT_IDENTITY`, subjects `imprint.identity.v1.>`. */
export const IDENTITY_CONTEXT = "identity";

/**
 * The identity events: stream `IMPRINT_IDENTITY`, subjects `imprint.identity.v1.<aggregate>.<event>`,
 * each payload a message of `proto/imprint/identity/v1/events.proto` (listed in the event catalogue
 * of docs/architecture.md, which a test checks against these definitions).
 */
const identityEvent = contextEvents(IDENTITY_CONTEXT);

export const organizationCreated = identityEvent("organization", "created", OrganizationCreated);
export const organizationUpdated = identityEvent("organization", "updated", OrganizationUpdated);
export const userCreated = identityEvent("user", "created", UserCreated);
export const userUpdated = identityEvent("user", "updated", UserUpdated);
export const memberAdded = identityEvent("member", "added", MemberAdded);
export const memberRoleChanged = identityEvent("member", "role_changed", MemberRoleChanged);
export const memberRemoved = identityEvent("member", "removed", MemberRemoved);
export const memberSsoEnabled = identityEvent("member", "sso_enabled", MemberSsoEnabled);
export const tokenIssued = identityEvent("token", "issued", TokenIssued);
export const tokenRevoked = identityEvent("token", "revoked", TokenRevoked);
export const inviteCreated = identityEvent("invite", "created", InviteCreated);
export const inviteDeleted = identityEvent("invite", "deleted", InviteDeleted);
export const teamCreated = identityEvent("team", "created", TeamCreated);
export const teamUpdated = identityEvent("team", "updated", TeamUpdated);
export const teamDeleted = identityEvent("team", "deleted", TeamDeleted);
export const teamMemberAdded = identityEvent("team_member", "added", TeamMemberAdded);
export const teamMemberRoleChanged = identityEvent("team_member", "role_changed", TeamMemberRoleChanged);
export const teamMemberRemoved = identityEvent("team_member", "removed", TeamMemberRemoved);
export const samlProviderCreated = identityEvent("saml_provider", "created", SamlProviderCreated);
export const samlProviderUpdated = identityEvent("saml_provider", "updated", SamlProviderUpdated);
export const samlProviderDeleted = identityEvent("saml_provider", "deleted", SamlProviderDeleted);
export const samlProviderActivated = identityEvent("saml_provider", "activated", SamlProviderActivated);
export const userSignedInWithSso = identityEvent("user", "signed_in_with_sso", UserSignedInWithSso);
