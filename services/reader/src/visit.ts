import { createHash } from "node:crypto";
import type { ParameterizedContext } from "koa";
import type { ConditionContext, ConditionValue } from "@imprint/document";
import type { ReaderData } from "./data.js";
import type { ReaderSite } from "./site.js";

/**
 * Who is reading which site: the site (by custom hostname, else by the path after the reader's own
 * base), the base path of its pages (share key included), and the visitor's claims for the
 * site's conditions. Every refusal is decided here, before anything of the site is read.
 */
export interface Visit {
  site: ReaderSite;
  /** The path every page of the site starts with, share key included, ending in "/". */
  base: string;
  /** Scheme and host of the site's pages as the visitor reaches them. */
  origin: string;
  /** The path's segments after `base`, decoded. */
  segments: string[];
  /** What the site's conditions see of this visitor. */
  context: ConditionContext;
  /** Names the claims (empty for a visitor without any): part of every cache key of what they decide. */
  contextKey: string;
  /**
   * Until when (ms since the epoch) the answer to this request may be replayed to the same request
   * (same host, path and cookies: kept-answers.ts): always for a public site, until its token
   * expires for a visitor of a visitor-auth site signed in with a token of the site's key; never
   * (undefined) for the rest, e.g. a member's token, which publishing checks at every request.
   */
  keepableUntil: number | undefined;
}

export type VisitOutcome = { kind: "visit"; visit: Visit } | { kind: "not_found" } | { kind: "redirect"; url: string } | { kind: "sign_in"; site: ReaderSite };

/** Where the reader is reached: its public URL's origin and path (e.g. "/sites" behind a shared host). */
export interface ReaderAddress {
  /** e.g. https://docs.example.com */
  origin: string;
  /** "" or a path without a trailing slash, e.g. "/sites". */
  path: string;
  /** Host names that mean the reader itself (its public host, loopback), lower-case, without port. */
  ownHosts: Set<string>;
}

export function readerAddress(publicUrl: string): ReaderAddress {
  const url = new URL(publicUrl);
  return {
    origin: url.origin,
    path: url.pathname.replace(/\/+$/, ""),
    ownHosts: new Set([url.hostname.toLowerCase().replace(/^\[|\]$/g, ""), "127.0.0.1", "localhost", "::1"]),
  };
}

/** The cookie keeping a visitor-auth token, one per site. */
const tokenCookie = (siteId: string) => `imprint_visitor_${siteId.replace(/-/g, "")}`;
/** The cookie keeping unsigned claims (`visitor.*` query parameters), one per site. */
const claimsCookie = (siteId: string) => `imprint_claims_${siteId.replace(/-/g, "")}`;

/** Bounds of unsigned claims: how many a visitor may set, and their names' and values' lengths. */
const MAX_UNSIGNED_CLAIMS = 32;
const CLAIM_NAME = /^[A-Za-z_][A-Za-z0-9_]{0,63}$/;
const MAX_CLAIM_VALUE = 256;

/** A query or cookie value as a claim: booleans and numbers as such, anything else as text. */
function claimValue(raw: string): ConditionValue {
  if (raw === "true") return true;
  if (raw === "false") return false;
  if (/^-?\d{1,15}(\.\d{1,15})?$/.test(raw)) return Number(raw);
  return raw;
}

/** Unsigned claims: those kept in the cookie, then `visitor.<name>=value` query parameters over them. */
function unsignedClaims(ctx: ParameterizedContext, siteId: string): { claims: Record<string, string>; changed: boolean } {
  const claims: Record<string, string> = {};
  const kept = ctx.cookies.get(claimsCookie(siteId));
  if (kept) {
    try {
      const parsed = JSON.parse(Buffer.from(kept, "base64url").toString("utf8")) as unknown;
      if (parsed && typeof parsed === "object" && !Array.isArray(parsed)) {
        for (const [name, value] of Object.entries(parsed)) {
          if (CLAIM_NAME.test(name) && typeof value === "string" && value.length <= MAX_CLAIM_VALUE) claims[name] = value;
        }
      }
    } catch {
      // A cookie that is not ours (or was tampered with) is ignored, as if absent.
    }
  }
  let changed = false;
  for (const [parameter, value] of Object.entries(ctx.query)) {
    if (!parameter.startsWith("visitor.")) continue;
    const name = parameter.slice("visitor.".length);
    const text = Array.isArray(value) ? value[value.length - 1] : value;
    if (!CLAIM_NAME.test(name) || typeof text !== "string" || text.length > MAX_CLAIM_VALUE) continue;
    if (!(name in claims) && Object.keys(claims).length >= MAX_UNSIGNED_CLAIMS) continue;
    if (claims[name] !== text) changed = true;
    claims[name] = text;
  }
  return { claims, changed };
}

