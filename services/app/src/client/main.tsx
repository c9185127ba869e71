import { render } from "preact";
import { useEffect, useRef, useState } from "preact/hooks";
import { readSession, type Session } from "./api";
import { Layout } from "./components/layout";
import { ErrorMessage } from "./components/status";
import { isAppLink, navigate, onNavigation, type PageProps } from "./navigation";
import { matchRoute } from "./router";
import type { ComponentType } from "preact";

/**
 * The shell: reads the session once, then shows the page of the location. A page that needs a
 * session, opened without one, shows the sign-in page in its place (coming back to it after).
 */
function App() {
  const [location, setLocation] = useState(() => window.location.pathname + window.location.search);
  const [session, setSession] = useState<Session | null | undefined>(undefined);
  const [failure, setFailure] = useState<unknown>(undefined);
  const [loaded, setLoaded] = useState<{ key: string; Page: ComponentType<PageProps> } | undefined>(undefined);

  useEffect(() => onNavigation(() => setLocation(window.location.pathname + window.location.search)), []);
  useEffect(() => {
    readSession().then(setSession, setFailure);
  }, []);

  const url = new URL(location, window.location.origin);
  const { route, params } = matchRoute(url.pathname);
  const signInInstead = session === null && !route.public;
  const wanted = signInInstead ? matchRoute("/sign-in").route : route;
  const key = wanted.pattern;
  useEffect(() => {
    if (session === undefined) return;
    let current = true;
    wanted.page().then(
      (module) => current && setLoaded({ key, Page: module.default }),
      (error: unknown) => current && setFailure(error),
    );
    return () => {
      current = false;
    };
  }, [key, session === undefined]);
  // Each page opened in the app starts at the top with the focus on its content (the first one,
  // a real page load, leaves the focus where browsers put it: the skip link comes first).
  const firstLocation = useRef(location);
  useEffect(() => {
    if (location === firstLocation.current) return;
    firstLocation.current = "";
    document.getElementById("main")?.focus({ preventScroll: true });
    window.scrollTo(0, 0);
  }, [location]);

  if (failure !== undefined)
    return (
      <Layout session={null} setSession={setSession}>
        <ErrorMessage error={failure} />
      </Layout>
    );
  if (session === undefined || loaded?.key !== key)
    return (
      <Layout session={session ?? null} setSession={setSession}>
        <p class="loading">Loading…</p>
      </Layout>
    );
  const query = signInInstead ? new URLSearchParams({ return: location }) : url.searchParams;
  const Page = loaded.Page;
  return (
    <Layout session={session} setSession={setSession}>
      <Page key={location} params={params} query={query} session={session} setSession={setSession} />
    </Layout>
  );
}

// Links to the app's own pages open without reloading it; others (the API, other sites) as usual.
document.addEventListener("click", (event) => {
  if (event.defaultPrevented || event.button !== 0 || event.metaKey || event.ctrlKey || event.shiftKey || event.altKey) return;
  const link = (event.target as Element | null)?.closest?.("a");
  if (!link || link.target || link.hasAttribute("download")) return;
  const url = new URL(link.href, window.location.href);
  if (!isAppLink(url)) return;
  event.preventDefault();
  navigate(url.pathname + url.search + url.hash);
});

// The HTML's "Loading" line goes: Preact renders beside what it did not render itself.
const root = document.getElementById("app")!;
root.replaceChildren();
render(<App />, root);
