import { useState } from "preact/hooks";
import { all, api } from "../api";
import { Breadcrumbs } from "../components/layout";
import { CopyButton, orgPath, Refused, useOrganization } from "../components/organization";
import {
  VISIBILITIES,
  visibilityLabel,
  type ShareLink,
  type Site,
  type SiteSection,
  type SiteSectionGroup,
  type SiteSpace,
  type SiteStructure,
  type Space,
  type StructureItem,
} from "../components/site-model";
import { CardList, Loaded, useLoad, useTitle, type Change, useChanges } from "../components/status";
import type { PageProps } from "../navigation";

/** What the page shows of the site: the site, its structure, the spaces it may add, its share links (admins). */
interface SiteData {
  site: Site;
  structure: SiteStructure;
  spaces: Space[];
  shareLinks: ShareLink[];
}

/**
 * A site: publish and unpublish, who may read it, its structure (site-spaces, sections, groups:
 * add, remove, reorder), its share links, and the way to the reader and the preview. Members read
 * it; admins change it (the API refuses others with 403, said in words).
 */
export default function SitePage({ params }: PageProps) {
  const org = params.org!;
  const siteBase = `/v1/orgs/${encodeURIComponent(org)}/sites/${encodeURIComponent(params.site!)}`;
  const organization = useOrganization(org);
  const state = useLoad(async (): Promise<SiteData> => {
    const site = await api<Site>("GET", siteBase);
    const [structure, spaces, shareLinks] = await Promise.all([
      api<SiteStructure>("GET", `${siteBase}/structure`),
      site.permissions.admin ? all<Space>(`/v1/orgs/${encodeURIComponent(org)}/spaces`) : Promise.resolve([]),
      site.permissions.admin ? all<ShareLink>(`${siteBase}/share-links`) : Promise.resolve([]),
    ]);
    return { site, structure, spaces, shareLinks };
  }, `${org}/${params.site}`);
  useTitle(state.data?.site.title ?? "Site");
  const { change, busy, status } = useChanges(() => state.reload());

  if (state.error !== undefined) return <Refused error={state.error} notFound="Site not found" />;
  return (
    <Loaded state={state}>
      {(data) => (
        <section aria-labelledby="site-title">
          <Breadcrumbs
            items={[
              { label: "Home", href: "/" },
              { label: organization.data?.title ?? "Organization", href: `${orgPath(org)}/` },
              { label: "Sites", href: `${orgPath(org, "sites")}/` },
              { label: data.site.title },
            ]}
          />
          <h1 id="site-title">{data.site.title}</h1>
          <p class="site-status">
            <strong>{data.site.published ? "Published" : "Not published"}</strong> · {visibilityLabel(data.site.visibility)}
          </p>
          <p class="actions">
            {data.site.urls.published ? (
              <a class="button" href={data.site.urls.published} target="_blank" rel="noopener">
                Open in the reader
              </a>
            ) : null}
            <a class="button" href={`${orgPath(org, "sites", data.site.id)}/preview/`}>
              Preview
            </a>
            {data.site.permissions.admin ? (
              data.site.published ? (
                <button
                  type="button"
                  disabled={busy}
                  onClick={() => void change(() => api("POST", `${siteBase}/unpublish`), "The site is no longer published.")}
                >
                  Unpublish
                </button>
              ) : (
                <button
                  type="button"
                  class="primary"
                  disabled={busy}
                  onClick={() => void change(() => api("POST", `${siteBase}/publish`), "The site is published.")}
                >
                  Publish
                </button>
              )
            ) : null}
          </p>
          {status}
          {data.site.permissions.admin ? null : <p class="muted">Only admins change a site.</p>}
          <Structure data={data} siteBase={siteBase} org={org} busy={busy} change={change} />
          {data.site.permissions.admin ? (
            <>
              <Settings site={data.site} siteBase={siteBase} busy={busy} change={change} />
              <Look siteBase={siteBase} busy={busy} change={change} />
              <ShareLinks data={data} siteBase={siteBase} busy={busy} change={change} />
            </>
          ) : null}
        </section>
      )}
    </Loaded>
  );
}

