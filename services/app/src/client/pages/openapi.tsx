import { useState } from "preact/hooks";
import { all, api } from "../api";
import { Breadcrumbs } from "../components/layout";
import { ErrorMessage, Loaded, useChanges, useLoad, useTitle } from "../components/status";
import { navigate, type PageProps } from "../navigation";

interface Named {
  id: string;
  title: string;
}
/** GitBook's OpenAPISpec, the fields this page shows. */
interface Spec {
  slug: string;
  sourceURL: string;
  processingState: "pending" | "progress" | "complete";
  visibility?: "private" | "public";
  lastVersion?: string;
  lastProcessedAt?: string;
  lastProcessErrorCode?: string;
  lastProcessedErrors?: { code: string; message: string }[];
  permissions: { view: boolean; edit: boolean };
}
interface SpecVersion {
  id: string;
  createdAt: string;
  url: string;
}

const PROCESSING: Record<Spec["processingState"], string> = {
  pending: "Waiting to be read",
  progress: "Being read",
  complete: "Read",
};

const when = (iso: string | undefined) => (iso ? new Date(iso).toLocaleString() : "never");

/**
 * The organization's OpenAPI specifications (`/o/{org}/openapi`), or one of them
 * (`/o/{org}/openapi/{slug}`, its `urls.app`): where it is read from, whether the last reading
 * worked (the errors named), its versions; editors add one from a URL, read it again, change its
 * visibility or delete it.
 */
export default function OpenApiPage({ params }: PageProps) {
  return params.slug ? <SpecDetail org={params.org!} slug={params.slug} /> : <SpecList org={params.org!} />;
}

function SpecList({ org }: { org: string }) {
  const path = `/o/${encodeURIComponent(org)}`;
  const state = useLoad(async () => {
    const [organization, specs] = await Promise.all([
      api<Named>("GET", `/v1/orgs/${encodeURIComponent(org)}`),
      all<Spec>(`/v1/orgs/${encodeURIComponent(org)}/openapi`),
    ]);
    return { organization, specs };
  }, org);
  const [slug, setSlug] = useState("");
  const [url, setUrl] = useState("");
  const [error, setError] = useState<unknown>();
  useTitle("OpenAPI specifications");
  const add = async (event: Event) => {
    event.preventDefault();
    setError(undefined);
    try {
      await api("POST", `/v1/orgs/${encodeURIComponent(org)}/openapi`, { slug, source: { url } });
      navigate(`${path}/openapi/${encodeURIComponent(slug)}`);
    } catch (failure) {
      setError(failure);
    }
  };
  return (
    <Loaded state={state}>
      {({ organization, specs }) => (
        <section aria-labelledby="openapi-title">
          <Breadcrumbs items={[{ label: "Home", href: "/" }, { label: organization.title, href: `${path}/` }, { label: "OpenAPI" }]} />
          <h1 id="openapi-title">OpenAPI specifications</h1>
          {specs.length === 0 ? (
            <p class="muted">No specification yet. Pages show API references from the specifications added here.</p>
          ) : (
            <table>
              <caption class="visually-hidden">Specifications</caption>
              <thead>
                <tr>
                  <th scope="col">Name</th>
                  <th scope="col">Source</th>
                  <th scope="col">State</th>
                </tr>
              </thead>
              <tbody>
                {specs.map((spec) => (
                  <tr key={spec.slug}>
                    <td>
                      <a href={`${path}/openapi/${encodeURIComponent(spec.slug)}`}>{spec.slug}</a>
                    </td>
                    <td class="wrap">{spec.sourceURL}</td>
                    <td>{spec.lastProcessErrorCode ? `Failed (${spec.lastProcessErrorCode})` : PROCESSING[spec.processingState]}</td>
                  </tr>
                ))}
              </tbody>
            </table>
          )}
          <h2>Add a specification</h2>
          <form onSubmit={(event) => void add(event)} class="stack">
            <label>
              Name (used in pages: <code>{'{% openapi-operation spec="name" … %}'}</code>)
              <input required value={slug} pattern="[a-z0-9][a-z0-9-]*" maxLength={100} onInput={(event) => setSlug(event.currentTarget.value)} />
            </label>
            <label>
              URL of the specification (JSON or YAML)
              <input required type="url" value={url} onInput={(event) => setUrl(event.currentTarget.value)} />
            </label>
            <ErrorMessage error={error} />
            <button type="submit">Add specification</button>
          </form>
        </section>
      )}
    </Loaded>
  );
}

