import type { OidcProvider } from "@imprint/proto/identity/v1/oidc";
import { AppError } from "@imprint/runtime/core";
import { z } from "zod";
import type { PublicUrls } from "../mappers/urls.js";
import { pageQueryShape, toPageRequest, toPagedList } from "../pagination.js";
import { created, defineRoute, noContent, ok, resetContent, type Route } from "../route.js";
import { parseInput, pathId } from "../validation.js";
import { sessionCookie } from "./auth.js";
import type { DirectRoute, RouteDeps } from "./deps.js";

const organizationParams = z.object({ organizationId: pathId() });
const providerParams = z.object({ organizationId: pathId(), providerId: pathId() });

/** Shapes only: identity checks the values (the issuer against the fetch rule too). */
const providerFields = {
  label: z.string().max(1000),
  issuer: z.string().max(4096),
  clientId: z.string().max(1000),
  clientSecret: z.string().max(4096),
};
export const createOidcProviderBody = z.object(providerFields);
export const updateOidcProviderBody = z.object(providerFields).partial();

const MASK: Record<keyof z.infer<typeof updateOidcProviderBody>, string> = {
  label: "label",
  issuer: "issuer",
  clientId: "client_id",
  clientSecret: "client_secret",
};

/** The redirect URI every provider sends browsers back to (registered at the provider as the client's). */
export const oidcRedirectUri = (urls: PublicUrls) => `${urls.api}/v1/auth/oidc/callback`;
/** Where a sign-in through a provider starts. */
export const oidcStartUrl = (urls: PublicUrls, providerId: string) => `${urls.api}/v1/auth/oidc/${encodeURIComponent(providerId)}/start`;

/** An OpenID provider as admins see it: never its client secret; the redirect URI to register at the provider. */
function restProvider(provider: OidcProvider | undefined, urls: PublicUrls) {
  if (!provider) throw new AppError("internal", "identity answered no OpenID provider");
  return {
    object: "oidc-provider" as const,
    id: provider.id,
    label: provider.label,
    issuer: provider.issuer,
    clientId: provider.clientId,
    redirectUri: oidcRedirectUri(urls),
    startURL: oidcStartUrl(urls, provider.id),
    createdAt: (provider.createdAt ?? new Date(0)).toISOString(),
    urls: {
      location: `${urls.api}/v1/orgs/${encodeURIComponent(provider.organizationId)}/oidc-providers/${encodeURIComponent(provider.id)}`,
    },
  };
}

/** An organization's OpenID Connect providers (admins; Imprint's extension beside GitBook's SAML routes). */
export function oidcProviderRoutes({ upstreams, urls }: RouteDeps): Route[] {
  const oidc = upstreams.identity.oidc;
  return [
    defineRoute({
      method: "GET",
      path: "/v1/orgs/:organizationId/oidc-providers",
      params: organizationParams,
      query: z.object(pageQueryShape),
      handler: async ({ params, query, principal, cursors }) => {
        const response = await oidc.listOidcProviders({ caller: principal.caller, organizationId: params.organizationId, page: toPageRequest(query, cursors) });
        return ok(
          toPagedList(
            response.providers.map((provider) => restProvider(provider, urls)),
            response.page,
            cursors,
          ),
        );
      },
    }),

    defineRoute({
      method: "POST",
      path: "/v1/orgs/:organizationId/oidc-providers",
      params: organizationParams,
      body: createOidcProviderBody,
      handler: async ({ params, body, principal }) => {
        const response = await oidc.createOidcProvider({ caller: principal.caller, organizationId: params.organizationId, ...body });
        const provider = restProvider(response.provider, urls);
        return created(provider, provider.urls.location);
      },
    }),

    defineRoute({
      method: "GET",
      path: "/v1/orgs/:organizationId/oidc-providers/:providerId",
      params: providerParams,
      handler: async ({ params, principal }) => ok(restProvider((await oidc.getOidcProvider({ caller: principal.caller, ...params })).provider, urls)),
    }),

    defineRoute({
      method: "PATCH",
      path: "/v1/orgs/:organizationId/oidc-providers/:providerId",
      params: providerParams,
      body: updateOidcProviderBody,
      handler: async ({ params, body, principal }) => {
        const updateMask = (Object.keys(MASK) as (keyof typeof MASK)[]).filter((key) => body[key] !== undefined).map((key) => MASK[key]);
        const response = await oidc.updateOidcProvider({
          caller: principal.caller,
          ...params,
          values: {
            caller: undefined,
            organizationId: "",
            label: body.label ?? "",
            issuer: body.issuer ?? "",
            clientId: body.clientId ?? "",
            clientSecret: body.clientSecret ?? "",
          },
          updateMask,
        });
        return ok(restProvider(response.provider, urls));
      },
    }),

    // 205 when deleted, 204 when there was none (as GitBook's SAML providers).
    defineRoute({
      method: "DELETE",
      path: "/v1/orgs/:organizationId/oidc-providers/:providerId",
      params: providerParams,
      handler: async ({ params, principal }) =>
        (await oidc.deleteOidcProvider({ caller: principal.caller, ...params })).deleted ? resetContent() : noContent(),
    }),
  ];
}

