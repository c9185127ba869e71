export { loadIdentityConfig, identityConfigShape, type IdentityConfig } from "./config.js";
export { identityServiceSpec, startIdentityService, IDENTITY_MIGRATIONS_PATH } from "./service.js";
export { IDENTITY_SERVICE_NAME } from "./grpc/identity-service.js";
export { identityEntities, ApiToken, LinkInvite, Member, Organization, User } from "./domain/entities.js";
export { ORGANIZATION_PERMISSIONS, organizationPermissionsFor, type OrganizationPermissions } from "./domain/permissions.js";
export { ROLES, type Role, type MemberRoleValue } from "./domain/roles.js";
export { hashTokenSecret, TOKEN_PREFIX } from "./domain/tokens.js";
