// Moving between the app's pages without reloading it, and what every page receives. Pages import
// this module, never router.tsx (which imports them).
import type { Session } from "./api";

/** What every page receives: its path's parameters, the query, and the session (null: signed out). */
export interface PageProps {
  params: Record<string, string>;
  query: URLSearchParams;
  session: Session | null;
  /** Tells the shell the person signed in or out (their session, or null). */
  setSession: (session: Session | null) => void;
}

const NAVIGATED = "imprint:navigated";

/** Opens an app path without reloading the page (`replace`: instead of the current history entry). */
export function navigate(to: string, options: { replace?: boolean } = {}): void {
  if (options.replace) history.replaceState(null, "", to);
  else history.pushState(null, "", to);
  window.dispatchEvent(new Event(NAVIGATED));
}

/** Calls `listener` whenever the location changes (navigate, back and forward); returns the unsubscribe. */
export function onNavigation(listener: () => void): () => void {
  window.addEventListener(NAVIGATED, listener);
  window.addEventListener("popstate", listener);
  return () => {
    window.removeEventListener(NAVIGATED, listener);
    window.removeEventListener("popstate", listener);
  };
}

/** Whether a link's target is one of the app's pages (same origin, not the API's /v1 nor a download). */
export function isAppLink(url: URL): boolean {
  return url.origin === location.origin && !url.pathname.startsWith("/v1/");
}

/** A path the app may go back to after signing in: one of its own, never another origin's. */
export function safeReturnPath(raw: string | null): string {
  if (!raw || !raw.startsWith("/") || raw.startsWith("//") || raw.startsWith("/\\") || raw.startsWith("/v1/")) return "/";
  return raw;
}

/** The path to sign in and come back to `returnTo`. */
export function signInPath(returnTo: string): string {
  return returnTo === "/" ? "/sign-in" : `/sign-in?return=${encodeURIComponent(returnTo)}`;
}
