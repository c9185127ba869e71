import { defineEntity, p } from "@mikro-orm/postgresql";
import { AppError } from "@imprint/runtime";

/**
 * A person who signs in and holds API tokens, or the principal of an integration's installation
 * (`integrationInstallationId` set): what GitBook's installation tokens act as.
 */
export const UserSchema = defineEntity({
  name: "User",
  tableName: "users",
  properties: {
    id: p
      .uuid()
      .primary()
      .onCreate(() => crypto.randomUUID()),
    /** Stored lower-cased, which makes the unique index case-insensitive. */
    email: p.string().length(320).unique(),
    displayName: p.string().length(255),
    photoUrl: p.string().length(2048).nullable(),
    createdAt: p.datetime(),
    /**
     * The integration installation this user is the principal of; null for a person. Unique, so an
     * installation has one principal, found by this column.
     */
    integrationInstallationId: p.string().length(128).nullable().unique(),
  },
});
export class User extends UserSchema.class {}
UserSchema.setClass(User);

/**
 * Installation principals get a synthetic e-mail under this domain (`.invalid` is reserved by
 * RFC 2606, so it is no mailbox), which no person's e-mail may use.
 */
export const INSTALLATION_EMAIL_DOMAIN = "installations.imprint.invalid";

/** An installation's principal, not a person: hidden where members are listed, counted or managed. */
export function isInstallationPrincipal(user: { integrationInstallationId?: string | null }): boolean {
  return user.integrationInstallationId != null;
}

/** The e-mail of an installation's principal: its user id (unique, lower-case) under the reserved domain. */
export function installationPrincipalEmail(userId: string): string {
  return `${userId}@${INSTALLATION_EMAIL_DOMAIN}`;
}

/** An installation id (opaque, from the integration service): 1 to 128 letters, digits, "-" or "_". */
export function validateInstallationId(field: string, value: string): string {
  if (!/^[A-Za-z0-9_-]{1,128}$/.test(value)) throw AppError.invalidArgument(`${field}: must be 1 to 128 letters, digits, "-" or "_"`);
  return value;
}

/** The profile fields a user may change on itself. */
export type UserProfileChanges = Partial<Pick<User, "displayName" | "photoUrl">>;

/** A display name a user chooses: 1 to 64 characters once trimmed (GitBook's limits). */
export function validateUserDisplayName(field: string, value: string): string {
  const name = value.trim();
  if (name.length < 1) throw AppError.invalidArgument(`${field}: must be at least 1 non-whitespace character`);
  if (name.length > 64) throw AppError.invalidArgument(`${field}: must be at most 64 characters`);
  return name;
}

/** A profile picture URL: http(s), at most 2048 characters; empty clears it (null). */
export function validatePhotoUrl(field: string, value: string): string | null {
  const url = value.trim();
  if (url === "") return null;
  if (url.length > 2048 || !/^https?:\/\//i.test(url) || !URL.canParse(url)) {
    throw AppError.invalidArgument(`${field}: must be an http(s) URL of at most 2048 characters`);
  }
  return url;
}

/** The REST names of the profile fields, as `user.updated` reports them. */
const PROFILE_FIELD_NAMES: Record<keyof UserProfileChanges, string> = { displayName: "displayName", photoUrl: "photoURL" };

/** Applies validated profile changes; answers each field that really changed, before and after, by its REST name. */
export function updateUserProfile(user: User, changes: UserProfileChanges): Record<string, { from: string | null; to: string | null }> {
  const changed: Record<string, { from: string | null; to: string | null }> = {};
  for (const [key, value] of Object.entries(changes) as [keyof UserProfileChanges, string | null][]) {
    if (user[key] !== value) changed[PROFILE_FIELD_NAMES[key]] = { from: user[key] ?? null, to: value };
  }
  Object.assign(user, changes);
  return changed;
}
