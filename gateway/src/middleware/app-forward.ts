import { Agent, request as httpRequest, type IncomingHttpHeaders, type IncomingMessage } from "node:http";
import { Agent as HttpsAgent, request as httpsRequest } from "node:https";
import { AppError } from "@imprint/runtime/core";
import type { RouterContext } from "@koa/router";
import type { Middleware } from "koa";
import type { GatewayState } from "../context.js";
import { API_SECURITY_HEADERS } from "./security-headers.js";

/** The browser app's pages and assets (services/app), exactly or under a prefix: never an API path. */
const APP_EXACT_PATHS = new Set(["/", "/sign-in", "/reset-password"]);
const APP_PATH_PREFIXES = ["/o/", "/join/", "/account/", "/assets/", "/_app/", "/integrations/"];

/** Whether `path` is one of the app's (forwarded to it when GATEWAY_APP_URL is set). */
export function isAppPath(path: string): boolean {
  return APP_EXACT_PATHS.has(path) || APP_PATH_PREFIXES.some((prefix) => path.startsWith(prefix));
}

/** Headers of one hop only (RFC 9110 § 7.6.1), never passed on. */
const HOP_BY_HOP = new Set([
  "connection",
  "keep-alive",
  "proxy-connection",
  "proxy-authenticate",
  "proxy-authorization",
  "te",
  "trailer",
  "transfer-encoding",
  "upgrade",
]);

function passable(headers: IncomingHttpHeaders): Record<string, string | string[]> {
  const kept: Record<string, string | string[]> = {};
  for (const [name, value] of Object.entries(headers)) if (value !== undefined && !HOP_BY_HOP.has(name)) kept[name] = value;
  return kept;
}

/**
 * Forwards the requests no route handled, under the app's paths, to the app target at `appUrl`
 * (GATEWAY_APP_URL): method, headers and body streamed there, its status, headers and body
 * streamed back. So the app and the API share one origin (cookies and CSRF need no setting), and
 * the app's own security headers replace the API's. Transport only: nothing is read or decided.
 * Mounted right after the router's routes, before the fallback's 404.
 */
export function forwardToApp(appUrl: string, options: { timeoutMs: number }): Middleware<GatewayState> {
  const target = new URL(appUrl);
  const https = target.protocol === "https:";
  const agent = https ? new HttpsAgent({ keepAlive: true }) : new Agent({ keepAlive: true });
  const send = https ? httpsRequest : httpRequest;
  const base = target.pathname.replace(/\/+$/, "");
  return async (ctx, next) => {
    const matched = (ctx as unknown as RouterContext<GatewayState>).matched ?? [];
    if (matched.length > 0 || !isAppPath(ctx.path)) {
      await next();
      return;
    }
    const headers = passable(ctx.req.headers);
    headers["x-forwarded-for"] = ctx.ip;
    headers["x-forwarded-proto"] = ctx.protocol;
    headers["x-forwarded-host"] = ctx.host;
    delete headers.host;
    const answer = await new Promise<IncomingMessage>((resolve, reject) => {
      const outgoing = send(
        {
          protocol: target.protocol,
          hostname: target.hostname,
          port: target.port,
          path: `${base}${ctx.url}`,
          method: ctx.method,
          headers,
          agent,
          timeout: options.timeoutMs,
        },
        resolve,
      );
      outgoing.on("timeout", () => outgoing.destroy(new Error("the app did not answer in time")));
      outgoing.on("error", reject);
      ctx.req.pipe(outgoing);
    }).catch((error: unknown) => {
      throw new AppError("unavailable", `The app is unavailable: ${error instanceof Error ? error.message : String(error)}`);
    });
    for (const name of Object.keys(API_SECURITY_HEADERS)) ctx.remove(name);
    ctx.status = answer.statusCode ?? 502;
    for (const [name, value] of Object.entries(passable(answer.headers))) ctx.set(name, value);
    ctx.body = answer;
  };
}
