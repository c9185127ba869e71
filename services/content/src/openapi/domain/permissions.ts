import { atLeast, type Membership } from "../../access/index.js";

/** What the caller may do on the organization's OpenAPI specifications (docs/permissions.md). */
export interface OpenApiSpecPermissions {
  view: boolean;
  edit: boolean;
}

/**
 * Members with a role view specifications; `createOpenAPISpec` (the admin and create roles)
 * creates, re-sources and deletes them. Guests see none, as with the rest of the content.
 */
export function openApiSpecPermissions(membership: Membership): OpenApiSpecPermissions {
  return { view: atLeast(membership.role, "read"), edit: atLeast(membership.role, "create") };
}
