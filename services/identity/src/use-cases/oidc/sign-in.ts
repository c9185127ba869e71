import type { EntityManager } from "@mikro-orm/postgresql";
import * as oidc from "openid-client";
import { AppError, safeRequest, SafeFetchError, type SafeFetchPolicy } from "@imprint/runtime";
import { Member } from "../../domain/member.js";
import { checkReturnPath, OIDC_SIGN_IN_TTL_MS, OidcProvider, OidcSignIn } from "../../domain/oidc-provider.js";
import { Organization } from "../../domain/organization.js";
import { hashSessionSecret } from "../../domain/session.js";
import { User } from "../../domain/user.js";
import { joinOrganization } from "../invites/join-organization.js";
import { joinOrganizationWithInvite } from "../invites/join-organization-with-invite.js";
import { idOf } from "../shared/queries.js";
import { findOrCreateUser } from "../shared/users.js";
import { isId, normalizeEmail } from "../shared/validation.js";
import { startSession, type StartedSession } from "../sessions/shared.js";
import type { UseCaseDeps } from "../../deps.js";

/** Statuses whose answer has no body (a Response refuses one). */
const BODILESS_STATUSES = new Set([101, 204, 205, 304]);

/** openid-client's requests (discovery, token endpoint, keys) through the service's fetch guard. */
function guardedFetch(policy: SafeFetchPolicy): oidc.CustomFetch {
  return async (url, options) => {
    const body = options.body;
    let bytes: Uint8Array | null = null;
    if (typeof body === "string" || body instanceof URLSearchParams) bytes = Buffer.from(body.toString());
    else if (body instanceof Uint8Array) bytes = body;
    else if (body instanceof ArrayBuffer) bytes = new Uint8Array(body);
    else if (body) throw new AppError("internal", "openid-client sent a streamed body");
    const answer = await safeRequest(url, { method: options.method, headers: options.headers, body: bytes }, policy, { signal: options.signal });
    return new Response(BODILESS_STATUSES.has(answer.status) ? null : new Uint8Array(answer.body), { status: answer.status, headers: answer.headers });
  };
}

/**
 * The provider's configuration from its discovery document, fetched under the fetch guard (an
 * http issuer only where it is allowed: checkIssuer refused the others when it was saved). The
 * client authenticates with client_secret_basic; the ID token's times are judged by the
 * service's clock.
 */
async function configurationOf(provider: OidcProvider, deps: UseCaseDeps): Promise<oidc.Configuration> {
  const fetcher = guardedFetch(deps.oidcFetch);
  const clientSecret = provider.clientSecret(deps.secrets);
  const skewSeconds = Math.round((deps.clock().getTime() - Date.now()) / 1000);
  let config: oidc.Configuration;
  try {
    config = await oidc.discovery(
      new URL(provider.issuer),
      provider.clientId,
      { client_secret: clientSecret, ...(skewSeconds !== 0 ? { [oidc.clockSkew]: skewSeconds } : {}) },
      oidc.ClientSecretBasic(clientSecret),
      { [oidc.customFetch]: fetcher, ...(provider.issuer.startsWith("http:") ? { execute: [oidc.allowInsecureRequests] } : {}) },
    );
  } catch (error) {
    throw new AppError("upstream_failed", `The OpenID provider's discovery document could not be read: ${reasonOf(error)}`, { cause: error });
  }
  config[oidc.customFetch] = fetcher;
  return config;
}

/** A short reason safe to show: the guard's, or openid-client's message. */
function reasonOf(error: unknown): string {
  if (error instanceof SafeFetchError) return error.reason;
  const cause = (error as { cause?: unknown }).cause;
  if (cause instanceof SafeFetchError) return cause.reason;
  if (!(error instanceof Error)) return "unknown error";
  // openid-client's message is general; its cause names what was refused (the "aud" claim, "exp"…).
  const detail = cause instanceof Error && cause.message !== error.message ? `: ${cause.message}` : "";
  return `${error.message}${detail}`.slice(0, 400);
}

/**
 * Starts a sign-in through a provider: a new state, nonce and PKCE verifier kept (hashed state) for
 * OIDC_SIGN_IN_TTL_MS, and the provider's authorization URL asking for `openid email profile`.
 */
export async function startOidcSignIn(
  em: EntityManager,
  input: { providerId: string; redirectUri: string; returnPath: string; inviteId: string },
  deps: UseCaseDeps,
): Promise<string> {
  const returnPath = checkReturnPath(input.returnPath);
  if (input.inviteId !== "" && !isId(input.inviteId)) throw AppError.invalidArgument("invite: must be an invite link's id");
  if (!input.redirectUri) throw AppError.invalidArgument("redirect_uri: is required");
  const provider = isId(input.providerId) ? await em.findOne(OidcProvider, { id: input.providerId }) : null;
  if (!provider) throw AppError.notFound("OpenID provider");
  const config = await configurationOf(provider, deps);
  const state = oidc.randomState();
  const nonce = oidc.randomNonce();
  const codeVerifier = oidc.randomPKCECodeVerifier();
  const now = deps.clock();
  await deps.unitOfWork.run(em, async (tx) => {
    // Sign-ins started and never completed go once expired.
    await tx.nativeDelete(OidcSignIn, { expiresAt: { $lte: now } });
    tx.create(OidcSignIn, {
      stateHash: hashSessionSecret(state),
      provider,
      nonce,
      codeVerifier,
      redirectUri: input.redirectUri,
      returnPath,
      inviteId: input.inviteId || null,
      createdAt: now,
      expiresAt: new Date(now.getTime() + OIDC_SIGN_IN_TTL_MS),
    });
  });
  return oidc
    .buildAuthorizationUrl(config, {
      redirect_uri: input.redirectUri,
      scope: "openid email profile",
      state,
      nonce,
      code_challenge: await oidc.calculatePKCECodeChallenge(codeVerifier),
      code_challenge_method: "S256",
    })
    .toString();
}

