import { useState } from "preact/hooks";
import { all, api } from "../api";
import { Breadcrumbs } from "../components/layout";
import { orgPath, Refused, useOrganization } from "../components/organization";
import { selectionLabel, statusLabel, type Installation, type Integration, type OrganizationInstallation } from "../components/integration-model";
import { Loaded, useLoad, useTitle, useChanges } from "../components/status";
import type { PageProps } from "../navigation";

/** A space or a site of the organization, as a target to install on. */
interface Target {
  id: string;
  title: string;
}
interface SpaceInstallation {
  space: string | { id: string; title: string };
  status: string;
}
interface SiteInstallation {
  site: string | { id: string; title: string };
  status: string;
}

/**
 * One integration in an organization (`urls.app` of an installation): what it is and may do, its
 * installation here with the spaces and sites it is installed on, install and uninstall (admins).
 */
export default function IntegrationPage({ params }: PageProps) {
  const org = params.org!;
  const name = params.name!;
  const integrationBase = `/v1/integrations/${encodeURIComponent(name)}`;
  const organization = useOrganization(org);
  const state = useLoad(async () => {
    const [integration, installations] = await Promise.all([
      api<Integration>("GET", integrationBase),
      all<OrganizationInstallation>(`/v1/orgs/${encodeURIComponent(org)}/installations`),
    ]);
    const installation = installations.find((item) => item.integration.name === name)?.installation;
    if (!installation) return { integration, installation, spaces: [], sites: [], orgSpaces: [], orgSites: [] };
    const installationBase = `${integrationBase}/installations/${encodeURIComponent(installation.id)}`;
    const orgBase = `/v1/orgs/${encodeURIComponent(org)}`;
    const [spaces, sites, orgSpaces, orgSites] = await Promise.all([
      all<SpaceInstallation>(`${installationBase}/spaces?extended=true`),
      all<SiteInstallation>(`${installationBase}/sites?extended=true`),
      all<Target>(`${orgBase}/spaces`),
      all<Target>(`${orgBase}/sites`),
    ]);
    return { integration, installation, spaces, sites, orgSpaces, orgSites };
  }, `${org}/${name}`);
  const { change, busy, status } = useChanges(() => state.reload());
  useTitle(state.data?.integration.title ?? "Integration");
  const admin = !!organization.data?.permissions.admin;
  if (state.error !== undefined) return <Refused error={state.error} notFound="Integration not found" />;
  return (
    <Loaded state={state}>
      {({ integration, installation, spaces, sites, orgSpaces, orgSites }) => (
        <section aria-labelledby="integration-title">
          <Breadcrumbs
            items={[
              { label: "Home", href: "/" },
              { label: organization.data?.title ?? "Organization", href: `${orgPath(org)}/` },
              { label: "Integrations", href: orgPath(org, "integrations") },
              { label: integration.title },
            ]}
          />
          <h1 id="integration-title">{integration.title}</h1>
          <p>{integration.description || integration.summary}</p>
          <h2>What it may do</h2>
          {integration.scopes.length === 0 ? (
            <p class="muted">No scopes.</p>
          ) : (
            <ul>
              {integration.scopes.map((scope) => (
                <li key={scope}>
                  <code>{scope}</code>
                </li>
              ))}
            </ul>
          )}
          <h2>In this organization</h2>
          {status}
          {installation ? (
            <Installed
              installation={installation}
              installationBase={`${integrationBase}/installations/${encodeURIComponent(installation.id)}`}
              integration={integration}
              spaces={spaces}
              sites={sites}
              orgSpaces={orgSpaces}
              orgSites={orgSites}
              org={org}
              admin={admin}
              busy={busy}
              change={change}
            />
          ) : (
            <>
              <p>Not installed.</p>
              {admin && integration.permissions.install ? (
                <button
                  type="button"
                  class="primary"
                  disabled={busy}
                  onClick={() => void change(() => api("POST", `${integrationBase}/installations`, { organization: org }), `${integration.title} installed.`)}
                >
                  Install {integration.title}
                </button>
              ) : null}
            </>
          )}
        </section>
      )}
    </Loaded>
  );
}

