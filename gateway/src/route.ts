import type { Router } from "@koa/router";
import type { z } from "zod";
import { assertCsrf, CSRF_HEADER, SESSION_COOKIE, type Principal, type TokenAuthenticator } from "./auth.js";
import type { GatewayContext, GatewayState } from "./context.js";
import { ChunkedBody } from "./middleware/chunked-body.js";
import { sendIdempotentAnswer } from "./middleware/idempotency.js";
import { readJsonBody } from "./middleware/json-body.js";
import type { ListCursors, PageTokenSigner } from "./pagination.js";
import { parseInput } from "./validation.js";

/**
 * One authenticated REST operation: its schemas and a handler mapping the validated input to one
 * upstream call. The pipeline (auth → body → validation → handler → response) lives here, once.
 */
type HttpMethod = "GET" | "POST" | "PUT" | "PATCH" | "DELETE";
type Output<Schema> = Schema extends z.ZodType ? z.output<Schema> : undefined;

export interface RouteInput<Params, Query, Body> {
  params: Params;
  query: Query;
  body: Body;
  principal: Principal;
  ctx: GatewayContext;
  /** The cursors of this route's list (for toPageRequest and toPagedList), bound to its path parameters. */
  cursors: ListCursors;
}

export type RouteResponse =
  | { status: 200; body: unknown; headers?: Record<string, string> }
  | { status: 201; body: unknown; location: string }
  | { status: 204 }
  | { status: 205 };

/** 200 with the body; `headers` for the few answers that carry their own (e.g. a rendered UI's Cache-Control). */
export const ok = (body: unknown, headers?: Record<string, string>): RouteResponse => (headers ? { status: 200, body, headers } : { status: 200, body });
/**
 * 200 with a body kept as chunks of bytes, written one after the other with its `Content-Length`
 * (see {@link ChunkedBody}): a large kept answer (a 10,000-page tree) or one completed per request
 * (a published view and its scripts) is never copied into one new buffer, which lives outside the
 * V8 heap and is collected late.
 */
export const okChunks = (chunks: readonly Buffer[]): RouteResponse => (chunks.length === 1 ? ok(chunks[0]) : ok(new ChunkedBody(chunks)));
/** 201 with `Location`: the API URL of the created object. */
export const created = (body: unknown, location: string): RouteResponse => ({ status: 201, body, location });
export const noContent = (): RouteResponse => ({ status: 204 });
/** 205: done, and what the client shows should be refreshed (GitBook answers it when a reset removed something). */
export const resetContent = (): RouteResponse => ({ status: 205 });

export interface RouteSpec<P, Q, B> {
  method: HttpMethod;
  path: string;
  params?: P;
  query?: Q;
  body?: B;
  /** This route's body bound when it must exceed the gateway's BODY_LIMIT_BYTES (e.g. a published integration's script and images). */
  bodyLimitBytes?: number;
  handler: (input: RouteInput<Output<P>, Output<Q>, Output<B>>) => Promise<RouteResponse>;
}

export interface RoutePipeline {
  authenticator: TokenAuthenticator;
  bodyLimitBytes: number;
  pageTokens: PageTokenSigner;
}

export interface Route {
  method: HttpMethod;
  path: string;
  /** The schemas its input is parsed with (what the pipeline refuses, for tools and tests). */
  schemas: { params?: z.ZodType; query?: z.ZodType; body?: z.ZodType };
  run(ctx: GatewayContext, pipeline: RoutePipeline): Promise<void>;
}

const METHODS_WITH_BODY = new Set(["POST", "PUT", "PATCH"]);

export function defineRoute<
  P extends z.ZodType | undefined = undefined,
  Q extends z.ZodType | undefined = undefined,
  B extends z.ZodType | undefined = undefined,
>(spec: RouteSpec<P, Q, B>): Route {
  return {
    method: spec.method,
    path: spec.path,
    schemas: { ...(spec.params && { params: spec.params }), ...(spec.query && { query: spec.query }), ...(spec.body && { body: spec.body }) },
    async run(ctx, pipeline) {
      const principal = await (ctx.state.authentication ??
        pipeline.authenticator.authenticateRequest(ctx.get("Authorization") || undefined, ctx.cookies.get(SESSION_COOKIE) || undefined));
      ctx.state.principal = principal;
      // A session cookie's state change carries the session's CSRF token (403 before anything runs).
      assertCsrf(principal, spec.method, ctx.get(CSRF_HEADER) || undefined);
      let rawBytes: Buffer = Buffer.alloc(0);
      const rawBody = METHODS_WITH_BODY.has(spec.method)
        ? await readJsonBody(ctx, Math.max(pipeline.bodyLimitBytes, spec.bodyLimitBytes ?? 0), (raw) => (rawBytes = raw))
        : undefined;
      // With an Idempotency-Key: a retry is answered what the first request was, and runs nothing.
      const instead = await ctx.state.idempotency?.begin(rawBytes);
      if (instead) {
        sendIdempotentAnswer(ctx, instead);
        return;
      }
      const params = (spec.params ? parseInput(spec.params, (ctx as unknown as { params: unknown }).params, "path") : undefined) as Output<P>;
      const input = {
        params,
        query: (spec.query ? parseInput(spec.query, ctx.query, "query") : undefined) as Output<Q>,
        body: (spec.body ? parseInput(spec.body, rawBody, "body") : undefined) as Output<B>,
        principal,
        ctx,
        // A list is its route and its path parameters: a cursor of one space's list is refused by another's.
        cursors: pipeline.pageTokens.forList(`${spec.method} ${spec.path} ${JSON.stringify(params ?? {})}`),
      };
      // With an Idempotency-Key, each upstream write the handler makes carries a key of its own.
      const response = ctx.state.idempotency ? await ctx.state.idempotency.run(() => spec.handler(input)) : await spec.handler(input);
      ctx.status = response.status;
      if (response.status === 204 || response.status === 205) {
        ctx.body = null;
        return;
      }
      if (response.status === 201) ctx.set("Location", response.location);
      if (response.status === 200 && response.headers) ctx.set(response.headers);
      ctx.body = response.body;
    },
  };
}

/** Mounts routes on the router, each running the shared pipeline. */
export function mountRoutes(router: Router<GatewayState>, routes: readonly Route[], pipeline: RoutePipeline): void {
  for (const route of routes) {
    router.register(route.path, [route.method], (ctx) => route.run(ctx, pipeline));
  }
}
