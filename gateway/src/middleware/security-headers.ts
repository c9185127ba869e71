import type { Middleware } from "koa";
import type { GatewayState } from "../context.js";

/** HSTS's max-age: a year, without includeSubDomains (the operator's other hosts are not the API's to pin). */
export const HSTS_HEADER = "max-age=31536000";

/**
 * The API's answers are data, never pages: a CSP that lets nothing load or run and no page frame
 * them, `nosniff` (JSON stays JSON), no Referer sent from them. Routes serving their own bytes set
 * their own policy over these (downloads, integrations' assets, the SAML form, integrations'
 * endpoints). HSTS when the API is reached over https (IMPRINT_PUBLIC_URL): browsers ignore it on
 * plain http.
 */
export const API_SECURITY_HEADERS: Readonly<Record<string, string>> = {
  "Content-Security-Policy": "default-src 'none'; frame-ancestors 'none'; base-uri 'none'; form-action 'none'",
  "X-Content-Type-Options": "nosniff",
  "X-Frame-Options": "DENY",
  "Referrer-Policy": "no-referrer",
};

/** Set before the routes run, so every answer (errors and replays included) carries them unless a route says otherwise. */
export function securityHeaders(options: { https: boolean }): Middleware<GatewayState> {
  const headers = options.https ? { ...API_SECURITY_HEADERS, "Strict-Transport-Security": HSTS_HEADER } : API_SECURITY_HEADERS;
  return (ctx, next) => {
    ctx.set(headers);
    return next();
  };
}
