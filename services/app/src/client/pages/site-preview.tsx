import { api } from "../api";
import { Breadcrumbs } from "../components/layout";
import { orgPath, Refused, useOrganization } from "../components/organization";
import type { Site, SiteSpace, SiteStructure, StructureItem } from "../components/site-model";
import { Loaded, useLoad, useTitle } from "../components/status";
import type { PageProps } from "../navigation";

/** `GET …/sites/{site}/published`: what the site's readers see (drafts left out). */
interface Published {
  site: Site;
  structure: SiteStructure;
}

/**
 * A site's preview (`urls.app` + `preview/`): what its readers will see, in the reader's order,
 * published or not, each space opening in the app; and the way to the reader once published.
 */
export default function SitePreviewPage({ params }: PageProps) {
  const org = params.org!;
  const organization = useOrganization(org);
  const state = useLoad(
    () => api<Published>("GET", `/v1/orgs/${encodeURIComponent(org)}/sites/${encodeURIComponent(params.site!)}/published`),
    `${org}/${params.site}`,
  );
  useTitle(state.data ? `Preview of ${state.data.site.title}` : "Preview");
  const spaceLinks = (siteSpaces: SiteSpace[]) => (
    <ul>
      {siteSpaces.map((siteSpace) => (
        <li key={siteSpace.id}>
          <a href={`${orgPath(org, "s", siteSpace.space.id)}/`}>{siteSpace.title || siteSpace.space.title}</a>
        </li>
      ))}
    </ul>
  );
  const entry = (item: StructureItem) => {
    if (item.object === "site-external-link") return <a href={item.url}>{item.title}</a>;
    if (item.object === "site-section-group")
      return (
        <>
          {item.title}
          <ul>
            {item.children.map((child) => (
              <li key={child.id}>{entry(child)}</li>
            ))}
          </ul>
        </>
      );
    return (
      <>
        {item.title}
        {spaceLinks(item.siteSpaces)}
      </>
    );
  };
  if (state.error !== undefined) return <Refused error={state.error} notFound="Site not found" />;
  return (
    <Loaded state={state}>
      {({ site, structure }) => (
        <section aria-labelledby="preview-title">
          <Breadcrumbs
            items={[
              { label: "Home", href: "/" },
              { label: organization.data?.title ?? "Organization", href: `${orgPath(org)}/` },
              { label: "Sites", href: `${orgPath(org, "sites")}/` },
              { label: site.title, href: `${orgPath(org, "sites", site.id)}/` },
              { label: "Preview" },
            ]}
          />
          <h1 id="preview-title">Preview of {site.title}</h1>
          <p>
            {site.published ? (
              <>
                Published: <a href={site.urls.published}>open in the reader</a>.
              </>
            ) : (
              "Not published yet: readers see this once an admin publishes the site."
            )}
          </p>
          <h2>What readers see</h2>
          {structure.type === "siteSpaces" ? (
            spaceLinks(structure.structure)
          ) : (
            <ul>
              {structure.structure.map((item) => (
                <li key={item.id}>{entry(item)}</li>
              ))}
            </ul>
          )}
        </section>
      )}
    </Loaded>
  );
}
