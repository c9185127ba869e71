import { X509Certificate } from "node:crypto";
import { defineEntity, p } from "@mikro-orm/postgresql";
import { AppError } from "@imprint/runtime";
import { OrganizationSchema } from "./organization.js";
import { ROLES } from "./roles.js";
import { TeamSchema } from "./team.js";

export const SAML_PROVIDER_STATUSES = ["pending", "active"] as const;

/** Bounds of a provider's settings. */
export const SAML_LABEL_MAX = 100;
export const SAML_URL_MAX = 2048;
export const SAML_CERTIFICATE_MAX = 16 * 1024;

/**
 * An organization's SAML identity provider. `pending` until the first successful sign-in through
 * it, then `active`. Members who sign in through it join with `defaultRole` and `defaultTeam`, and
 * the teams whose titles their `groupsAttribute` values name.
 */
export const SamlProviderSchema = defineEntity({
  name: "SamlProvider",
  tableName: "saml_providers",
  properties: {
    id: p
      .uuid()
      .primary()
      .onCreate(() => crypto.randomUUID()),
    organization: p.manyToOne(OrganizationSchema).deleteRule("cascade").index(),
    label: p.string().length(SAML_LABEL_MAX),
    /** The identity provider's entity ID (the issuer of its responses). */
    entityId: p.string().length(SAML_URL_MAX),
    /** Where sign-ins start at the identity provider (https). */
    ssoUrl: p.string().length(SAML_URL_MAX),
    /** The identity provider's signing certificate, PEM. */
    certificate: p.text(),
    defaultTeam: p.manyToOne(TeamSchema).nullable().deleteRule("set null"),
    /** Role of members who join through it; null makes them guests. */
    defaultRole: p.enum(ROLES).nullable(),
    groupsAttribute: p.string().length(255).default("groups"),
    status: p.enum(SAML_PROVIDER_STATUSES).default("pending"),
    createdAt: p.datetime(),
  },
});
export class SamlProvider extends SamlProviderSchema.class {}
SamlProviderSchema.setClass(SamlProvider);

/** An AuthnRequest this service issued: a response must answer one, once, before it expires. */
export const SamlRequestSchema = defineEntity({
  name: "SamlRequest",
  tableName: "saml_requests",
  properties: {
    /** The request's ID attribute (an XML ID: starts with a letter or underscore). */
    id: p.string().length(64).primary(),
    provider: p.manyToOne(SamlProviderSchema).deleteRule("cascade").index(),
    createdAt: p.datetime(),
  },
});
export class SamlRequest extends SamlRequestSchema.class {}
SamlRequestSchema.setClass(SamlRequest);

/** Assertions already used to sign in, so that none is accepted twice. */
export const SamlAssertionUseSchema = defineEntity({
  name: "SamlAssertionUse",
  tableName: "saml_assertion_uses",
  properties: {
    provider: p.manyToOne(SamlProviderSchema).primary().deleteRule("cascade"),
    assertionId: p.string().length(255).primary(),
    usedAt: p.datetime(),
  },
});
export class SamlAssertionUse extends SamlAssertionUseSchema.class {}
SamlAssertionUseSchema.setClass(SamlAssertionUse);

/** How long an issued AuthnRequest may be answered. */
export const SAML_REQUEST_TTL_MS = 10 * 60 * 1000;

/**
 * A certificate as stored: PEM of one X.509 certificate (a bare base64 body is wrapped), currently
 * valid, with an RSA key of at least 2048 bits or an EC key. Anything else is a 400 naming why.
 */
export function checkCertificate(raw: string, now: Date): string {
  const text = raw.trim();
  if (text.length === 0 || text.length > SAML_CERTIFICATE_MAX)
    throw AppError.invalidArgument(`certificate: must be a PEM certificate of at most ${SAML_CERTIFICATE_MAX} characters`);
  const pem = text.includes("-----BEGIN CERTIFICATE-----")
    ? text
    : `-----BEGIN CERTIFICATE-----\n${text.replace(/\s+/g, "").replace(/(.{64})/g, "$1\n")}\n-----END CERTIFICATE-----`;
  let certificate: X509Certificate;
  try {
    certificate = new X509Certificate(pem);
  } catch {
    throw AppError.invalidArgument("certificate: is not a PEM X.509 certificate");
  }
  if (new Date(certificate.validTo).getTime() <= now.getTime())
    throw AppError.invalidArgument(`certificate: expired on ${new Date(certificate.validTo).toISOString()}`);
  if (new Date(certificate.validFrom).getTime() > now.getTime())
    throw AppError.invalidArgument(`certificate: is not valid before ${new Date(certificate.validFrom).toISOString()}`);
  const key = certificate.publicKey;
  const type = key.asymmetricKeyType;
  if (type === "rsa" || type === "rsa-pss") {
    const bits = key.asymmetricKeyDetails?.modulusLength ?? 0;
    if (bits < 2048) throw AppError.invalidArgument(`certificate: an RSA key must have at least 2048 bits (this one has ${bits})`);
  } else if (type !== "ec") {
    throw AppError.invalidArgument(`certificate: the key must be RSA (2048 bits or more) or EC, not ${type ?? "unknown"}`);
  }
  return certificate.toString().trim();
}

/** An https URL (the identity provider's sign-in address). */
export function checkSsoUrl(raw: string): string {
  const text = raw.trim();
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    throw AppError.invalidArgument("ssoURL: must be an https URL");
  }
  if (url.protocol !== "https:" || text.length > SAML_URL_MAX) throw AppError.invalidArgument("ssoURL: must be an https URL");
  return text;
}

export function checkEntityId(raw: string): string {
  const text = raw.trim();
  if (text.length === 0 || text.length > SAML_URL_MAX) throw AppError.invalidArgument(`entityID: is required (at most ${SAML_URL_MAX} characters)`);
  return text;
}

export function checkLabel(raw: string): string {
  const text = raw.trim();
  if (text.length === 0 || text.length > SAML_LABEL_MAX) throw AppError.invalidArgument(`label: must be 1 to ${SAML_LABEL_MAX} characters`);
  return text;
}