/** The site's title and visibility (`PATCH …/sites/{site}`). */
function Settings({ site, siteBase, busy, change }: { site: Site; siteBase: string; busy: boolean; change: Change }) {
  const [title, setTitle] = useState(site.title);
  const [visibility, setVisibility] = useState(site.visibility);
  const save = (event: Event) => {
    event.preventDefault();
    void change(() => api("PATCH", siteBase, { title, visibility }), "Settings saved.");
  };
  return (
    <>
      <h2 id="site-settings">Settings</h2>
      <form aria-labelledby="site-settings" onSubmit={save}>
        <label for="site-settings-title">Title</label>
        <input id="site-settings-title" required minLength={2} maxLength={128} value={title} onInput={(event) => setTitle(event.currentTarget.value)} />
        <fieldset>
          <legend>Who may read it</legend>
          {VISIBILITIES.map((item) => (
            <div class="choice" key={item.value}>
              <input
                type="radio"
                id={`visibility-${item.value}`}
                name="visibility"
                value={item.value}
                checked={visibility === item.value}
                onChange={() => setVisibility(item.value)}
              />
              <label for={`visibility-${item.value}`}>
                {item.label} <span class="muted">— {item.meaning}</span>
              </label>
            </div>
          ))}
        </fieldset>
        <button type="submit" disabled={busy}>
          Save settings
        </button>
      </form>
    </>
  );
}

/** A customization as the API answers it: GitBook's settings, whole (`updatedAt` once set). */
type Customization = Record<string, unknown> & {
  styling?: { primaryColor?: { light: string; dark: string } };
  header?: { logo?: { light: string; dark: string } };
  updatedAt?: string;
};

/**
 * The site's look, the basics: its primary colour and its header logo. The customization is
 * replaced whole (`PUT …/customization`), so the page changes these settings in the one it read.
 */
function Look({ siteBase, busy, change }: { siteBase: string; busy: boolean; change: Change }) {
  const state = useLoad(() => api<Customization>("GET", `${siteBase}/customization`), siteBase);
  return (
    <Loaded state={state}>
      {(customization) => <LookForm customization={customization} siteBase={siteBase} busy={busy} change={change} reload={() => state.reload()} />}
    </Loaded>
  );
}

function LookForm({
  customization,
  siteBase,
  busy,
  change,
  reload,
}: {
  customization: Customization;
  siteBase: string;
  busy: boolean;
  change: Change;
  reload: () => void;
}) {
  const [color, setColor] = useState(customization.styling?.primaryColor?.light ?? "#346DDB");
  const [logo, setLogo] = useState(customization.header?.logo?.light ?? "");
  const save = (event: Event) => {
    event.preventDefault();
    const { updatedAt: _updatedAt, ...settings } = customization;
    const header = { ...(settings.header ?? {}) } as Record<string, unknown>;
    if (logo.trim()) header.logo = { light: logo.trim(), dark: logo.trim() };
    else delete header.logo;
    const next = { ...settings, styling: { ...settings.styling, primaryColor: { light: color, dark: color } }, header };
    void change(async () => {
      await api("PUT", `${siteBase}/customization`, next);
      reload();
    }, "The site's look is saved.");
  };
  return (
    <>
      <h2 id="site-look">Look</h2>
      <form aria-labelledby="site-look" onSubmit={save}>
        <label for="site-color">Primary colour (links, the current page)</label>
        <input id="site-color" type="color" class="color" value={color} onInput={(event) => setColor(event.currentTarget.value.toUpperCase())} />
        <label for="site-logo">Logo URL (empty: the title shows instead)</label>
        <input id="site-logo" type="url" placeholder="https://example.com/logo.svg" value={logo} onInput={(event) => setLogo(event.currentTarget.value)} />
        <button type="submit" disabled={busy}>
          Save look
        </button>
      </form>
    </>
  );
}

