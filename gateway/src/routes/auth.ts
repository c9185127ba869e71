import type { StartedSession } from "@imprint/proto/identity/v1/sessions";
import type { OwnToken } from "@imprint/proto/identity/v1/tokens";
import { AppError } from "@imprint/runtime/core";
import { z } from "zod";
import { SESSION_COOKIE, type TokenAuthenticator } from "../auth.js";
import type { GatewayContext } from "../context.js";
import { readFormBody, readJsonBody } from "../middleware/json-body.js";
import { toRestUser } from "../mappers/user.js";
import type { PublicUrls } from "../mappers/urls.js";
import { created, defineRoute, noContent, ok, type Route } from "../route.js";
import { parseInput, pathId } from "../validation.js";
import type { DirectRoute, RouteDeps } from "./deps.js";

/** Sign-in, reset and join bodies are a few fields: anything larger is no such request. */
const AUTH_BODY_LIMIT = 64 * 1024;

/** Bounds of shape only: the password's rules (12 to 1024 characters) are identity's. */
const email = z.string().min(1).max(320);
const password = z.string().max(8192);

export const signInBody = z.object({ email, password });
export const passwordResetBody = z.object({ token: z.string().min(1).max(256), password });
export const joinBody = z.object({ organizationId: pathId(), invite: pathId(), email, password, displayName: z.string().max(255) });
export const createTokenBody = z.object({ label: z.string().max(1000), expiresAt: z.iso.datetime({ offset: true }).optional() });
const tokenParams = z.object({ tokenId: pathId() });

/** The session cookie: never readable by scripts, sent on same-site navigations only, Secure when the API is served over https. */
export function sessionCookie(value: string, urls: PublicUrls, clear = false): string {
  const secure = urls.api.startsWith("https:") ? "; Secure" : "";
  return `${SESSION_COOKIE}=${value}; Path=/; HttpOnly; SameSite=Lax${secure}${clear ? "; Max-Age=0" : ""}`;
}

/**
 * The body of a request that signs someone in (no session yet, so no CSRF token): JSON, which a
 * cross-site HTML form cannot send, or an HTML form post whose Origin is this installation's
 * (its API's or its app's), so no other site's form can sign a visitor into another account.
 */
async function readSignInBody(ctx: GatewayContext, urls: PublicUrls): Promise<unknown> {
  const mediaType = ctx.get("Content-Type").split(";", 1)[0]!.trim().toLowerCase();
  if (mediaType !== "application/x-www-form-urlencoded") return readJsonBody(ctx, AUTH_BODY_LIMIT);
  const origins = new Set([new URL(urls.api).origin, new URL(urls.app).origin]);
  if (!origins.has(ctx.get("Origin"))) {
    throw AppError.permissionDenied("A form post here must come from this installation's own pages (its Origin header); other clients send JSON");
  }
  return Object.fromEntries(await readFormBody(ctx, AUTH_BODY_LIMIT));
}

/** Answers a started session: the cookie, and the user with the CSRF token every later change carries. */
function answerSession(ctx: GatewayContext, started: StartedSession | undefined, urls: PublicUrls, status: 200 | 201): void {
  if (!started?.session) throw new AppError("internal", "identity answered no session");
  ctx.append("Set-Cookie", sessionCookie(started.secret, urls));
  ctx.set("Cache-Control", "no-store");
  ctx.status = status;
  if (status === 201) ctx.set("Location", `${urls.api}/v1/auth/session`);
  ctx.body = {
    user: toRestUser(started.user, urls),
    csrfToken: started.session.csrfToken,
    expiresAt: (started.session.expiresAt ?? new Date(0)).toISOString(),
  };
}

/**
 * What signs a person in, reached without a credential: a password sign-in, a reset link's new
 * password and joining through an invite link with a new account. Each starts from the body
 * (JSON, or a same-origin form post).
 */
