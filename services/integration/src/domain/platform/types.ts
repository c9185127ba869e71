/**
 * Local types of the GitBook schemas the platform modules share (components.schemas of
 * `@gitbook/api`'s OpenAPI document, vendored in gitbook-schemas.ts), written by hand so the
 * service needs no client package: the tests check what is built with them against the document.
 */

/** GitBook's PlainObject: JSON values without null (not checked deeply where it is only passed on). */
export type PlainObject = Record<string, unknown>;

/** IntegrationInstallationStatus. */
export type InstallationStatus = "active" | "pending" | "paused";

/** ContentVisibility. */
export type ContentVisibility = "public" | "unlisted" | "share-link" | "visitor-auth" | "in-collection" | "private";

/** User, as GitBook embeds it in events (`updatedBy`). */
export type GitBookUser = {
  object: "user";
  id: string;
  displayName: string;
  email?: string;
  photoURL?: string;
  urls: { location: string };
};

/** ContentKitContext: where a component renders (one installation's configuration, or a document). */
export type ContentKitContext =
  | { type: "configuration_account"; theme: "dark" | "light"; organizationId: string }
  | { type: "configuration_space"; theme: "dark" | "light"; spaceId: string }
  | { type: "configuration_site"; theme: "dark" | "light"; siteId: string }
  | { type: "configuration_contentsource"; theme: "dark" | "light"; organizationId: string; spaceId?: string }
  | { type: "document"; theme: "dark" | "light"; spaceId: string; editable: boolean };

/** ContentKitAction: an action a component dispatches (`@ui.*`, `@editor.*`, `@link.unfurl` or its own). */
export type ContentKitAction = { action: string } & PlainObject;

/** The three places an integration is installed, and configured. */
export type ConfigurationTarget = "account" | "space" | "site";
