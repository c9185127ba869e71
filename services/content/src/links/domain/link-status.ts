import { AppError } from "@imprint/runtime";
import type { ExtractedLink } from "./extract.js";
import type { LinkGraph } from "./model.js";

export const LINK_STATUSES = ["ok", "broken", "in-app"] as const;
export type LinkStatusName = (typeof LINK_STATUSES)[number];

/** The web application's base URL: links under it point into the app (`in-app`). */
export interface AppLocation {
  origin: string;
  /** Path prefix without trailing slash ("" for the whole origin). */
  path: string;
}

/** Parses the request's app URL; empty means no link is in-app. */
export function appLocationOf(appUrl: string): AppLocation | undefined {
  if (appUrl === "") return undefined;
  let url: URL;
  try {
    url = new URL(appUrl);
  } catch {
    throw AppError.invalidArgument("app_url: must be an absolute http(s) URL");
  }
  if (url.protocol !== "http:" && url.protocol !== "https:") throw AppError.invalidArgument("app_url: must be an absolute http(s) URL");
  return { origin: url.origin, path: url.pathname.replace(/\/+$/, "") };
}

function isInApp(target: string, app: AppLocation | undefined): boolean {
  if (!app) return false;
  let url: URL;
  try {
    url = new URL(target);
  } catch {
    // Relative and malformed URLs name no location of the app.
    return false;
  }
  if (url.origin !== app.origin) return false;
  return app.path === "" || url.pathname === app.path || url.pathname.startsWith(`${app.path}/`);
}

/**
 * A link's status in the graph's revision: a page or file that is not in the revision is
 * `broken`; a URL into the app is `in-app`; anything else is `ok` (external URLs are not fetched).
 */
export function linkStatus(link: ExtractedLink, graph: LinkGraph, app: AppLocation | undefined): LinkStatusName {
  switch (link.kind) {
    case "page":
      return graph.index.byId.has(link.target) ? "ok" : "broken";
    case "file":
      return graph.fileIds.has(link.target) ? "ok" : "broken";
    case "url":
      return isInApp(link.target, app) ? "in-app" : "ok";
  }
}