/**
 * The cookie binding a sign-in to the browser that started it: the state the provider will send
 * back, for ten minutes, only to the callback. A callback whose state is not this browser's is
 * refused, so nobody can hand a victim the answer to a sign-in of their own (login CSRF).
 */
const STATE_COOKIE = "imprint_oidc_state";
const STATE_COOKIE_PATH = "/v1/auth/oidc/callback";
const STATE_TTL_SECONDS = 600;
function stateCookie(value: string, urls: PublicUrls): string {
  const secure = urls.api.startsWith("https:") ? "; Secure" : "";
  return `${STATE_COOKIE}=${value}; Path=${STATE_COOKIE_PATH}; HttpOnly; SameSite=Lax; Max-Age=${value ? STATE_TTL_SECONDS : 0}${secure}`;
}

const startQuery = z.object({ return: z.string().max(4096).optional(), invite: pathId().optional() });

/**
 * Signing in through an organization's OpenID provider, reached without a credential: the start
 * (a redirect to the provider's authorization endpoint) and the redirect URI (the provider's answer:
 * the session cookie, as a password sign-in sets it, and a redirect to the return path on the app).
 */
export function oidcSignInRoutes({ upstreams, urls }: Pick<RouteDeps, "upstreams" | "urls">): DirectRoute[] {
  const oidc = upstreams.identity.oidc;
  const appOrigin = new URL(urls.app).origin;
  return [
    {
      method: "GET",
      path: "/v1/auth/oidc/:providerId/start",
      handle: async (ctx) => {
        const params = parseInput(z.object({ providerId: pathId() }), ctx.params, "path");
        const query = parseInput(startQuery, ctx.query, "query");
        const returnPath = query.return ?? "/";
        // A path of the app's origin only: never a way to send a signed-in browser elsewhere.
        if (!returnPath.startsWith("/") || returnPath.startsWith("//") || returnPath.startsWith("/\\") || new URL(returnPath, appOrigin).origin !== appOrigin) {
          throw AppError.invalidArgument('return: must be a path of this installation starting with "/"');
        }
        const { authorizationUrl } = await oidc.startOidcSignIn({
          providerId: params.providerId,
          redirectUri: oidcRedirectUri(urls),
          returnPath,
          inviteId: query.invite ?? "",
        });
        const state = new URL(authorizationUrl).searchParams.get("state");
        if (!state || !/^[\w-]{1,256}$/.test(state)) throw new AppError("internal", "identity answered an authorization URL without a usable state");
        ctx.append("Set-Cookie", stateCookie(state, urls));
        ctx.set("Cache-Control", "no-store");
        ctx.redirect(authorizationUrl);
      },
    },
    {
      method: "GET",
      path: "/v1/auth/oidc/callback",
      handle: async (ctx) => {
        const state = typeof ctx.query.state === "string" ? ctx.query.state : "";
        const started = ctx.cookies.get(STATE_COOKIE) ?? "";
        ctx.append("Set-Cookie", stateCookie("", urls));
        if (state && started !== state) {
          throw AppError.invalidArgument("state: this sign-in was not started in this browser (or over ten minutes ago): sign in again");
        }
        const signedIn = await oidc.completeOidcSignIn({ redirectUri: oidcRedirectUri(urls), query: ctx.querystring });
        if (!signedIn.started?.secret) throw new AppError("internal", "identity answered no session");
        ctx.append("Set-Cookie", sessionCookie(signedIn.started.secret, urls));
        ctx.set("Cache-Control", "no-store");
        ctx.set("Referrer-Policy", "no-referrer");
        ctx.redirect(new URL(signedIn.returnPath, appOrigin).href);
      },
    },
  ];
}
