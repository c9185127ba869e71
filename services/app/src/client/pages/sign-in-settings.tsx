import { useState } from "preact/hooks";
import { all, api } from "../api";
import { Breadcrumbs } from "../components/layout";
import { AdminPage, CopyButton, orgPath, ROLES, type Organization } from "../components/organization";
import { CardList, Loaded, useLoad, useTitle, useChanges, type Change } from "../components/status";
import type { PageProps } from "../navigation";

interface OidcProvider {
  id: string;
  label: string;
  issuer: string;
  clientId: string;
  redirectUri: string;
}
interface SamlProvider {
  id: string;
  label: string;
  entityID: string;
  ssoURL: string;
  defaultRole: string | null;
  status: string;
  service: { acsURL: string; entityID: string; startURL: string };
}

/** The sign-in methods an organization may allow, in words. */
const METHODS = [
  { value: "password", label: "E-mail and password", meaning: "accounts made through invite links, passwords set by people or by the admin CLI" },
  { value: "oidc", label: "OpenID Connect", meaning: "the providers below (Keycloak, Authentik, Google, …)" },
  { value: "saml", label: "SAML single sign-on", meaning: "the SAML identity providers below" },
];

/** How members sign in: the allowed methods, OpenID providers and SAML providers. Admins only. */
export default function SignInSettingsPage({ params }: PageProps) {
  useTitle("Sign-in settings");
  return (
    <AdminPage org={params.org!} what="Sign-in settings">
      {(organization, reload) => (
        <section aria-labelledby="sign-in-settings-title">
          <Breadcrumbs
            items={[{ label: "Home", href: "/" }, { label: organization.title, href: `${orgPath(organization.id)}/` }, { label: "Sign-in settings" }]}
          />
          <h1 id="sign-in-settings-title">Sign-in settings</h1>
          <Methods organization={organization} reload={reload} />
          <OidcProviders organization={organization} />
          <SamlProviders organization={organization} />
        </section>
      )}
    </AdminPage>
  );
}

/** The organization's `signInMethods` (`PATCH /v1/orgs/{id}`). */
function Methods({ organization, reload }: { organization: Organization; reload: () => void }) {
  const [methods, setMethods] = useState<string[]>(organization.signInMethods ?? METHODS.map((method) => method.value));
  const { change, busy, status } = useChanges(reload);
  const toggle = (method: string, on: boolean) => setMethods(on ? [...methods, method] : methods.filter((item) => item !== method));
  const save = (event: Event) => {
    event.preventDefault();
    void change(() => api("PATCH", `/v1/orgs/${encodeURIComponent(organization.id)}`, { signInMethods: methods }), "Sign-in methods saved.");
  };
  return (
    <form onSubmit={save}>
      <fieldset>
        <legend>Members may sign in with</legend>
        {METHODS.map((method) => (
          <div class="choice" key={method.value}>
            <input
              type="checkbox"
              id={`method-${method.value}`}
              checked={methods.includes(method.value)}
              onChange={(event) => toggle(method.value, event.currentTarget.checked)}
            />
            <label for={`method-${method.value}`}>
              {method.label} <span class="muted">— {method.meaning}</span>
            </label>
          </div>
        ))}
      </fieldset>
      {organization.sso ? (
        <p class="muted">This organization requires single sign-on: members other than admins act in it only after signing in through SSO.</p>
      ) : null}
      {status}
      <button type="submit" disabled={busy}>
        Save sign-in methods
      </button>
    </form>
  );
}

/** OpenID providers: the redirect URI to register, create (the secret never shown back), update, delete. */
function OidcProviders({ organization }: { organization: Organization }) {
  const base = `/v1/orgs/${encodeURIComponent(organization.id)}/oidc-providers`;
  const providers = useLoad(() => all<OidcProvider>(base), organization.id);
  const { change, busy, status } = useChanges(() => providers.reload());
  const [label, setLabel] = useState("");
  const [issuer, setIssuer] = useState("");
  const [clientId, setClientId] = useState("");
  const [clientSecret, setClientSecret] = useState("");
  const create = (event: Event) => {
    event.preventDefault();
    void change(async () => {
      await api("POST", base, { label, issuer, clientId, clientSecret });
      setLabel("");
      setIssuer("");
      setClientId("");
      setClientSecret("");
    }, `${label} added: people now see "Sign in with ${label}".`);
  };
  // Every provider sends browsers back to the same callback of the API (this origin).
  const redirectUri = providers.data?.[0]?.redirectUri ?? `${location.origin}/v1/auth/oidc/callback`;
  return (
    <>
      <h2 id="oidc-title">OpenID Connect providers</h2>
      <p>Register this redirect URI at the provider, for the client you name here:</p>
      <p>
        <code class="token-secret" id="oidc-redirect-uri">
          {redirectUri}
        </code>{" "}
        <CopyButton text={redirectUri} label="Copy the redirect URI" />
      </p>
      {status}
      <Loaded state={providers}>
        {(items) => (
          <CardList items={items} empty="No OpenID providers." keyOf={(provider) => provider.id}>
            {(provider) => <OidcProviderCard base={base} provider={provider} busy={busy} change={change} />}
          </CardList>
        )}
      </Loaded>
      <form aria-labelledby="oidc-add-title" onSubmit={create}>
        <h3 id="oidc-add-title">Add an OpenID provider</h3>
        <label for="oidc-label">Label (shown as "Sign in with …")</label>
        <input id="oidc-label" required maxLength={100} value={label} onInput={(event) => setLabel(event.currentTarget.value)} />
        <label for="oidc-issuer">Issuer URL</label>
        <input
          id="oidc-issuer"
          type="url"
          required
          placeholder="https://id.example.com/realms/docs"
          value={issuer}
          onInput={(event) => setIssuer(event.currentTarget.value)}
        />
        <label for="oidc-client-id">Client ID</label>
        <input id="oidc-client-id" required value={clientId} onInput={(event) => setClientId(event.currentTarget.value)} />
        <label for="oidc-client-secret">Client secret</label>
        <input
          id="oidc-client-secret"
          type="password"
          autoComplete="off"
          required
          value={clientSecret}
          onInput={(event) => setClientSecret(event.currentTarget.value)}
        />
        <button type="submit" class="primary" disabled={busy}>
          Add provider
        </button>
      </form>
    </>
  );
}

