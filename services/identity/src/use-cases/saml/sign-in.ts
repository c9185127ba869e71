import { randomBytes } from "node:crypto";
import type { EntityManager } from "@mikro-orm/postgresql";
import { SAML, ValidateInResponseTo, type CacheProvider, type Profile } from "@node-saml/node-saml";
import { AppError, recordEvent } from "@imprint/runtime";
import { Member } from "../../domain/member.js";
import { Organization } from "../../domain/organization.js";
import { nextMembershipVersion } from "../../store/organizations.js";
import { SAML_REQUEST_TTL_MS, SamlAssertionUse, SamlProvider, SamlRequest } from "../../domain/saml-provider.js";
import { Team, TeamMember } from "../../domain/team.js";
import type { User } from "../../domain/user.js";
import { memberSsoEnabled, samlProviderActivated, teamMemberAdded, userSignedInWithSso } from "../../events.js";
import { createMember } from "../shared/members.js";
import { createToken } from "../shared/tokens.js";
import { findOrCreateUser } from "../shared/users.js";
import { isId, normalizeEmail } from "../shared/validation.js";
import type { UseCaseDeps } from "../../deps.js";
import { idOf } from "../shared/queries.js";

/** This installation's addresses for one identity provider (the gateway builds them from its public URL). */
export interface ServiceProviderAddresses {
  entityId: string;
  acsUrl: string;
}

/** How long a token issued by a sign-in works. */
export const SSO_TOKEN_TTL_MS = 60 * 60 * 1000;
/** The largest SAMLResponse accepted (base64). */
const MAX_RESPONSE_LENGTH = 512 * 1024;
/** Clock difference tolerated between the identity provider and this service. */
const CLOCK_SKEW_MS = 60_000;
/** Teams one sign-in may join through group names. */
const MAX_GROUPS = 100;

async function findProvider(em: EntityManager, providerId: string): Promise<SamlProvider> {
  const provider = isId(providerId) ? await em.findOne(SamlProvider, { id: providerId }) : null;
  if (!provider) throw AppError.notFound("SAML provider");
  return provider;
}

function checkAddresses(service: ServiceProviderAddresses | undefined): ServiceProviderAddresses {
  if (!service?.entityId || !service.acsUrl) throw AppError.invalidArgument("service: the service provider's entity ID and ACS URL are required");
  return service;
}

/**
 * The AuthnRequests this service issued, kept in its database (node-saml's in-memory default would
 * not survive a restart or reach another replica): a response must answer one of them, once,
 * within SAML_REQUEST_TTL_MS.
 */
function issuedRequests(em: EntityManager, provider: SamlProvider, now: () => Date): CacheProvider {
  return {
    saveAsync: async (key, value) => {
      em.create(SamlRequest, { id: key, provider, createdAt: now() });
      await em.flush();
      return { value, createdAt: now().getTime() };
    },
    getAsync: async (key) => {
      const request = await em.findOne(SamlRequest, { id: key, provider, createdAt: { $gt: new Date(now().getTime() - SAML_REQUEST_TTL_MS) } });
      return request ? request.createdAt.toISOString() : null;
    },
    removeAsync: async (key) => {
      if (!key) return null;
      const removed = await em.nativeDelete(SamlRequest, { id: key, provider });
      return removed > 0 ? key : null;
    },
  };
}

/** The service provider's side of one identity provider, as node-saml checks it. */
function samlFor(provider: SamlProvider, service: ServiceProviderAddresses, requests: CacheProvider): SAML {
  return new SAML({
    entryPoint: provider.ssoUrl,
    issuer: service.entityId,
    callbackUrl: service.acsUrl,
    audience: service.entityId,
    idpCert: provider.certificate,
    idpIssuer: provider.entityId,
    // The assertion itself must be signed: a signed response around an unsigned assertion is not enough.
    wantAssertionsSigned: true,
    wantAuthnResponseSigned: false,
    validateInResponseTo: ValidateInResponseTo.always,
    requestIdExpirationPeriodMs: SAML_REQUEST_TTL_MS,
    cacheProvider: requests,
    acceptedClockSkewMs: CLOCK_SKEW_MS,
    identifierFormat: "urn:oasis:names:tc:SAML:1.1:nameid-format:emailAddress",
    disableRequestedAuthnContext: true,
    generateUniqueId: () => `_${randomBytes(20).toString("hex")}`,
  });
}

