import { useState } from "preact/hooks";
import { api } from "../api";
import { Breadcrumbs } from "../components/layout";
import { ErrorMessage, Loaded, Notice, useLoad, useTitle } from "../components/status";
import type { PageProps } from "../navigation";

interface ApiToken {
  id: string;
  label: string;
  lastFour: string;
  createdAt: string;
  lastUsedAt?: string;
  expiresAt?: string;
  /** The secret: only in the answer that created it. */
  token?: string;
}

const when = (iso: string | undefined) => (iso ? new Date(iso).toLocaleString() : "never");

/** The person's API tokens: list, create (the secret shown once, with a copy button) and revoke. */
export default function AccountTokens(_props: PageProps) {
  useTitle("API tokens");
  const tokens = useLoad(() => api<{ items: ApiToken[] }>("GET", "/v1/user/tokens"), "tokens");
  const [label, setLabel] = useState("");
  const [created, setCreated] = useState<ApiToken | undefined>(undefined);
  const [copied, setCopied] = useState(false);
  const [error, setError] = useState<unknown>(undefined);
  const [busy, setBusy] = useState(false);

  const create = async (event: Event) => {
    event.preventDefault();
    setBusy(true);
    setError(undefined);
    setCopied(false);
    try {
      setCreated(await api<ApiToken>("POST", "/v1/user/tokens", { label }));
      setLabel("");
      tokens.reload();
    } catch (failure) {
      setError(failure);
    } finally {
      setBusy(false);
    }
  };
  const revoke = async (token: ApiToken) => {
    setError(undefined);
    try {
      await api("DELETE", `/v1/user/tokens/${encodeURIComponent(token.id)}`);
      if (created?.id === token.id) setCreated(undefined);
      tokens.reload();
    } catch (failure) {
      setError(failure);
    }
  };
  const copy = async (secret: string) => {
    try {
      await navigator.clipboard.writeText(secret);
      setCopied(true);
    } catch {
      setError(new Error("copy"));
    }
  };

  return (
    <section aria-labelledby="tokens-title">
      <Breadcrumbs items={[{ label: "Home", href: "/" }, { label: "API tokens" }]} />
      <h1 id="tokens-title">API tokens</h1>
      <p class="muted">
        A token acts as you on the API (<code>Authorization: Bearer …</code>). Keep it secret; revoke one you no longer use.
      </p>
      <form class="inline-form" onSubmit={(event) => void create(event)}>
        <label for="token-label">Label</label>
        <input id="token-label" required maxLength={255} value={label} onInput={(event) => setLabel(event.currentTarget.value)} />
        <button type="submit" class="primary" disabled={busy}>
          Create token
        </button>
      </form>
      {created?.token ? (
        <div class="secret" role="region" aria-label="New token">
          <p>
            Your new token <strong>{created.label}</strong>. Copy it now: it is not shown again.
          </p>
          <p>
            <code class="token-secret">{created.token}</code>{" "}
            <button type="button" onClick={() => void copy(created.token!)}>
              Copy
            </button>
          </p>
          {copied ? <Notice>Copied.</Notice> : null}
        </div>
      ) : null}
      {error instanceof Error && error.message === "copy" ? (
        <p class="error" role="alert">
          The browser refused to copy: select the token and copy it yourself.
        </p>
      ) : (
        <ErrorMessage error={error} />
      )}
      <Loaded state={tokens}>
        {(answer) =>
          answer.items.length === 0 ? (
            <p>You have no API tokens.</p>
          ) : (
            <table class="tokens">
              <caption class="visually-hidden">Your API tokens</caption>
              <thead>
                <tr>
                  <th scope="col">Label</th>
                  <th scope="col">Ends with</th>
                  <th scope="col">Created</th>
                  <th scope="col">Last used</th>
                  <th scope="col">Expires</th>
                  <th scope="col">
                    <span class="visually-hidden">Actions</span>
                  </th>
                </tr>
              </thead>
              <tbody>
                {answer.items.map((token) => (
                  <tr key={token.id}>
                    <td>{token.label}</td>
                    <td>
                      <code>…{token.lastFour}</code>
                    </td>
                    <td>{when(token.createdAt)}</td>
                    <td>{when(token.lastUsedAt)}</td>
                    <td>{when(token.expiresAt)}</td>
                    <td>
                      <button type="button" class="danger" aria-label={`Revoke ${token.label}`} onClick={() => void revoke(token)}>
                        Revoke
                      </button>
                    </td>
                  </tr>
                ))}
              </tbody>
            </table>
          )
        }
      </Loaded>
    </section>
  );
}
