import type { ComponentType } from "preact";
import type { PageProps } from "./navigation";

interface Route {
  /**
   * `/o/:org/c/:collection/`: `:name` matches one segment, a last `*name` the rest of the path
   * (none or more segments, joined by `/`); a trailing slash is optional.
   */
  pattern: string;
  /** The page's module, loaded when first opened: each page is a chunk of its own. */
  page: () => Promise<{ default: ComponentType<PageProps> }>;
  /** Opened without a session too (else the shell answers the sign-in page in its place). */
  public?: boolean;
}

/**
 * The app's pages, one line each. A new page: a file in pages/ whose default export takes
 * PageProps, and its line here (more specific patterns first).
 */
export const ROUTES: Route[] = [
  { pattern: "/sign-in", page: () => import("./pages/sign-in"), public: true },
  { pattern: "/reset-password", page: () => import("./pages/reset-password"), public: true },
  { pattern: "/join/:org/:invite", page: () => import("./pages/join"), public: true },
  { pattern: "/account/tokens", page: () => import("./pages/account-tokens") },
  { pattern: "/", page: () => import("./pages/home") },
  { pattern: "/integrations/:name", page: () => import("./pages/integration-listing") },
  { pattern: "/o/:org/c/:collection", page: () => import("./pages/collection") },
  { pattern: "/o/:org/openapi/:slug", page: () => import("./pages/openapi") },
  { pattern: "/o/:org/openapi", page: () => import("./pages/openapi") },
  { pattern: "/o/:org/s/:space/~/history", page: () => import("./pages/space-history") },
  { pattern: "/o/:org/s/:space/~/changes", page: () => import("./pages/change-requests") },
  { pattern: "/o/:org/s/:space/~/changes/:changeRequest", page: () => import("./pages/change-request") },
  { pattern: "/o/:org/s/:space/~/edit/:changeRequest/*path", page: () => import("./pages/page-editor") },
  { pattern: "/o/:org/s/:space/~/changes/:changeRequest/*path", page: () => import("./pages/space") },
  { pattern: "/o/:org/s/:space/~/revisions/:revision/*path", page: () => import("./pages/space") },
  { pattern: "/o/:org/s/:space/*path", page: () => import("./pages/space") },
  { pattern: "/o/:org/sites", page: () => import("./pages/sites") },
  { pattern: "/o/:org/sites/:site", page: () => import("./pages/site") },
  { pattern: "/o/:org/sites/:site/preview", page: () => import("./pages/site-preview") },
  { pattern: "/o/:org/members", page: () => import("./pages/members") },
  { pattern: "/o/:org/settings/sign-in", page: () => import("./pages/sign-in-settings") },
  { pattern: "/o/:org/integrations", page: () => import("./pages/integrations") },
  { pattern: "/o/:org/integrations/:name", page: () => import("./pages/integration") },
  { pattern: "/o/:org", page: () => import("./pages/organization") },
];

/** The page shown for a path no route matches. */
export const NOT_FOUND: Route = { pattern: "", page: () => import("./pages/not-found"), public: true };

/** The route of `path` and its parameters (decoded), else NOT_FOUND. */
export function matchRoute(path: string): { route: Route; params: Record<string, string> } {
  const segments = path.split("/").filter(Boolean);
  for (const route of ROUTES) {
    const parts = route.pattern.split("/").filter(Boolean);
    const rest = parts[parts.length - 1]?.startsWith("*") ? parts.pop()!.slice(1) : undefined;
    if (rest === undefined ? parts.length !== segments.length : segments.length < parts.length) continue;
    const params: Record<string, string> = {};
    if (rest !== undefined) {
      try {
        params[rest] = segments.slice(parts.length).map(decodeURIComponent).join("/");
      } catch {
        continue;
      }
    }
    const matched = parts.every((part, index) => {
      const segment = segments[index]!;
      if (!part.startsWith(":")) return part === segment;
      try {
        params[part.slice(1)] = decodeURIComponent(segment);
        return true;
      } catch {
        return false;
      }
    });
    if (matched) return { route, params };
  }
  return { route: NOT_FOUND, params: {} };
}