function SpecDetail({ org, slug }: { org: string; slug: string }) {
  const path = `/o/${encodeURIComponent(org)}`;
  const base = `/v1/orgs/${encodeURIComponent(org)}/openapi/${encodeURIComponent(slug)}`;
  const state = useLoad(async () => {
    const [organization, spec, versions] = await Promise.all([
      api<Named>("GET", `/v1/orgs/${encodeURIComponent(org)}`),
      api<Spec>("GET", base),
      all<SpecVersion>(`${base}/versions`),
    ]);
    return { organization, spec, versions };
  }, `${org}/${slug}`);
  const { change: act, status } = useChanges(() => state.reload());
  useTitle(slug);
  return (
    <Loaded state={state}>
      {({ organization, spec, versions }) => (
        <section aria-labelledby="spec-title">
          <Breadcrumbs
            items={[
              { label: "Home", href: "/" },
              { label: organization.title, href: `${path}/` },
              { label: "OpenAPI", href: `${path}/openapi` },
              { label: spec.slug },
            ]}
          />
          <h1 id="spec-title">{spec.slug}</h1>
          <dl class="facts">
            <dt>Source</dt>
            <dd class="wrap">{spec.sourceURL}</dd>
            <dt>State</dt>
            <dd>{PROCESSING[spec.processingState]}</dd>
            <dt>Last read</dt>
            <dd>{when(spec.lastProcessedAt)}</dd>
            <dt>Visibility</dt>
            <dd>{spec.visibility === "public" ? "Public: anyone may read it" : "Private: members only"}</dd>
          </dl>
          {spec.lastProcessErrorCode ? (
            <div class="error" role="alert">
              <p>The last reading failed ({spec.lastProcessErrorCode}).</p>
              <ul>
                {(spec.lastProcessedErrors ?? []).map((item, index) => (
                  <li key={index}>
                    {item.code}: {item.message}
                  </li>
                ))}
              </ul>
            </div>
          ) : null}
          {status}
          {spec.permissions.edit ? (
            <div class="actions">
              <button
                type="button"
                onClick={() => void act(() => api("PUT", base, { source: { url: spec.sourceURL } }), "The specification is being read again.")}
              >
                Read again
              </button>
              <button
                type="button"
                onClick={() =>
                  void act(
                    () => api("PATCH", base, { visibility: spec.visibility === "public" ? "private" : "public" }),
                    spec.visibility === "public" ? "The specification is now private." : "The specification is now public.",
                  )
                }
              >
                {spec.visibility === "public" ? "Make private" : "Make public"}
              </button>
              <button
                type="button"
                class="danger"
                onClick={() => {
                  if (!window.confirm(`Delete the specification “${spec.slug}”? Pages using it will show no API reference.`)) return;
                  void act(() => api("DELETE", base), "").then((deleted) => deleted && navigate(`${path}/openapi`));
                }}
              >
                Delete
              </button>
            </div>
          ) : null}
          <h2>Versions</h2>
          {versions.length === 0 ? (
            <p class="muted">No version read yet.</p>
          ) : (
            <ul>
              {versions.map((version) => (
                <li key={version.id}>
                  {when(version.createdAt)}
                  {version.id === spec.lastVersion ? " (current)" : ""} — <span class="wrap">{version.url}</span>
                </li>
              ))}
            </ul>
          )}
        </section>
      )}
    </Loaded>
  );
}
