import { useState } from "preact/hooks";
import { api } from "../api";
import { ErrorMessage, Notice, useTitle } from "../components/status";
import type { PageProps } from "../navigation";

/** The admin CLI's reset link (`/reset-password?token=…`): a new password, then signing in with it. */
export default function ResetPassword({ query }: PageProps) {
  useTitle("Choose a new password");
  const token = query.get("token") ?? "";
  const [password, setPassword] = useState("");
  const [confirmation, setConfirmation] = useState("");
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<unknown>(undefined);
  const [done, setDone] = useState(false);

  const submit = async (event: Event) => {
    event.preventDefault();
    if (password !== confirmation) {
      setError(new Error("mismatch"));
      return;
    }
    setBusy(true);
    setError(undefined);
    try {
      await api("POST", "/v1/auth/password-reset", { token, password });
      setDone(true);
    } catch (failure) {
      setError(failure);
    } finally {
      setBusy(false);
    }
  };

  if (!token)
    return (
      <section class="narrow">
        <h1>Choose a new password</h1>
        <p class="error" role="alert">
          This link has no reset token. Ask an administrator for a new one (<code>npm run admin -- reset-link</code>).
        </p>
      </section>
    );
  if (done)
    return (
      <section class="narrow">
        <h1>Password changed</h1>
        <Notice>Your new password is set, and every session of your account has ended.</Notice>
        <p>
          <a class="button primary" href="/sign-in">
            Sign in
          </a>
        </p>
      </section>
    );
  return (
    <section class="narrow" aria-labelledby="reset-title">
      <h1 id="reset-title">Choose a new password</h1>
      <form onSubmit={(event) => void submit(event)}>
        <label for="reset-password">New password</label>
        <input
          id="reset-password"
          type="password"
          autoComplete="new-password"
          required
          value={password}
          onInput={(event) => setPassword(event.currentTarget.value)}
        />
        <label for="reset-confirmation">The same password again</label>
        <input
          id="reset-confirmation"
          type="password"
          autoComplete="new-password"
          required
          value={confirmation}
          onInput={(event) => setConfirmation(event.currentTarget.value)}
        />
        {error instanceof Error && error.message === "mismatch" ? (
          <p class="error" role="alert">
            The two passwords differ.
          </p>
        ) : (
          <ErrorMessage error={error} />
        )}
        <button type="submit" class="primary" disabled={busy}>
          Set the new password
        </button>
      </form>
    </section>
  );
}