/** Share links: create (named), list with the link to hand out, revoke. */
function ShareLinks({ data, siteBase, busy, change }: { data: SiteData; siteBase: string; busy: boolean; change: Change }) {
  const [name, setName] = useState("");
  const create = (event: Event) => {
    event.preventDefault();
    void change(async () => {
      await api("POST", `${siteBase}/share-links`, { name });
      setName("");
    }, "Share link created.");
  };
  return (
    <>
      <h2 id="share-links">Share links</h2>
      <p class="muted">
        A share link lets whoever has it read the site
        {data.site.visibility === "share-link" ? "" : " (it matters most when the site is readable through share links only)"}. Revoking one stops it at once.
      </p>
      <form class="inline-form" aria-labelledby="share-links" onSubmit={create}>
        <label for="share-link-name">Name</label>
        <input id="share-link-name" required maxLength={50} value={name} onInput={(event) => setName(event.currentTarget.value)} />
        <button type="submit" disabled={busy}>
          Create share link
        </button>
      </form>
      <CardList items={data.shareLinks} empty="No share links." keyOf={(link) => link.id}>
        {(link) => (
          <>
            <strong>{link.name}</strong> {link.active ? null : <span class="muted">(inactive)</span>}
            <p>
              {link.urls.published ? (
                <>
                  <code class="token-secret">{link.urls.published}</code> <CopyButton text={link.urls.published} label={`Copy the link of ${link.name}`} />
                </>
              ) : (
                <span class="muted">Its address shows once the site is published.</span>
              )}
            </p>
            <button
              type="button"
              class="danger"
              disabled={busy}
              aria-label={`Revoke ${link.name}`}
              onClick={() => void change(() => api("DELETE", `${siteBase}/share-links/${encodeURIComponent(link.id)}`), "Share link revoked.")}
            >
              Revoke
            </button>
          </>
        )}
      </CardList>
    </>
  );
}

/** Moves `item` before or after its neighbour (`PATCH …/structure/sort`). */
function sortCall(siteBase: string, item: { object: string; id: string }, where: "before" | "after", other: { object: string; id: string }) {
  return api("PATCH", `${siteBase}/structure/sort`, { item: { type: item.object, id: item.id }, position: { [where]: { type: other.object, id: other.id } } });
}

/** Up and down buttons for one item of an ordered level. */
function MoveButtons<T extends { object: string; id: string }>({
  items,
  index,
  name,
  siteBase,
  busy,
  change,
}: {
  items: T[];
  index: number;
  name: string;
  siteBase: string;
  busy: boolean;
  change: Change;
}) {
  const item = items[index]!;
  return (
    <>
      <button
        type="button"
        disabled={busy || index === 0}
        aria-label={`Move ${name} up`}
        onClick={() => void change(() => sortCall(siteBase, item, "before", items[index - 1]!), `${name} moved up.`)}
      >
        Up
      </button>
      <button
        type="button"
        disabled={busy || index === items.length - 1}
        aria-label={`Move ${name} down`}
        onClick={() => void change(() => sortCall(siteBase, item, "after", items[index + 1]!), `${name} moved down.`)}
      >
        Down
      </button>
    </>
  );
}

/** A level's site-spaces: each its space (a link to it), its path, and for admins move and remove. */
function SiteSpaces({
  siteSpaces,
  org,
  admin,
  siteBase,
  busy,
  change,
}: {
  siteSpaces: SiteSpace[];
  org: string;
  admin: boolean;
  siteBase: string;
  busy: boolean;
  change: Change;
}) {
  if (siteSpaces.length === 0) return <p class="muted">No spaces.</p>;
  return (
    <ol class="structure">
      {siteSpaces.map((siteSpace, index) => (
        <li key={siteSpace.id}>
          <a href={`${orgPath(org, "s", siteSpace.space.id)}/`}>{siteSpace.title || siteSpace.space.title}</a> <code>/{siteSpace.path}</code>
          {siteSpace.default ? <span class="muted"> (default)</span> : null}
          {siteSpace.draft ? <span class="muted"> (draft)</span> : null}
          {admin ? (
            <span class="row-actions">
              <MoveButtons items={siteSpaces} index={index} name={siteSpace.title} siteBase={siteBase} busy={busy} change={change} />
              <button
                type="button"
                class="danger"
                disabled={busy}
                aria-label={`Remove ${siteSpace.title} from the site`}
                onClick={() =>
                  void change(() => api("DELETE", `${siteBase}/site-spaces/${encodeURIComponent(siteSpace.id)}`), `${siteSpace.title} removed from the site.`)
                }
              >
                Remove
              </button>
            </span>
          ) : null}
        </li>
      ))}
    </ol>
  );
}

