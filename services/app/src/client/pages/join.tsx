import { useState } from "preact/hooks";
import { api, rememberCsrfToken, type Session } from "../api";
import { ErrorMessage, useTitle } from "../components/status";
import { navigate, signInPath, type PageProps } from "../navigation";

/**
 * An invite link (`/join/{organizationId}/{inviteId}`): a new account joins the organization
 * through it and is signed in; someone signed in joins with their account. Someone who has an
 * account but is signed out signs in first (the API answers 409 to a new account with their e-mail).
 */
export default function Join({ params, session, setSession }: PageProps) {
  useTitle("Join");
  const organizationPath = `/o/${encodeURIComponent(params.org!)}/`;
  const [displayName, setDisplayName] = useState("");
  const [email, setEmail] = useState("");
  const [password, setPassword] = useState("");
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<unknown>(undefined);

  // Someone signed in joins with their own account (GitBook's joinOrganizationWithInvite).
  const joinAsMember = async () => {
    setBusy(true);
    setError(undefined);
    try {
      await api("POST", `/v1/orgs/${encodeURIComponent(params.org!)}/invites/${encodeURIComponent(params.invite!)}`);
      navigate(organizationPath, { replace: true });
    } catch (failure) {
      setError(failure);
      setBusy(false);
    }
  };

  const submit = async (event: Event) => {
    event.preventDefault();
    setBusy(true);
    setError(undefined);
    try {
      const joined = await api<Session>("POST", "/v1/auth/join", { organizationId: params.org, invite: params.invite, email, password, displayName });
      rememberCsrfToken(joined.csrfToken);
      setSession(joined);
      navigate(organizationPath, { replace: true });
    } catch (failure) {
      setError(failure);
      setBusy(false);
    }
  };

  return (
    <section class="narrow" aria-labelledby="join-title">
      <h1 id="join-title">Join on Imprint</h1>
      {session ? (
        <>
          <p>You were invited. Join as {session.user.displayName}, the account you are signed in with.</p>
          <ErrorMessage error={error} />
          <button type="button" class="primary" disabled={busy} onClick={() => void joinAsMember()}>
            Join
          </button>
        </>
      ) : (
        <>
          <p>You were invited. Create your account to join.</p>
          <form onSubmit={(event) => void submit(event)}>
            <label for="join-name">Your name</label>
            <input id="join-name" autoComplete="name" required value={displayName} onInput={(event) => setDisplayName(event.currentTarget.value)} />
            <label for="join-email">E-mail</label>
            <input id="join-email" type="email" autoComplete="email" required value={email} onInput={(event) => setEmail(event.currentTarget.value)} />
            <label for="join-password">Password</label>
            <input
              id="join-password"
              type="password"
              autoComplete="new-password"
              required
              value={password}
              onInput={(event) => setPassword(event.currentTarget.value)}
            />
            <ErrorMessage error={error} />
            <button type="submit" class="primary" disabled={busy}>
              Create my account and join
            </button>
          </form>
          <p class="muted">
            Already have an account? <a href={signInPath(`/join/${encodeURIComponent(params.org!)}/${encodeURIComponent(params.invite!)}`)}>Sign in</a> to join
            with it.
          </p>
        </>
      )}
    </section>
  );
}
