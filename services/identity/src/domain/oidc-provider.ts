import { defineEntity, p } from "@mikro-orm/postgresql";
import { AppError, type SecretBox } from "@imprint/runtime";
import { OrganizationSchema } from "./organization.js";

/** Bounds of a provider's settings. */
export const OIDC_LABEL_MAX = 100;
export const OIDC_ISSUER_MAX = 2048;
export const OIDC_CLIENT_ID_MAX = 255;
export const OIDC_CLIENT_SECRET_MAX = 1024;
/** Longest return path a sign-in keeps. */
export const OIDC_RETURN_PATH_MAX = 2048;

/** How long a started sign-in may be completed. */
export const OIDC_SIGN_IN_TTL_MS = 10 * 60 * 1000;

/**
 * An organization's OpenID Connect provider: its issuer (discovery at
 * `<issuer>/.well-known/openid-configuration`) and this installation's client there. The client
 * secret is kept sealed (AES-256-GCM, the provider's id as associated data) for the token endpoint
 * (client_secret_basic) and never answered back.
 */
export const OidcProviderSchema = defineEntity({
  name: "OidcProvider",
  tableName: "oidc_providers",
  properties: {
    id: p
      .uuid()
      .primary()
      .onCreate(() => crypto.randomUUID()),
    organization: p.manyToOne(OrganizationSchema).deleteRule("cascade").index(),
    label: p.string().length(OIDC_LABEL_MAX),
    issuer: p.string().length(OIDC_ISSUER_MAX),
    clientId: p.string().length(OIDC_CLIENT_ID_MAX),
    /** `{clientSecret}` sealed by the service's SecretBox. */
    secretsCiphertext: p.blob(),
    createdAt: p.datetime(),
  },
});
export class OidcProvider extends OidcProviderSchema.class {
  /** Seals the client secret. */
  setClientSecret(secrets: SecretBox, clientSecret: string): void {
    this.secretsCiphertext = secrets.seal(this.id, { clientSecret });
  }

  /** The client secret, opened. */
  clientSecret(secrets: SecretBox): string {
    return secrets.open(this.id, Buffer.from(this.secretsCiphertext)).clientSecret ?? "";
  }
}
OidcProviderSchema.setClass(OidcProvider);

/**
 * A sign-in started and not completed yet: what its completion checks (state, nonce, PKCE
 * verifier) and where it goes. In the database, so any replica completes it; deleted when used.
 */
export const OidcSignInSchema = defineEntity({
  name: "OidcSignIn",
  tableName: "oidc_sign_ins",
  properties: {
    /** Hex SHA-256 of the state sent to the provider. */
    stateHash: p.string().length(64).primary(),
    provider: p.manyToOne(OidcProviderSchema).deleteRule("cascade").index(),
    nonce: p.string().length(128),
    codeVerifier: p.string().length(128),
    redirectUri: p.string().length(OIDC_ISSUER_MAX),
    returnPath: p.string().length(OIDC_RETURN_PATH_MAX),
    /** The invite link the person joins through when not a member yet; null for none. */
    inviteId: p.uuid().nullable(),
    createdAt: p.datetime(),
    expiresAt: p.datetime(),
  },
});
export class OidcSignIn extends OidcSignInSchema.class {}
OidcSignInSchema.setClass(OidcSignIn);

export function checkOidcLabel(raw: string): string {
  const text = raw.trim();
  if (text.length === 0 || text.length > OIDC_LABEL_MAX) throw AppError.invalidArgument(`label: must be 1 to ${OIDC_LABEL_MAX} characters`);
  return text;
}

/** An issuer identifier: an https URL without query, fragment or credentials (http only when allowed); kept without a trailing slash. */
export function checkIssuer(raw: string, allowHttp: boolean): string {
  const text = raw.trim();
  const wanted = allowHttp ? "an http(s) URL" : "an https URL";
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    throw AppError.invalidArgument(`issuer: must be ${wanted}`);
  }
  if (url.protocol !== "https:" && !(allowHttp && url.protocol === "http:")) {
    throw AppError.invalidArgument(
      url.protocol === "http:"
        ? "issuer: http is only allowed when IMPRINT_ALLOW_PRIVATE_FETCH=true on the identity service; use https"
        : `issuer: must be ${wanted}`,
    );
  }
  if (url.search || url.hash || url.username || url.password) throw AppError.invalidArgument("issuer: must have no query, fragment or credentials");
  if (text.length > OIDC_ISSUER_MAX) throw AppError.invalidArgument(`issuer: must be at most ${OIDC_ISSUER_MAX} characters`);
  return text;
}

export function checkClientId(raw: string): string {
  const text = raw.trim();
  if (text.length === 0 || text.length > OIDC_CLIENT_ID_MAX) throw AppError.invalidArgument(`clientId: must be 1 to ${OIDC_CLIENT_ID_MAX} characters`);
  return text;
}

export function checkClientSecret(raw: string): string {
  if (raw.length === 0 || raw.length > OIDC_CLIENT_SECRET_MAX)
    throw AppError.invalidArgument(`clientSecret: must be 1 to ${OIDC_CLIENT_SECRET_MAX} characters`);
  return raw;
}

/** A path of this installation: starts with one "/" (not "//"), without control characters or backslashes. */
export function checkReturnPath(raw: string): string {
  if (
    raw.length === 0 ||
    raw.length > OIDC_RETURN_PATH_MAX ||
    !raw.startsWith("/") ||
    raw.startsWith("//") ||
    raw.startsWith("/\\") ||
    [...raw].some((char) => char.charCodeAt(0) < 0x20 || char.charCodeAt(0) === 0x7f || char === "\\")
  ) {
    throw AppError.invalidArgument(`return: must be a path of this installation starting with "/" (at most ${OIDC_RETURN_PATH_MAX} characters)`);
  }
  return raw;
}
