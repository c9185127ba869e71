import { all, api } from "../api";
import { Breadcrumbs } from "../components/layout";
import { OrganizationNav, type Organization } from "../components/organization";
import { CardList, Loaded, useLoad, useTitle } from "../components/status";
import type { PageProps } from "../navigation";

interface Space {
  id: string;
  title: string;
  parent?: string;
}
interface Collection {
  id: string;
  title: string;
  description?: string;
  parent?: string;
}

/** An organization: its collections and its spaces (those at its top level; a collection lists its own). */
export default function OrganizationPage({ params }: PageProps) {
  const org = params.org!;
  const base = `/v1/orgs/${encodeURIComponent(org)}`;
  const state = useLoad(async () => {
    const [organization, collections, spaces] = await Promise.all([
      api<Organization>("GET", base),
      all<Collection>(`${base}/collections`),
      all<Space>(`${base}/spaces`),
    ]);
    return { organization, collections: collections.filter((item) => !item.parent), spaces: spaces.filter((item) => !item.parent) };
  }, org);
  useTitle(state.data?.organization.title ?? "Organization");
  const path = `/o/${encodeURIComponent(org)}`;
  return (
    <Loaded state={state}>
      {({ organization, collections, spaces }) => (
        <section aria-labelledby="organization-title">
          <Breadcrumbs items={[{ label: "Home", href: "/" }, { label: organization.title }]} />
          <h1 id="organization-title">{organization.title}</h1>
          <OrganizationNav organization={organization} />
          <h2>Collections</h2>
          <CardList items={collections} empty="No collections." keyOf={(collection) => collection.id}>
            {(collection) => (
              <>
                <a href={`${path}/c/${encodeURIComponent(collection.id)}/`}>{collection.title}</a>
                {collection.description ? <p class="muted">{collection.description}</p> : null}
              </>
            )}
          </CardList>
          <h2>Spaces</h2>
          <CardList items={spaces} empty="No spaces." keyOf={(space) => space.id}>
            {(space) => <a href={`${path}/s/${encodeURIComponent(space.id)}/`}>{space.title}</a>}
          </CardList>
        </section>
      )}
    </Loaded>
  );
}
