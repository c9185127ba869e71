import { useEffect, useState } from "preact/hooks";
import { api, rememberCsrfToken, type Session } from "../api";
import { ErrorMessage, useTitle } from "../components/status";
import { navigate, safeReturnPath, type PageProps } from "../navigation";

interface Provider {
  id: string;
  label: string;
  protocol: string;
  startURL: string;
}

/** The organization a return path is in (`/o/{org}/…`), whose OpenID providers are offered. */
function organizationOf(path: string): string | undefined {
  const match = /^\/o\/([^/?#]+)/.exec(path);
  if (!match) return undefined;
  try {
    return decodeURIComponent(match[1]!);
  } catch {
    return undefined;
  }
}

/**
 * Sign in with an e-mail and a password, or with one of the organization's OpenID providers; then
 * back to the page asked for (`?return=`).
 */
export default function SignIn({ query, setSession }: PageProps) {
  useTitle("Sign in");
  const returnTo = safeReturnPath(query.get("return"));
  const organizationId = organizationOf(returnTo);
  const [email, setEmail] = useState("");
  const [password, setPassword] = useState("");
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<unknown>(undefined);
  const [providers, setProviders] = useState<Provider[]>([]);

  useEffect(() => {
    if (!organizationId) return;
    // Single sign-on is an offer: an organization that cannot be read leaves the password form alone.
    api<{ items: Provider[] }>("GET", `/v1/orgs/${encodeURIComponent(organizationId)}/sso`).then(
      (answer) => setProviders(answer.items.filter((provider) => provider.protocol === "oidc")),
      () => setProviders([]),
    );
  }, [organizationId]);

  const submit = async (event: Event) => {
    event.preventDefault();
    setBusy(true);
    setError(undefined);
    try {
      const session = await api<Session>("POST", "/v1/auth/password", { email, password });
      rememberCsrfToken(session.csrfToken);
      setSession(session);
      navigate(returnTo, { replace: true });
      // Signed in where the page was asked for, the address stays: the page replaces this form, and
      // the focus goes to it rather than to nowhere.
      window.setTimeout(() => document.getElementById("main")?.focus(), 0);
    } catch (failure) {
      setError(failure);
      setBusy(false);
    }
  };

  return (
    <section class="narrow" aria-labelledby="sign-in-title">
      <h1 id="sign-in-title">Sign in to Imprint</h1>
      <form onSubmit={(event) => void submit(event)}>
        <label for="sign-in-email">E-mail</label>
        <input
          id="sign-in-email"
          name="email"
          type="email"
          autoComplete="username"
          required
          value={email}
          onInput={(event) => setEmail(event.currentTarget.value)}
        />
        <label for="sign-in-password">Password</label>
        <input
          id="sign-in-password"
          name="password"
          type="password"
          autoComplete="current-password"
          required
          value={password}
          onInput={(event) => setPassword(event.currentTarget.value)}
        />
        <ErrorMessage error={error} />
        <button type="submit" class="primary" disabled={busy}>
          {busy ? "Signing in…" : "Sign in"}
        </button>
      </form>
      {providers.length > 0 ? (
        <div class="providers">
          <p class="muted">Or</p>
          {providers.map((provider) => (
            <a key={provider.id} class="button" href={`/v1/auth/oidc/${encodeURIComponent(provider.id)}/start?return=${encodeURIComponent(returnTo)}`}>
              Sign in with {provider.label}
            </a>
          ))}
        </div>
      ) : null}
    </section>
  );
}