function contextKeyOf(claims: Record<string, unknown>): string {
  if (Object.keys(claims).length === 0) return "";
  const sorted = JSON.stringify(claims, (_key, value: unknown) =>
    value && typeof value === "object" && !Array.isArray(value) ? Object.fromEntries(Object.entries(value).sort(([a], [b]) => a.localeCompare(b))) : value,
  );
  return createHash("sha256").update(sorted).digest("base64url").slice(0, 22);
}

/** Claims every token carries that say nothing about the visitor (left out of cache keys, so one visitor's renewed token reuses their pages). */
const TOKEN_BOOKKEEPING = new Set(["exp", "iat", "nbf", "jti"]);

/**
 * Resolves a request to the site it reads and the visitor reading it. Anything refused answers
 * as not found, except a visitor-auth site without a valid token (its fallback URL, or sign-in).
 */
export async function resolveVisit(ctx: ParameterizedContext, data: ReaderData, address: ReaderAddress): Promise<VisitOutcome> {
  const host = ctx.hostname.toLowerCase();
  let segments: string[];
  try {
    segments = ctx.path
      .split("/")
      .filter((segment) => segment !== "")
      .map((segment) => decodeURIComponent(segment));
  } catch {
    return { kind: "not_found" };
  }
  let site: ReaderSite | null;
  let base: string;
  let origin: string;
  if (host !== "" && !address.ownHosts.has(host)) {
    site = await data.site({ hostname: host, organizationId: "", site: "" });
    base = "/";
    origin = `${ctx.protocol}://${ctx.host}`;
  } else {
    const prefix = address.path === "" ? [] : address.path.split("/").filter(Boolean);
    if (prefix.some((part, index) => segments[index] !== part)) return { kind: "not_found" };
    segments = segments.slice(prefix.length);
    const [organizationId = "", siteSegment = ""] = segments;
    site = siteSegment ? await data.site({ hostname: "", organizationId, site: siteSegment }) : null;
    base = `${address.path}/${encodeURIComponent(organizationId)}/${encodeURIComponent(siteSegment)}/`;
    origin = address.origin;
    segments = segments.slice(2);
  }
  if (!site) return { kind: "not_found" };
  // Cookies are Secure wherever the visitor's URL is https (the reader's public URL, or the request's scheme).
  const secure = origin.startsWith("https:");

  // Share-link sites are read through an active link's key, the first segment after the base.
  if (site.visibility === "share-link") {
    const key = segments[0] ?? "";
    if (!key || key.length > 128 || !(await data.shareKeyActive(site.siteId, key))) return { kind: "not_found" };
    base = `${base}${encodeURIComponent(key)}/`;
    segments = segments.slice(1);
  }

  let signed: Record<string, ConditionValue> = {};
  let keepableUntil = site.visibility === "public" ? Number.POSITIVE_INFINITY : undefined;
  if (site.visibility === "visitor-auth") {
    const cookieName = tokenCookie(site.siteId);
    const fromQuery = typeof ctx.query.jwt_token === "string" ? ctx.query.jwt_token : "";
    const token = fromQuery || ctx.cookies.get(cookieName) || "";
    const fromSiteKey = token ? await data.siteTokenClaims(token, site.visitorAuthKey) : null;
    const verified = fromSiteKey ?? (token ? await data.memberClaims(site.organizationId, token) : null);
    if (!verified) {
      if (!site.fallbackUrl) return { kind: "sign_in", site };
      const fallback = new URL(site.fallbackUrl);
      fallback.searchParams.set("location", `${origin}${ctx.path}`);
      return { kind: "redirect", url: fallback.toString() };
    }
    if (fromQuery) {
      ctx.cookies.set(cookieName, fromQuery, { httpOnly: true, sameSite: "lax", secure, path: base, expires: new Date(verified.exp * 1000), overwrite: true });
    }
    signed = Object.fromEntries(Object.entries(verified.claims).filter(([name]) => !TOKEN_BOOKKEEPING.has(name)));
    if (fromSiteKey) keepableUntil = fromSiteKey.exp * 1000;
  }

  const claims: Record<string, ConditionValue> = { ...signed };
  if (site.adaptiveContentEnabled) {
    const unsigned = unsignedClaims(ctx, site.siteId);
    if (unsigned.changed) {
      ctx.cookies.set(claimsCookie(site.siteId), Buffer.from(JSON.stringify(unsigned.claims)).toString("base64url"), {
        httpOnly: true,
        sameSite: "lax",
        secure,
        path: base,
        overwrite: true,
      });
    }
    if (Object.keys(unsigned.claims).length > 0) {
      claims.unsigned = Object.fromEntries(Object.entries(unsigned.claims).map(([name, value]) => [name, claimValue(value)]));
    }
  }
  return { kind: "visit", visit: { site, base, origin, segments, context: { visitor: { claims } }, contextKey: contextKeyOf(claims), keepableUntil } };
}
