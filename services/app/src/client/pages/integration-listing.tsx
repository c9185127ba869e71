import { all, api } from "../api";
import { Breadcrumbs } from "../components/layout";
import { Refused } from "../components/organization";
import type { Integration } from "../components/integration-model";
import { CardList, Loaded, useLoad, useTitle } from "../components/status";
import type { PageProps } from "../navigation";

interface Organization {
  id: string;
  title: string;
}

/**
 * An integration on its own (`/integrations/{name}`, an integration's `urls.app`): what it is and
 * may do, and the person's organizations, each leading to the integration there (installed or to
 * install), where its installation is managed.
 */
export default function IntegrationListingPage({ params }: PageProps) {
  const name = params.name!;
  const state = useLoad(async () => {
    const [integration, organizations] = await Promise.all([
      api<Integration>("GET", `/v1/integrations/${encodeURIComponent(name)}`),
      all<Organization>("/v1/orgs"),
    ]);
    return { integration, organizations };
  }, name);
  useTitle(state.data?.integration.title ?? "Integration");
  if (state.error !== undefined) return <Refused error={state.error} notFound="Integration not found" />;
  return (
    <Loaded state={state}>
      {({ integration, organizations }) => (
        <section aria-labelledby="integration-title">
          <Breadcrumbs items={[{ label: "Home", href: "/" }, { label: integration.title }]} />
          <h1 id="integration-title">{integration.title}</h1>
          {integration.summary ? <p>{integration.summary}</p> : null}
          <p>{integration.description}</p>
          <h2>What it may do</h2>
          {integration.scopes.length === 0 ? (
            <p class="muted">Nothing beyond showing itself.</p>
          ) : (
            <ul>
              {integration.scopes.map((scope) => (
                <li key={scope}>
                  <code>{scope}</code>
                </li>
              ))}
            </ul>
          )}
          <h2>In your organizations</h2>
          <CardList items={organizations} empty="You are not a member of any organization." keyOf={(organization) => organization.id}>
            {(organization) => (
              <a href={`/o/${encodeURIComponent(organization.id)}/integrations/${encodeURIComponent(integration.name)}`}>
                {integration.title} in {organization.title}
              </a>
            )}
          </CardList>
        </section>
      )}
    </Loaded>
  );
}