export interface OidcSignInResult {
  started: StartedSession;
  returnPath: string;
  organizationId: string;
}

/** The started sign-in the state names, used up at once (a second completion finds nothing), or a 400. */
async function takeSignIn(em: EntityManager, state: string, deps: Pick<UseCaseDeps, "clock">): Promise<OidcSignIn> {
  if (!state) throw AppError.invalidArgument("state: is required");
  const stateHash = hashSessionSecret(state);
  const signIn = await em.findOne(OidcSignIn, { stateHash }, { populate: ["provider"] });
  // Deleted at once, on its own: of two completions with the same state, one deletes it, the other is refused.
  if (!signIn || (await em.nativeDelete(OidcSignIn, { stateHash })) === 0) {
    throw AppError.invalidArgument("state: names no sign-in in progress (unknown, already used or expired): sign in again");
  }
  if (signIn.expiresAt <= deps.clock()) throw AppError.invalidArgument("state: this sign-in expired: sign in again");
  return signIn;
}

/**
 * Completes a sign-in with the provider's answer. The state is used up first (whatever follows);
 * then openid-client exchanges the code (client_secret_basic, the PKCE verifier) and checks the ID
 * token: issuer, audience (this client), nonce, expiry and signature by the provider's keys. Its
 * e-mail must be verified. The organization must allow "oidc"; a member signs in (a disabled one
 * is refused), anyone else joins through the invite link the sign-in started with, or one of the
 * organization's e-mail domains, or is refused.
 */
export async function completeOidcSignIn(em: EntityManager, input: { redirectUri: string; query: string }, deps: UseCaseDeps): Promise<OidcSignInResult> {
  const params = new URLSearchParams(input.query);
  const signIn = await takeSignIn(em, params.get("state") ?? "", deps);
  const provider = signIn.provider as OidcProvider;
  if (signIn.redirectUri !== input.redirectUri) throw AppError.invalidArgument("redirect_uri: is not the one this sign-in started with");
  const providerError = params.get("error");
  if (providerError) {
    const description = params.get("error_description");
    throw AppError.invalidArgument(
      `The OpenID provider refused the sign-in: ${providerError.slice(0, 100)}${description ? ` (${description.slice(0, 300)})` : ""}`,
    );
  }
  if (!params.get("code")) throw AppError.invalidArgument("code: is required");
  const config = await configurationOf(provider, deps);
  const currentUrl = new URL(input.redirectUri);
  currentUrl.search = params.toString();
  let claims: oidc.IDToken | undefined;
  try {
    const tokens = await oidc.authorizationCodeGrant(config, currentUrl, {
      pkceCodeVerifier: signIn.codeVerifier,
      expectedState: params.get("state")!,
      expectedNonce: signIn.nonce,
      idTokenExpected: true,
    });
    claims = tokens.claims();
  } catch (error) {
    if (error instanceof SafeFetchError || (error as { cause?: unknown }).cause instanceof SafeFetchError) {
      throw new AppError("upstream_failed", `The OpenID provider could not be reached: ${reasonOf(error)}`, { cause: error });
    }
    throw AppError.invalidArgument(`The OpenID provider's answer was refused: ${reasonOf(error)}`);
  }
  if (!claims) throw AppError.invalidArgument("The OpenID provider's answer was refused: it holds no ID token");
  if (typeof claims.email !== "string" || claims.email === "") {
    throw AppError.permissionDenied("The OpenID provider gave no e-mail address: allow the `email` scope for this client");
  }
  if (claims.email_verified !== true)
    throw AppError.permissionDenied(`The OpenID provider has not verified the e-mail ${claims.email.slice(0, 320)}: nobody signs in with it`);
  let email: string;
  try {
    email = normalizeEmail("email", claims.email);
  } catch {
    throw AppError.permissionDenied("The OpenID provider's e-mail address is not a valid address");
  }
  const displayName = (typeof claims.name === "string" && claims.name.trim() ? claims.name.trim() : email.split("@")[0]!).slice(0, 64);
  const organizationId = idOf(provider.organization);

  const started = await deps.unitOfWork.run(em, async (tx) => {
    const organization = await tx.findOne(Organization, organizationId);
    if (!organization) throw AppError.notFound("Organization");
    if (!organization.signInMethods.includes("oidc")) {
      throw AppError.permissionDenied(
        `This organization does not allow signing in with OpenID Connect (signInMethods: ${organization.signInMethods.join(", ")})`,
      );
    }
    const person = await tx.findOne(User, { email, integrationInstallationId: null });
    const member = person ? await tx.findOne(Member, { organization: organizationId, user: person }) : null;
    if (member?.disabled) throw AppError.permissionDenied("This member of the organization is disabled");
    if (member && person) return startSession(tx, person, `oidc:${provider.id}`, deps);
    const domain = email.slice(email.lastIndexOf("@") + 1);
    if (!signIn.inviteId && !organization.emailDomains.includes(domain)) {
      throw AppError.permissionDenied(`${email} is not a member of this organization: join through an invite link, or ask an admin`);
    }
    const { user } = person ? { user: person } : await findOrCreateUser(tx, { email, displayName }, deps, null);
    const caller = { userId: user.id, tokenId: "" };
    if (signIn.inviteId) await joinOrganizationWithInvite(tx, { caller, organizationId, inviteId: signIn.inviteId }, deps);
    else await joinOrganization(tx, { caller, organizationId }, deps);
    return startSession(tx, user, `oidc:${provider.id}`, deps);
  });
  return { started, returnPath: signIn.returnPath, organizationId };
}
