import { all, api } from "../api";
import { Breadcrumbs } from "../components/layout";
import { orgPath, useOrganization } from "../components/organization";
import { selectionLabel, statusLabel, type Integration, type OrganizationInstallation } from "../components/integration-model";
import { CardList, Loaded, useLoad, useTitle, useChanges } from "../components/status";
import type { PageProps } from "../navigation";

/** An organization's integrations: those installed (with their scope), and those admins may install. */
export default function IntegrationsPage({ params }: PageProps) {
  const org = params.org!;
  const base = `/v1/orgs/${encodeURIComponent(org)}`;
  const organization = useOrganization(org);
  const state = useLoad(async () => {
    const [installed, available] = await Promise.all([all<OrganizationInstallation>(`${base}/installations`), all<Integration>(`${base}/integrations`)]);
    return { installed, available: available.filter((integration) => !installed.some((item) => item.integration.name === integration.name)) };
  }, org);
  const { change, busy, status } = useChanges(() => state.reload());
  useTitle("Integrations");
  const admin = !!organization.data?.permissions.admin;
  return (
    <section aria-labelledby="integrations-title">
      <Breadcrumbs
        items={[{ label: "Home", href: "/" }, { label: organization.data?.title ?? "Organization", href: `${orgPath(org)}/` }, { label: "Integrations" }]}
      />
      <h1 id="integrations-title">Integrations</h1>
      {status}
      <Loaded state={state}>
        {({ installed, available }) => (
          <>
            <h2>Installed</h2>
            {installed.length === 0 ? (
              <p class="muted">No integration is installed.</p>
            ) : (
              <ul class="cards">
                {installed.map(({ installation, integration }) => (
                  <li key={installation.id}>
                    <a href={orgPath(org, "integrations", integration.name)}>{integration.title}</a>
                    <p class="muted">
                      {statusLabel(installation.status)} · hears {selectionLabel(installation.space_selection, "spaces")} and{" "}
                      {selectionLabel(installation.site_selection, "sites")} · installed on{" "}
                      {installation.spaces === 1 ? "1 space" : `${installation.spaces} spaces`}
                    </p>
                  </li>
                ))}
              </ul>
            )}
            <h2>Available</h2>
            <CardList items={available} empty="No other integration is available." keyOf={(integration) => integration.name}>
              {(integration) => (
                <>
                  <a href={orgPath(org, "integrations", integration.name)}>{integration.title}</a>
                  <p class="muted">{integration.summary || integration.description}</p>
                  {admin && integration.permissions.install ? (
                    <button
                      type="button"
                      disabled={busy}
                      aria-label={`Install ${integration.title}`}
                      onClick={() =>
                        void change(
                          () => api("POST", `/v1/integrations/${encodeURIComponent(integration.name)}/installations`, { organization: org }),
                          `${integration.title} installed.`,
                        )
                      }
                    >
                      Install
                    </button>
                  ) : null}
                </>
              )}
            </CardList>
            {admin ? null : <p class="muted">Admins install and uninstall integrations.</p>}
          </>
        )}
      </Loaded>
    </section>
  );
}
