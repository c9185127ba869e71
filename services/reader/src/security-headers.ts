import type { ParameterizedContext } from "koa";
import { pagePolicy } from "./views/policy.js";

/** HSTS's max-age: a year, without includeSubDomains (the operator's other hosts are not the reader's to pin). */
const HSTS_HEADER = "max-age=31536000";

const DEFAULT_HEADERS: Readonly<Record<string, string>> = {
  // Pages with a site's colours or integrations set their own (views/policy.ts); files theirs (sandboxed).
  "Content-Security-Policy": pagePolicy(),
  "X-Content-Type-Options": "nosniff",
  // Links leaving a site tell where from (its origin), never the page: paths can carry share keys.
  // Within the site the whole URL (integrations' page views read it).
  "Referrer-Policy": "strict-origin-when-cross-origin",
};

/**
 * The reader's security headers on every answer, set before the routes (which may put a page's own
 * policy over the default, and whose whole answers are kept with them): CSP, `nosniff`,
 * Referrer-Policy, and HSTS when the reader is reached over https (its public URL, or the request
 * itself on a custom hostname behind a trusted proxy).
 */
export function securityHeaders(publicUrl: string) {
  const httpsEverywhere = publicUrl.startsWith("https:");
  return async (ctx: ParameterizedContext, next: () => Promise<unknown>): Promise<void> => {
    ctx.set(DEFAULT_HEADERS);
    if (httpsEverywhere || ctx.protocol === "https") ctx.set("Strict-Transport-Security", HSTS_HEADER);
    await next();
  };
}