/** The site's structure, and (admins) adding a space, a section or a group. */
function Structure({ data, siteBase, org, busy, change }: { data: SiteData; siteBase: string; org: string; busy: boolean; change: Change }) {
  const admin = !!data.site.permissions.admin;
  const { structure } = data;
  const sections: SiteSection[] =
    structure.type === "sections"
      ? structure.structure.flatMap((item) => (item.object === "site-section" ? [item] : item.object === "site-section-group" ? item.sections : []))
      : [];
  const groups = structure.type === "sections" ? structure.structure.filter((item): item is SiteSectionGroup => item.object === "site-section-group") : [];
  const props = { org, admin, siteBase, busy, change };
  return (
    <>
      <h2 id="site-structure">Structure</h2>
      {structure.type === "siteSpaces" ? (
        <SiteSpaces siteSpaces={structure.structure} {...props} />
      ) : (
        <ol class="structure">
          {structure.structure.map((item, index) => (
            <li key={item.id}>
              <StructureEntry item={item} level={structure.structure} index={index} groups={groups} {...props} />
            </li>
          ))}
        </ol>
      )}
      {admin ? <AddToStructure data={data} sections={sections} siteBase={siteBase} busy={busy} change={change} /> : null}
    </>
  );
}

/** One item of the top level (or of a group): a section with its site-spaces, a group with its sections, an external link. */
function StructureEntry({
  item,
  level,
  index,
  groups,
  org,
  admin,
  siteBase,
  busy,
  change,
}: {
  item: StructureItem;
  level: StructureItem[];
  index: number;
  groups: SiteSectionGroup[];
  org: string;
  admin: boolean;
  siteBase: string;
  busy: boolean;
  change: Change;
}) {
  const props = { org, admin, siteBase, busy, change };
  if (item.object === "site-external-link")
    return (
      <>
        Link <a href={item.url}>{item.title}</a>
      </>
    );
  if (item.object === "site-section-group")
    return (
      <>
        <strong>Group {item.title}</strong>
        {admin ? (
          <span class="row-actions">
            <MoveButtons items={level} index={index} name={item.title} siteBase={siteBase} busy={busy} change={change} />
            <button
              type="button"
              class="danger"
              disabled={busy}
              aria-label={`Delete the group ${item.title}`}
              onClick={() =>
                void change(() => api("DELETE", `${siteBase}/section-groups/${encodeURIComponent(item.id)}`), `Group ${item.title} deleted; its sections stay.`)
              }
            >
              Delete group
            </button>
          </span>
        ) : null}
        <ol class="structure">
          {item.children.map((child, childIndex) => (
            <li key={child.id}>
              <StructureEntry item={child} level={item.children} index={childIndex} groups={groups} {...props} />
            </li>
          ))}
        </ol>
      </>
    );
  const group = groups.find((candidate) => candidate.id === item.sectionGroup);
  return (
    <>
      <strong>Section {item.title}</strong> <code>/{item.path}</code>
      {item.default ? <span class="muted"> (default)</span> : null}
      {admin ? (
        <span class="row-actions">
          <MoveButtons items={level} index={index} name={item.title} siteBase={siteBase} busy={busy} change={change} />
          {group ? (
            <button
              type="button"
              disabled={busy}
              aria-label={`Take ${item.title} out of ${group.title}`}
              onClick={() =>
                void change(
                  () => api("DELETE", `${siteBase}/section-groups/${encodeURIComponent(group.id)}/sections/${encodeURIComponent(item.id)}`),
                  `${item.title} left ${group.title}.`,
                )
              }
            >
              Out of group
            </button>
          ) : (
            groups.map((candidate) => (
              <button
                type="button"
                key={candidate.id}
                disabled={busy}
                aria-label={`Move ${item.title} into ${candidate.title}`}
                onClick={() =>
                  void change(
                    () => api("POST", `${siteBase}/section-groups/${encodeURIComponent(candidate.id)}/sections`, { sectionId: item.id }),
                    `${item.title} moved into ${candidate.title}.`,
                  )
                }
              >
                Into {candidate.title}
              </button>
            ))
          )}
          <button
            type="button"
            class="danger"
            disabled={busy}
            aria-label={`Remove the section ${item.title}`}
            onClick={() => void change(() => api("DELETE", `${siteBase}/sections/${encodeURIComponent(item.id)}`), `Section ${item.title} removed.`)}
          >
            Remove section
          </button>
        </span>
      ) : null}
      <SiteSpaces siteSpaces={item.siteSpaces} {...props} />
    </>
  );
}