/** Starts a sign-in: remembers a new AuthnRequest and answers the provider's URL carrying it. */
export async function startSamlSignIn(
  em: EntityManager,
  input: { providerId: string; service: ServiceProviderAddresses | undefined },
  deps: UseCaseDeps,
): Promise<string> {
  const service = checkAddresses(input.service);
  return deps.unitOfWork.run(em, async (tx) => {
    const provider = await findProvider(tx, input.providerId);
    return samlFor(provider, service, issuedRequests(tx, provider, deps.clock)).getAuthorizeUrlAsync("", undefined, {});
  });
}

/**
 * What is refused before any XML parser sees the response: oversized bodies, document type
 * declarations (entity expansion, external entities) and comments (a comment inside a signed
 * NameID splits its text node: the signature covers the whole value, a parser reads the first part).
 */
function screenResponse(samlResponse: string): void {
  if (samlResponse.length === 0) throw AppError.invalidArgument("SAMLResponse: is required");
  if (samlResponse.length > MAX_RESPONSE_LENGTH) throw AppError.invalidArgument(`SAMLResponse: must be at most ${MAX_RESPONSE_LENGTH} characters`);
  if (!/^[A-Za-z0-9+/=\s]+$/.test(samlResponse)) throw AppError.invalidArgument("SAMLResponse: must be base64");
  const xml = Buffer.from(samlResponse, "base64").toString("utf8");
  if (/<!DOCTYPE|<!ENTITY/i.test(xml)) throw AppError.invalidArgument("SAMLResponse: document type declarations are not accepted");
  if (xml.includes("<!--")) throw AppError.invalidArgument("SAMLResponse: XML comments are not accepted");
}

/** The value of an attribute of the first element with this local name in (signed) XML; null when absent. */
function attributeOf(xml: string, element: string, attribute: string): string | null {
  const tag = new RegExp(`<(?:[\\w.-]+:)?${element}\\b([^>]*)>`).exec(xml);
  if (!tag) return null;
  const value = new RegExp(`\\s${attribute}\\s*=\\s*"([^"]*)"`).exec(tag[1]!);
  return value ? value[1]! : null;
}

/** The group names an assertion carries in `attribute` (one value or several). */
function groupsOf(profile: Profile, attribute: string): string[] {
  const raw = profile[attribute];
  const values = Array.isArray(raw) ? raw : raw === undefined ? [] : [raw];
  return [
    ...new Set(
      values
        .filter((value): value is string => typeof value === "string")
        .map((value) => value.trim())
        .filter(Boolean),
    ),
  ].slice(0, MAX_GROUPS);
}

function displayNameOf(profile: Profile, email: string): string {
  const first = typeof profile.first_name === "string" ? profile.first_name.trim() : "";
  const last = typeof profile.last_name === "string" ? profile.last_name.trim() : "";
  const name = `${first} ${last}`.trim();
  return (name || email.split("@")[0]!).slice(0, 255);
}

export interface SamlSignIn {
  user: User;
  organizationId: string;
  token: string;
  tokenExpiresAt: Date;
}

/**
 * Completes a sign-in. Everything is checked before anything changes, and in one transaction:
 * node-saml checks the assertion's signature (by the provider's certificate, over the bytes it
 * reads), issuer, audience, time window and that it answers a request issued here; this use case
 * adds the recipient (our ACS URL), single use of the assertion and of the request, and the
 * NameID being an e-mail. Then the user joins as an SSO member with the provider's default role,
 * its default team and the teams of the same titles as its groups, and gets a short-lived token.
 */