function OidcProviderCard({ base, provider, busy, change }: { base: string; provider: OidcProvider; busy: boolean; change: Change }) {
  const [editing, setEditing] = useState(false);
  const [label, setLabel] = useState(provider.label);
  const [issuer, setIssuer] = useState(provider.issuer);
  const [clientId, setClientId] = useState(provider.clientId);
  const [clientSecret, setClientSecret] = useState("");
  const id = `oidc-${provider.id}`;
  const save = (event: Event) => {
    event.preventDefault();
    void change(async () => {
      await api("PATCH", `${base}/${encodeURIComponent(provider.id)}`, { label, issuer, clientId, ...(clientSecret ? { clientSecret } : {}) });
      setClientSecret("");
      setEditing(false);
    }, `${label} saved.`);
  };
  return (
    <>
      <strong>{provider.label}</strong>
      <p class="muted">
        Issuer <code>{provider.issuer}</code> · client <code>{provider.clientId}</code>
      </p>
      <ProviderActions base={base} provider={provider} busy={busy} change={change} form={id} editing={editing} setEditing={setEditing} />
      <form id={id} hidden={!editing} onSubmit={save}>
        <label for={`${id}-label`}>Label</label>
        <input id={`${id}-label`} required value={label} onInput={(event) => setLabel(event.currentTarget.value)} />
        <label for={`${id}-issuer`}>Issuer URL</label>
        <input id={`${id}-issuer`} type="url" required value={issuer} onInput={(event) => setIssuer(event.currentTarget.value)} />
        <label for={`${id}-client-id`}>Client ID</label>
        <input id={`${id}-client-id`} required value={clientId} onInput={(event) => setClientId(event.currentTarget.value)} />
        <label for={`${id}-client-secret`}>New client secret (empty: keep the current one)</label>
        <input
          id={`${id}-client-secret`}
          type="password"
          autoComplete="off"
          value={clientSecret}
          onInput={(event) => setClientSecret(event.currentTarget.value)}
        />
        <button type="submit" disabled={busy}>
          Save {provider.label}
        </button>
      </form>
    </>
  );
}

/** SAML identity providers: the service's addresses to give the IdP, create, delete. */
function SamlProviders({ organization }: { organization: Organization }) {
  const base = `/v1/orgs/${encodeURIComponent(organization.id)}/saml`;
  const providers = useLoad(() => all<SamlProvider>(base), organization.id);
  const { change, busy, status } = useChanges(() => providers.reload());
  const [label, setLabel] = useState("");
  const [entityID, setEntityID] = useState("");
  const [ssoURL, setSsoURL] = useState("");
  const [certificate, setCertificate] = useState("");
  const [defaultRole, setDefaultRole] = useState("read");
  const create = (event: Event) => {
    event.preventDefault();
    void change(async () => {
      await api("POST", base, { label, entityID, ssoURL, certificate, defaultRole });
      setLabel("");
      setEntityID("");
      setSsoURL("");
      setCertificate("");
    }, `${label} added.`);
  };
  return (
    <>
      <h2 id="saml-title">SAML identity providers</h2>
      {status}
      <Loaded state={providers}>
        {(items) => (
          <CardList items={items} empty="No SAML providers." keyOf={(provider) => provider.id}>
            {(provider) => <SamlProviderCard base={base} provider={provider} busy={busy} change={change} />}
          </CardList>
        )}
      </Loaded>
      <form aria-labelledby="saml-add-title" onSubmit={create}>
        <h3 id="saml-add-title">Add a SAML provider</h3>
        <label for="saml-label">Label</label>
        <input id="saml-label" required maxLength={100} value={label} onInput={(event) => setLabel(event.currentTarget.value)} />
        <label for="saml-entity-id">Identity provider entity ID</label>
        <input id="saml-entity-id" required value={entityID} onInput={(event) => setEntityID(event.currentTarget.value)} />
        <label for="saml-sso-url">Identity provider sign-in URL (https)</label>
        <input id="saml-sso-url" type="url" required value={ssoURL} onInput={(event) => setSsoURL(event.currentTarget.value)} />
        <label for="saml-certificate">Identity provider certificate (PEM)</label>
        <textarea id="saml-certificate" required rows={4} value={certificate} onInput={(event) => setCertificate(event.currentTarget.value)} />
        <label for="saml-default-role">Role of new members</label>
        <select id="saml-default-role" value={defaultRole} onChange={(event) => setDefaultRole(event.currentTarget.value)}>
          {ROLES.map((role) => (
            <option key={role.value} value={role.value}>
              {role.label}
            </option>
          ))}
        </select>
        <button type="submit" disabled={busy}>
          Add SAML provider
        </button>
      </form>
    </>
  );
}

