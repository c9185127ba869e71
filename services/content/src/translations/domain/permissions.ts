import { atLeast, type Membership } from "../../access/index.js";

/** What the caller may do on the organization's translation settings (docs/permissions.md). */
export interface TranslationSettingsPermissions {
  view: boolean;
  edit: boolean;
}

/**
 * Members with a role view translation settings; those who create content (the admin and create
 * roles, `createContent`) create, change and delete them. Guests see none.
 */
export function translationSettingsPermissions(membership: Membership): TranslationSettingsPermissions {
  return { view: atLeast(membership.role, "read"), edit: atLeast(membership.role, "create") };
}
