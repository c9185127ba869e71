import { all, api } from "../api";
import { Breadcrumbs } from "../components/layout";
import { CardList, Loaded, useLoad, useTitle } from "../components/status";
import type { PageProps } from "../navigation";

interface Named {
  id: string;
  title: string;
}
interface Collection extends Named {
  description?: string;
}

/** A collection: its spaces and the collections inside it. */
export default function CollectionPage({ params }: PageProps) {
  const org = params.org!;
  const collectionId = params.collection!;
  const state = useLoad(async () => {
    const [organization, collection, spaces, collections] = await Promise.all([
      api<Named>("GET", `/v1/orgs/${encodeURIComponent(org)}`),
      api<Collection>("GET", `/v1/collections/${encodeURIComponent(collectionId)}`),
      all<Named>(`/v1/collections/${encodeURIComponent(collectionId)}/spaces`),
      all<Named & { parent?: string }>(`/v1/orgs/${encodeURIComponent(org)}/collections`),
    ]);
    return { organization, collection, spaces, children: collections.filter((item) => item.parent === collectionId) };
  }, `${org}/${collectionId}`);
  useTitle(state.data?.collection.title ?? "Collection");
  const path = `/o/${encodeURIComponent(org)}`;
  return (
    <Loaded state={state}>
      {({ organization, collection, spaces, children }) => (
        <section aria-labelledby="collection-title">
          <Breadcrumbs items={[{ label: "Home", href: "/" }, { label: organization.title, href: `${path}/` }, { label: collection.title }]} />
          <h1 id="collection-title">{collection.title}</h1>
          {collection.description ? <p>{collection.description}</p> : null}
          {children.length > 0 ? (
            <>
              <h2>Collections</h2>
              <ul class="cards">
                {children.map((child) => (
                  <li key={child.id}>
                    <a href={`${path}/c/${encodeURIComponent(child.id)}/`}>{child.title}</a>
                  </li>
                ))}
              </ul>
            </>
          ) : null}
          <h2>Spaces</h2>
          <CardList items={spaces} empty="No spaces in this collection." keyOf={(space) => space.id}>
            {(space) => <a href={`${path}/s/${encodeURIComponent(space.id)}/`}>{space.title}</a>}
          </CardList>
        </section>
      )}
    </Loaded>
  );
}