export function signInRoutes({ upstreams, urls }: Pick<RouteDeps, "upstreams" | "urls">): DirectRoute[] {
  const sessions = upstreams.identity.sessions;
  return [
    {
      method: "POST",
      path: "/v1/auth/password",
      handle: async (ctx) => {
        const body = parseInput(signInBody, await readSignInBody(ctx, urls), "body");
        const outcome = await sessions.signInWithPassword({ email: body.email, password: body.password });
        if (outcome.lockedForSeconds > 0) {
          ctx.set("Retry-After", String(outcome.lockedForSeconds));
          throw new AppError("rate_limited", `Too many failed sign-ins: this account is locked; try again in ${outcome.lockedForSeconds} s`);
        }
        answerSession(ctx, outcome.started, urls, 200);
      },
    },
    {
      method: "POST",
      path: "/v1/auth/password-reset",
      handle: async (ctx) => {
        const body = parseInput(passwordResetBody, await readSignInBody(ctx, urls), "body");
        await sessions.resetPassword({ token: body.token, password: body.password });
        ctx.set("Cache-Control", "no-store");
        ctx.status = 204;
        ctx.body = null;
      },
    },
    {
      method: "POST",
      path: "/v1/auth/join",
      handle: async (ctx) => {
        const body = parseInput(joinBody, await readSignInBody(ctx, urls), "body");
        const joined = await sessions.joinWithPassword({
          organizationId: body.organizationId,
          inviteId: body.invite,
          email: body.email,
          password: body.password,
          displayName: body.displayName,
        });
        answerSession(ctx, joined.started, urls, 201);
      },
    },
  ];
}

/** A personal API token as its owner sees it (never its secret, but at creation). */
function restToken(token: OwnToken | undefined, urls: PublicUrls) {
  if (!token) throw new AppError("internal", "identity answered no token");
  return {
    object: "api-token" as const,
    id: token.id,
    label: token.label,
    lastFour: token.lastFour,
    createdAt: (token.createdAt ?? new Date(0)).toISOString(),
    ...(token.lastUsedAt ? { lastUsedAt: token.lastUsedAt.toISOString() } : {}),
    ...(token.expiresAt ? { expiresAt: token.expiresAt.toISOString() } : {}),
    urls: { location: `${urls.api}/v1/user/tokens/${encodeURIComponent(token.id)}` },
  };
}

/**
 * The signed-in person's session (read, sign out here or everywhere) and their own API tokens.
 * Signing out drops the session from this process's token cache at once; other gateway replicas
 * refuse it within AUTH_CACHE_TTL_MS.
 */
export function authRoutes({ upstreams, urls, authenticator }: RouteDeps & { authenticator?: TokenAuthenticator }): Route[] {
  const identity = upstreams.identity;
  return [
    defineRoute({
      method: "GET",
      path: "/v1/auth/session",
      handler: async ({ principal }) => {
        const session = principal.session;
        if (!session) throw AppError.unauthenticated("No session: this request authenticated with an API token");
        return ok(
          {
            user: toRestUser(principal.user, urls),
            csrfToken: session.csrfToken,
            expiresAt: (session.expiresAt ?? new Date(0)).toISOString(),
            method: session.method,
          },
          { "Cache-Control": "no-store" },
        );
      },
    }),

    defineRoute({
      method: "POST",
      path: "/v1/auth/sign-out",
      handler: async ({ principal, ctx }) => {
        await identity.sessions.endSession({ caller: principal.caller });
        if (principal.session) authenticator?.revokeToken(principal.session.id);
        ctx.append("Set-Cookie", sessionCookie("", urls, true));
        return noContent();
      },
    }),

    defineRoute({
      method: "POST",
      path: "/v1/auth/sign-out-everywhere",
      handler: async ({ principal, ctx }) => {
        await identity.sessions.endAllSessions({ caller: principal.caller });
        if (principal.session) authenticator?.revokeToken(principal.session.id);
        // The person's other sessions (and tokens) cached here are verified again at their next use.
        authenticator?.forgetUser(principal.caller.userId);
        if (principal.session) ctx.append("Set-Cookie", sessionCookie("", urls, true));
        return noContent();
      },
    }),

    defineRoute({
      method: "GET",
      path: "/v1/user/tokens",
      handler: async ({ principal }) => {
        const { tokens } = await identity.tokens.listOwnTokens({ caller: principal.caller });
        return ok({ items: tokens.map((token) => restToken(token, urls)) });
      },
    }),

    defineRoute({
      method: "POST",
      path: "/v1/user/tokens",
      body: createTokenBody,
      handler: async ({ principal, body }) => {
        const issued = await identity.tokens.createOwnToken({
          caller: principal.caller,
          label: body.label,
          expiresAt: body.expiresAt ? new Date(body.expiresAt) : undefined,
        });
        const token = restToken(issued.token, urls);
        return created({ ...token, token: issued.secret }, token.urls.location);
      },
    }),

    defineRoute({
      method: "DELETE",
      path: "/v1/user/tokens/:tokenId",
      params: tokenParams,
      handler: async ({ principal, params }) => {
        await identity.tokens.revokeOwnToken({ caller: principal.caller, tokenId: params.tokenId });
        return noContent();
      },
    }),
  ];
}