/** Adding to the structure: a space (into a section when the site has them), a section, a group. */
function AddToStructure({
  data,
  sections,
  siteBase,
  busy,
  change,
}: {
  data: SiteData;
  sections: SiteSection[];
  siteBase: string;
  busy: boolean;
  change: Change;
}) {
  const [space, setSpace] = useState("");
  const [section, setSection] = useState("");
  const [sectionSpace, setSectionSpace] = useState("");
  const [sectionTitle, setSectionTitle] = useState("");
  const [groupTitle, setGroupTitle] = useState("");
  const addSpace = (event: Event) => {
    event.preventDefault();
    void change(async () => {
      await api("POST", `${siteBase}/site-spaces`, { spaceId: space, ...(section ? { sectionId: section } : {}) });
      setSpace("");
    }, "Space added to the site.");
  };
  const addSection = (event: Event) => {
    event.preventDefault();
    void change(async () => {
      await api("POST", `${siteBase}/sections`, { spaceId: sectionSpace, ...(sectionTitle ? { title: sectionTitle } : {}) });
      setSectionSpace("");
      setSectionTitle("");
    }, "Section added.");
  };
  const addGroup = (event: Event) => {
    event.preventDefault();
    void change(async () => {
      await api("POST", `${siteBase}/section-groups`, { title: groupTitle });
      setGroupTitle("");
    }, "Group added.");
  };
  const spaceOptions = data.spaces.map((item) => (
    <option key={item.id} value={item.id}>
      {item.title}
    </option>
  ));
  return (
    <div class="structure-forms">
      <form aria-labelledby="add-space-title" onSubmit={addSpace}>
        <h3 id="add-space-title">Add a space</h3>
        <label for="add-space">Space</label>
        <select id="add-space" required value={space} onChange={(event) => setSpace(event.currentTarget.value)}>
          <option value="">Choose a space…</option>
          {spaceOptions}
        </select>
        {sections.length > 0 ? (
          <>
            <label for="add-space-section">Into the section</label>
            <select id="add-space-section" value={section} onChange={(event) => setSection(event.currentTarget.value)}>
              <option value="">The default section</option>
              {sections.map((item) => (
                <option key={item.id} value={item.id}>
                  {item.title}
                </option>
              ))}
            </select>
          </>
        ) : null}
        <button type="submit" disabled={busy}>
          Add space
        </button>
      </form>
      <form aria-labelledby="add-section-title" onSubmit={addSection}>
        <h3 id="add-section-title">Add a section</h3>
        {sections.length === 0 ? <p class="muted">The first section takes the spaces the site has now.</p> : null}
        <label for="add-section-space">Its first space</label>
        <select id="add-section-space" required value={sectionSpace} onChange={(event) => setSectionSpace(event.currentTarget.value)}>
          <option value="">Choose a space…</option>
          {spaceOptions}
        </select>
        <label for="add-section-name">Section title (optional: the space's)</label>
        <input id="add-section-name" maxLength={128} value={sectionTitle} onInput={(event) => setSectionTitle(event.currentTarget.value)} />
        <button type="submit" disabled={busy}>
          Add section
        </button>
      </form>
      {sections.length > 0 ? (
        <form aria-labelledby="add-group-title" onSubmit={addGroup}>
          <h3 id="add-group-title">Add a group of sections</h3>
          <label for="add-group-name">Group title</label>
          <input id="add-group-name" required maxLength={100} value={groupTitle} onInput={(event) => setGroupTitle(event.currentTarget.value)} />
          <button type="submit" disabled={busy}>
            Add group
          </button>
        </form>
      ) : null}
    </div>
  );
}