export async function completeSamlSignIn(
  em: EntityManager,
  input: { providerId: string; service: ServiceProviderAddresses | undefined; samlResponse: string },
  deps: UseCaseDeps,
): Promise<SamlSignIn> {
  const service = checkAddresses(input.service);
  screenResponse(input.samlResponse);
  return deps.unitOfWork.run(em, async (tx) => {
    const provider = await findProvider(tx, input.providerId);
    const organizationId = idOf(provider.organization);
    let profile: Profile | null;
    try {
      ({ profile } = await samlFor(provider, service, issuedRequests(tx, provider, deps.clock)).validatePostResponseAsync({
        SAMLResponse: input.samlResponse,
      }));
    } catch (error) {
      throw AppError.invalidArgument(`SAMLResponse: ${error instanceof Error ? error.message : "is not a valid response"}`);
    }
    if (!profile) throw AppError.invalidArgument("SAMLResponse: holds no assertion");
    const assertion = profile.getAssertionXml?.() ?? "";
    const recipient = attributeOf(assertion, "SubjectConfirmationData", "Recipient");
    if (recipient !== service.acsUrl) throw AppError.invalidArgument(`SAMLResponse: the assertion's recipient must be ${service.acsUrl}`);
    const assertionId = attributeOf(assertion, "Assertion", "ID");
    if (!assertionId) throw AppError.invalidArgument("SAMLResponse: the assertion has no ID");
    if (await tx.findOne(SamlAssertionUse, { provider, assertionId })) throw AppError.invalidArgument("SAMLResponse: this assertion was already used");
    tx.create(SamlAssertionUse, { provider, assertionId, usedAt: deps.clock() });
    let email: string;
    try {
      email = normalizeEmail("NameID", profile.nameID ?? "");
    } catch {
      throw AppError.invalidArgument("SAMLResponse: the NameID must be the user's e-mail address");
    }

    const actor = null;
    const { user } = await findOrCreateUser(tx, { email, displayName: displayNameOf(profile, email) }, deps, actor);
    let member = await tx.findOne(Member, { organization: organizationId, user });
    if (member?.disabled) throw AppError.permissionDenied("This member of the organization is disabled");
    if (!member) {
      const organization = await tx.findOneOrFail(Organization, organizationId);
      member = createMember(tx, { organization, user, role: provider.defaultRole ?? null }, deps, actor);
    }
    if (member.enableSso()) recordEvent(tx, memberSsoEnabled, { organizationId, actor, payload: { userId: user.id } });

    // The default team, and the teams whose titles the assertion's groups name.
    const groups = groupsOf(profile, provider.groupsAttribute);
    const teams = await tx.find(Team, {
      organization: organizationId,
      $or: [...(provider.defaultTeam ? [{ id: idOf(provider.defaultTeam) }] : []), ...(groups.length > 0 ? [{ title: { $in: groups } }] : [])],
    });
    // Before the memberships are read: the version's lock orders this change after any concurrent one.
    const membershipVersion = teams.length > 0 ? await nextMembershipVersion(tx, organizationId) : 0;
    const already = new Set(
      (await tx.find(TeamMember, { user, team: { $in: teams.map((team) => team.id) } }, { fields: ["team"] })).map((row) => idOf(row.team)),
    );
    const joined: string[] = [];
    for (const team of teams) {
      if (already.has(team.id)) continue;
      tx.create(TeamMember, { team, user, role: "member", addedAt: deps.clock() });
      recordEvent(tx, teamMemberAdded, { organizationId, actor, payload: { teamId: team.id, userId: user.id, role: "member", membershipVersion } });
      joined.push(team.id);
    }

    if (provider.status === "pending") {
      provider.status = "active";
      recordEvent(tx, samlProviderActivated, { organizationId, actor, payload: { providerId: provider.id } });
    }
    recordEvent(tx, userSignedInWithSso, { organizationId, actor, payload: { userId: user.id, providerId: provider.id, joinedTeamIds: joined } });
    const tokenExpiresAt = new Date(deps.clock().getTime() + SSO_TOKEN_TTL_MS);
    const issued = await createToken(
      tx,
      { user, label: `SSO: ${provider.label}`.slice(0, 255), expiresAt: tokenExpiresAt, samlProviderId: provider.id },
      deps,
      actor,
    );
    return { user, organizationId, token: issued.secret, tokenExpiresAt };
  });
}
