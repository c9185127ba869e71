import { useState } from "preact/hooks";
import { all, api } from "../api";
import { Breadcrumbs } from "../components/layout";
import { orgPath, useChanges, useOrganization } from "../components/organization";
import { selectionLabel, statusLabel, type Installation, type Integration, type OrganizationInstallation } from "../components/integration-model";
import { Loaded, useLoad, useTitle } from "../components/status";
import type { PageProps } from "../navigation";

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
    const [integration, installations] = await Promise.all([api<Integration>("GET", integrationBase), all<OrganizationInstallation>(`/v1/orgs/${encodeURIComponent(org)}/installations`)]);
    const installation = installations.find((item) => item.integration.name === name)?.installation;
    if (!installation) return { integration, installation, spaces: [], sites: [] };
    const installationBase = `${integrationBase}/installations/${encodeURIComponent(installation.id)}`;
    const [spaces, sites] = await Promise.all([all<SpaceInstallation>(`${installationBase}/spaces?extended=true`), all<SiteInstallation>(`${installationBase}/sites?extended=true`)]);
    return { integration, installation, spaces, sites };
  }, `${org}/${name}`);
  const { change, busy, status } = useChanges(() => state.reload());
  useTitle(state.data?.integration.title ?? "Integration");
  const admin = !!organization.data?.permissions.admin;
  return (
    <Loaded state={state}>
      {({ integration, installation, spaces, sites }) => (
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
  const titleOf = (target: string | { title: string }) => (typeof target === "string" ? target : target.title);
  return (
    <>
      <p>
        {statusLabel(installation.status)} since {new Date(installation.createdAt).toLocaleDateString()}. It hears {selectionLabel(installation.space_selection, "spaces")} and{" "}
        {selectionLabel(installation.site_selection, "sites")}.
      </p>
      <h3>Installed on spaces</h3>
      {spaces.length === 0 ? (
        <p class="muted">No space.</p>
      ) : (
        <ul>
          {spaces.map((item) => (
            <li key={typeof item.space === "string" ? item.space : item.space.id}>
              {typeof item.space === "string" ? item.space : <a href={`${orgPath(org, "s", item.space.id)}/`}>{item.space.title}</a>} <span class="muted">({statusLabel(item.status)})</span>
            </li>
          ))}
        </ul>
      )}
      <h3>Installed on sites</h3>
      {sites.length === 0 ? (
        <p class="muted">No site.</p>
      ) : (
        <ul>
          {sites.map((item) => (
            <li key={typeof item.site === "string" ? item.site : item.site.id}>
              {typeof item.site === "string" ? item.site : <a href={`${orgPath(org, "sites", item.site.id)}/`}>{titleOf(item.site)}</a>} <span class="muted">({statusLabel(item.status)})</span>
            </li>
          ))}
        </ul>
      )}
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
            <button type="button" class="danger" disabled={busy} onClick={() => void change(() => api("DELETE", installationBase), `${integration.title} uninstalled.`)}>
              Uninstall {integration.title}
            </button>
          </p>
        </>
      ) : null}
    </>
  );
}