function Installed({
  installation,
  installationBase,
  integration,
  spaces,
  sites,
  orgSpaces,
  orgSites,
  org,
  admin,
  busy,
  change,
}: {
  installation: Installation;
  installationBase: string;
  integration: Integration;
  spaces: SpaceInstallation[];
  sites: SiteInstallation[];
  orgSpaces: Target[];
  orgSites: Target[];
  org: string;
  admin: boolean;
  busy: boolean;
  change: ReturnType<typeof useChanges>["change"];
}) {
  const [spaceSelection, setSpaceSelection] = useState(installation.space_selection);
  const [siteSelection, setSiteSelection] = useState(installation.site_selection);
  const save = (event: Event) => {
    event.preventDefault();
    void change(() => api("PATCH", installationBase, { space_selection: spaceSelection, site_selection: siteSelection }), "Saved.");
  };
  return (
    <>
      <p>
        {statusLabel(installation.status)} since {new Date(installation.createdAt).toLocaleDateString()}. It hears{" "}
        {selectionLabel(installation.space_selection, "spaces")} and {selectionLabel(installation.site_selection, "sites")}.
      </p>
      <Targets
        kind="spaces"
        installed={spaces.map((item) => ({ target: item.space, status: item.status }))}
        candidates={orgSpaces}
        installationBase={installationBase}
        org={org}
        admin={admin && integration.target !== "site" && integration.target !== "organization"}
        busy={busy}
        change={change}
      />
      <Targets
        kind="sites"
        installed={sites.map((item) => ({ target: item.site, status: item.status }))}
        candidates={orgSites}
        installationBase={installationBase}
        org={org}
        admin={admin && integration.target !== "space" && integration.target !== "organization"}
        busy={busy}
        change={change}
      />
      {admin ? (
        <>
          <form onSubmit={save}>
            <label for="space-selection">Spaces it hears</label>
            <select id="space-selection" value={spaceSelection} onChange={(event) => setSpaceSelection(event.currentTarget.value)}>
              <option value="selected">Only the spaces it is installed on</option>
              <option value="all">Every space of the organization</option>
            </select>
            <label for="site-selection">Sites it hears</label>
            <select id="site-selection" value={siteSelection} onChange={(event) => setSiteSelection(event.currentTarget.value)}>
              <option value="selected">Only the sites it is installed on</option>
              <option value="all">Every site of the organization</option>
            </select>
            <button type="submit" disabled={busy}>
              Save
            </button>
          </form>
          <p>
            <button
              type="button"
              class="danger"
              disabled={busy}
              onClick={() => void change(() => api("DELETE", installationBase), `${integration.title} uninstalled.`)}
            >
              Uninstall {integration.title}
            </button>
          </p>
        </>
      ) : null}
    </>
  );
}

/** The spaces (or sites) an installation is installed on, each uninstalled on its own; admins install on another. */
function Targets({
  kind,
  installed,
  candidates,
  installationBase,
  org,
  admin,
  busy,
  change,
}: {
  kind: "spaces" | "sites";
  installed: { target: string | Target; status: string }[];
  candidates: Target[];
  installationBase: string;
  org: string;
  admin: boolean;
  busy: boolean;
  change: ReturnType<typeof useChanges>["change"];
}) {
  const [chosen, setChosen] = useState("");
  const one = kind === "spaces" ? "space" : "site";
  const idOf = (target: string | Target) => (typeof target === "string" ? target : target.id);
  const titleOf = (target: string | Target) => (typeof target === "string" ? (candidates.find((item) => item.id === target)?.title ?? target) : target.title);
  const appPath = (id: string) => (kind === "spaces" ? `${orgPath(org, "s", id)}/` : `${orgPath(org, "sites", id)}/`);
  const available = candidates.filter((candidate) => !installed.some((item) => idOf(item.target) === candidate.id));
  const install = (event: Event) => {
    event.preventDefault();
    const title = titleOf(chosen);
    void change(async () => {
      await api("POST", `${installationBase}/${kind}`, kind === "spaces" ? { space: chosen } : { siteId: chosen });
      setChosen("");
    }, `Installed on ${title}.`);
  };
  return (
    <>
      <h3 id={`installed-${kind}`}>Installed on {kind}</h3>
      {installed.length === 0 ? (
        <p class="muted">No {one}.</p>
      ) : (
        <ul>
          {installed.map((item) => {
            const id = idOf(item.target);
            const title = titleOf(item.target);
            return (
              <li key={id}>
                <a href={appPath(id)}>{title}</a> <span class="muted">({statusLabel(item.status)})</span>
                {admin ? (
                  <>
                    {" "}
                    <button
                      type="button"
                      class="danger"
                      disabled={busy}
                      aria-label={`Uninstall from ${title}`}
                      onClick={() => void change(() => api("DELETE", `${installationBase}/${kind}/${encodeURIComponent(id)}`), `Uninstalled from ${title}.`)}
                    >
                      Uninstall
                    </button>
                  </>
                ) : null}
              </li>
            );
          })}
        </ul>
      )}
      {admin && available.length > 0 ? (
        <form class="inline-form" aria-labelledby={`installed-${kind}`} onSubmit={install}>
          <label for={`install-${one}`}>Install on the {one}</label>
          <select id={`install-${one}`} required value={chosen} onChange={(event) => setChosen(event.currentTarget.value)}>
            <option value="">Choose a {one}…</option>
            {available.map((candidate) => (
              <option key={candidate.id} value={candidate.id}>
                {candidate.title}
              </option>
            ))}
          </select>
          <button type="submit" disabled={busy}>
            Install on {one}
          </button>
        </form>
      ) : null}
    </>
  );
}
