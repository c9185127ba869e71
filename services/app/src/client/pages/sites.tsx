import { useState } from "preact/hooks";
import { all, api } from "../api";
import { Breadcrumbs } from "../components/layout";
import { orgPath, useOrganization } from "../components/organization";
import { CardList, ErrorMessage, Loaded, useLoad, useTitle } from "../components/status";
import { navigate, type PageProps } from "../navigation";
import { VISIBILITIES, visibilityLabel, type Site } from "../components/site-model";

interface Space {
  id: string;
  title: string;
}

/** An organization's sites: each with whether it is published and who may read it; admins create one from a space. */
export default function SitesPage({ params }: PageProps) {
  const org = params.org!;
  const base = `/v1/orgs/${encodeURIComponent(org)}`;
  const organization = useOrganization(org);
  const state = useLoad(async () => {
    const [sites, spaces] = await Promise.all([all<Site>(`${base}/sites`), all<Space>(`${base}/spaces`)]);
    return { sites, spaces };
  }, org);
  useTitle("Sites");
  const [title, setTitle] = useState("");
  const [space, setSpace] = useState("");
  const [visibility, setVisibility] = useState("public");
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<unknown>(undefined);

  // createSite with the space: the site is created with it as its first (default) site-space.
  const create = async (event: Event) => {
    event.preventDefault();
    setBusy(true);
    setError(undefined);
    try {
      const site = await api<Site>("POST", `${base}/sites`, { title, visibility, spaces: [space] });
      navigate(`${orgPath(org, "sites", site.id)}/`);
    } catch (failure) {
      setError(failure);
      setBusy(false);
    }
  };

  return (
    <section aria-labelledby="sites-title">
      <Breadcrumbs
        items={[{ label: "Home", href: "/" }, { label: organization.data?.title ?? "Organization", href: `${orgPath(org)}/` }, { label: "Sites" }]}
      />
      <h1 id="sites-title">Sites</h1>
      <Loaded state={state}>
        {({ sites, spaces }) => (
          <>
            <CardList items={sites} empty="No sites yet." keyOf={(site) => site.id}>
              {(site) => (
                <>
                  <a href={`${orgPath(org, "sites", site.id)}/`}>{site.title}</a>
                  <p class="muted">
                    {site.published ? "Published" : "Not published"} · {visibilityLabel(site.visibility)}
                  </p>
                </>
              )}
            </CardList>
            {organization.data?.permissions.admin ? (
              <>
                <h2 id="create-site">Create a site</h2>
                {spaces.length === 0 ? (
                  <p class="muted">A site publishes spaces: create a space first.</p>
                ) : (
                  <form aria-labelledby="create-site" onSubmit={(event) => void create(event)}>
                    <label for="site-title">Title</label>
                    <input id="site-title" required minLength={2} maxLength={128} value={title} onInput={(event) => setTitle(event.currentTarget.value)} />
                    <label for="site-space">Space to publish</label>
                    <select id="site-space" required value={space} onChange={(event) => setSpace(event.currentTarget.value)}>
                      <option value="">Choose a space…</option>
                      {spaces.map((item) => (
                        <option key={item.id} value={item.id}>
                          {item.title}
                        </option>
                      ))}
                    </select>
                    <label for="site-visibility">Who may read it</label>
                    <select id="site-visibility" value={visibility} onChange={(event) => setVisibility(event.currentTarget.value)}>
                      {VISIBILITIES.map((item) => (
                        <option key={item.value} value={item.value}>
                          {item.label}: {item.meaning}
                        </option>
                      ))}
                    </select>
                    <ErrorMessage error={error} />
                    <button type="submit" class="primary" disabled={busy}>
                      Create site
                    </button>
                  </form>
                )}
              </>
            ) : (
              <p class="muted">Admins create and publish sites.</p>
            )}
          </>
        )}
      </Loaded>
    </section>
  );
}