/** Only the fields typed: an empty one is left as it is (the API refuses empty values). */
function typed(fields: Record<string, string>): Record<string, string> {
  return Object.fromEntries(Object.entries(fields).filter(([, value]) => value.trim() !== ""));
}

function SamlProviderCard({ base, provider, busy, change }: { base: string; provider: SamlProvider; busy: boolean; change: Change }) {
  const [editing, setEditing] = useState(false);
  const [label, setLabel] = useState(provider.label);
  const [entityID, setEntityID] = useState(provider.entityID);
  const [ssoURL, setSsoURL] = useState(provider.ssoURL);
  const [certificate, setCertificate] = useState("");
  const [defaultRole, setDefaultRole] = useState(provider.defaultRole ?? "read");
  const id = `saml-${provider.id}`;
  const save = (event: Event) => {
    event.preventDefault();
    void change(async () => {
      await api("PATCH", `${base}/${encodeURIComponent(provider.id)}`, { ...typed({ label, entityID, ssoURL, certificate }), defaultRole });
      setCertificate("");
      setEditing(false);
    }, `${label} saved.`);
  };
  return (
    <>
      <strong>{provider.label}</strong> <span class="muted">({provider.status === "active" ? "in use" : "nobody signed in through it yet"})</span>
      <dl class="facts">
        <dt>Service provider entity ID</dt>
        <dd>
          <code>{provider.service.entityID}</code>
        </dd>
        <dt>Assertion consumer service URL</dt>
        <dd>
          <code>{provider.service.acsURL}</code>
        </dd>
        <dt>Identity provider</dt>
        <dd>
          <code>{provider.entityID || "not set"}</code> at <code>{provider.ssoURL || "not set"}</code>
        </dd>
      </dl>
      <ProviderActions base={base} provider={provider} busy={busy} change={change} form={id} editing={editing} setEditing={setEditing} />
      <form id={id} hidden={!editing} onSubmit={save}>
        <label for={`${id}-label`}>Label</label>
        <input id={`${id}-label`} required maxLength={100} value={label} onInput={(event) => setLabel(event.currentTarget.value)} />
        <label for={`${id}-entity-id`}>Identity provider entity ID</label>
        <input id={`${id}-entity-id`} value={entityID} onInput={(event) => setEntityID(event.currentTarget.value)} />
        <label for={`${id}-sso-url`}>Identity provider sign-in URL</label>
        <input id={`${id}-sso-url`} type="url" value={ssoURL} onInput={(event) => setSsoURL(event.currentTarget.value)} />
        <label for={`${id}-certificate`}>New certificate (PEM; empty: keep the current one)</label>
        <textarea id={`${id}-certificate`} rows={4} value={certificate} onInput={(event) => setCertificate(event.currentTarget.value)} />
        <label for={`${id}-default-role`}>Role of new members</label>
        <select id={`${id}-default-role`} value={defaultRole} onChange={(event) => setDefaultRole(event.currentTarget.value)}>
          {ROLES.map((role) => (
            <option key={role.value} value={role.value}>
              {role.label}
            </option>
          ))}
        </select>
        <button type="submit" disabled={busy}>
          Save {provider.label}
        </button>
      </form>
    </>
  );
}

/** A provider's Edit (showing its form, `form`) and Delete buttons, each naming the provider. */
function ProviderActions({
  base,
  provider,
  busy,
  change,
  form,
  editing,
  setEditing,
}: {
  base: string;
  provider: { id: string; label: string };
  busy: boolean;
  change: Change;
  form: string;
  editing: boolean;
  setEditing: (editing: boolean) => void;
}) {
  return (
    <>
      <button type="button" aria-expanded={editing} aria-controls={form} onClick={() => setEditing(!editing)}>
        Edit <span class="visually-hidden">{provider.label}</span>
      </button>{" "}
      <button
        type="button"
        class="danger"
        disabled={busy}
        aria-label={`Delete ${provider.label}`}
        onClick={() => void change(() => api("DELETE", `${base}/${encodeURIComponent(provider.id)}`), `${provider.label} deleted.`)}
      >
        Delete
      </button>
    </>
  );
}
