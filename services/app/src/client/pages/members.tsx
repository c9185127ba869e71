import { useState } from "preact/hooks";
import { all, api } from "../api";
import { Breadcrumbs } from "../components/layout";
import { AdminPage, CopyButton, orgPath, ROLES, roleLabel, type Organization } from "../components/organization";
import { CardList, Loaded, useLoad, useTitle, useChanges, type Change } from "../components/status";
import type { PageProps } from "../navigation";

interface Member {
  id: string;
  role: string | null;
  disabled: boolean;
  user: { id: string; displayName: string; email?: string };
}
interface InviteLink {
  id: string;
  role?: string | null;
  level?: string | null;
  space?: { title: string };
  collection?: { title: string };
  enabled: boolean;
  expiresAt: string | null;
}
interface Team {
  id: string;
  title: string;
  members: number;
}
interface TeamMember {
  organization: Member;
  team: { role: string };
}

/** Members, invite links, e-mail domains and teams of an organization: admins only. */
export default function MembersPage({ params, session }: PageProps) {
  useTitle("Members");
  return (
    <AdminPage org={params.org!} what="Members">
      {(organization, reloadOrganization) => (
        <section aria-labelledby="members-title">
          <Breadcrumbs items={[{ label: "Home", href: "/" }, { label: organization.title, href: `${orgPath(organization.id)}/` }, { label: "Members" }]} />
          <h1 id="members-title">Members</h1>
          <Members organization={organization} self={session?.user.id} />
          <Invites organization={organization} reloadOrganization={reloadOrganization} />
          <Teams organization={organization} />
        </section>
      )}
    </AdminPage>
  );
}

/** A role chooser; `short`: names only (in the members' table), else each role with what it may do. */
function RoleSelect({ id, value, onChange, label, short }: { id: string; value: string; onChange: (role: string) => void; label?: string; short?: boolean }) {
  return (
    <select id={id} value={value} aria-label={label} onChange={(event) => onChange(event.currentTarget.value)}>
      {ROLES.map((role) => (
        <option key={role.value} value={role.value}>
          {short ? role.label : `${role.label}: ${role.meaning}`}
        </option>
      ))}
    </select>
  );
}

/** The members: search by name or e-mail, filter by role, change a role, remove. */
function Members({ organization, self }: { organization: Organization; self?: string }) {
  const base = `/v1/orgs/${encodeURIComponent(organization.id)}/members`;
  const [search, setSearch] = useState("");
  const [role, setRole] = useState("");
  const [query, setQuery] = useState("");
  const members = useLoad(() => all<Member>(`${base}${query}`), query);
  const { change, busy, status } = useChanges(() => members.reload());
  const filter = (event: Event) => {
    event.preventDefault();
    const parameters = new URLSearchParams();
    if (search) parameters.set("search", search);
    if (role) parameters.set("role", role);
    setQuery(parameters.size > 0 ? `?${parameters}` : "");
  };
  return (
    <>
      <form class="inline-form" role="search" aria-label="Members" onSubmit={filter}>
        <label for="member-search">Search</label>
        <input id="member-search" type="search" value={search} onInput={(event) => setSearch(event.currentTarget.value)} />
        <label for="member-role-filter">Role</label>
        <select id="member-role-filter" value={role} onChange={(event) => setRole(event.currentTarget.value)}>
          <option value="">Any role</option>
          {ROLES.map((item) => (
            <option key={item.value} value={item.value}>
              {item.label}
            </option>
          ))}
          <option value="guest">Guest</option>
        </select>
        <button type="submit">Filter</button>
      </form>
      {status}
      <Loaded state={members}>
        {(items) =>
          items.length === 0 ? (
            <p class="muted">No member matches.</p>
          ) : (
            <table>
              <caption class="visually-hidden">Members of {organization.title}</caption>
              <thead>
                <tr>
                  <th scope="col">Name</th>
                  <th scope="col">E-mail</th>
                  <th scope="col">Role</th>
                  <th scope="col">
                    <span class="visually-hidden">Actions</span>
                  </th>
                </tr>
              </thead>
              <tbody>
                {items.map((member) => {
                  const name = member.user.displayName || member.user.email || member.id;
                  return (
                    <tr key={member.id}>
                      <td>
                        {name}
                        {member.disabled ? <span class="muted"> (disabled)</span> : null}
                        {member.id === self ? <span class="muted"> (you)</span> : null}
                      </td>
                      <td>{member.user.email}</td>
                      <td>
                        {member.role === null ? (
                          roleLabel(null)
                        ) : (
                          <RoleSelect
                            id={`role-${member.id}`}
                            label={`Role of ${name}`}
                            short
                            value={member.role}
                            onChange={(next) =>
                              void change(() => api("PATCH", `${base}/${encodeURIComponent(member.id)}`, { role: next }), `${name} is now ${roleLabel(next)}.`)
                            }
                          />
                        )}
                      </td>
                      <td>
                        <button
                          type="button"
                          class="danger"
                          disabled={busy}
                          aria-label={`Remove ${name}`}
                          onClick={() => void change(() => api("DELETE", `${base}/${encodeURIComponent(member.id)}`), `${name} removed.`)}
                        >
                          Remove
                        </button>
                      </td>
                    </tr>
                  );
                })}
              </tbody>
            </table>
          )
        }
      </Loaded>
    </>
  );
}

/** Invite links (create with a role, list with the link to hand out, revoke) and the e-mail domains that join by themselves. */
function Invites({ organization, reloadOrganization }: { organization: Organization; reloadOrganization: () => void }) {
  const base = `/v1/orgs/${encodeURIComponent(organization.id)}`;
  const invites = useLoad(() => all<InviteLink>(`${base}/link-invites`), organization.id);
  const { change, busy, status } = useChanges(() => {
    invites.reload();
    reloadOrganization();
  });
  const [role, setRole] = useState("edit");
  const [domains, setDomains] = useState(organization.emailDomains.join(", "));
  const [defaultRole, setDefaultRole] = useState(organization.defaultRole ?? "read");
  const linkOf = (invite: InviteLink) => `${location.origin}/join/${encodeURIComponent(organization.id)}/${encodeURIComponent(invite.id)}`;
  const create = (event: Event) => {
    event.preventDefault();
    void change(() => api("POST", `${base}/link-invites`, { role }), "Invite link created.");
  };
  const saveDomains = (event: Event) => {
    event.preventDefault();
    const emailDomains = domains
      .split(/[\s,]+/)
      .map((domain) => domain.trim())
      .filter(Boolean);
    void change(() => api("PATCH", base, { emailDomains, defaultRole }), "E-mail domains saved.");
  };
  return (
    <>
      <h2 id="invites-title">Invite links</h2>
      <p class="muted">Whoever opens an invite link creates an account (or uses theirs) and joins with the link's role. Revoke a link to stop it.</p>
      <form class="inline-form" aria-labelledby="invites-title" onSubmit={create}>
        <label for="invite-role">Role of people who join</label>
        <RoleSelect id="invite-role" value={role} onChange={setRole} />
        <button type="submit" disabled={busy}>
          Create invite link
        </button>
      </form>
      {status}
      <Loaded state={invites}>
        {(items) =>
          items.filter((invite) => invite.enabled).length === 0 ? (
            <p class="muted">No active invite links.</p>
          ) : (
            <ul class="cards">
              {items
                .filter((invite) => invite.enabled)
                .map((invite) => {
                  const what = invite.space
                    ? `${roleLabel(invite.level)} of the space ${invite.space.title}`
                    : invite.collection
                      ? `${roleLabel(invite.level)} of the collection ${invite.collection.title}`
                      : roleLabel(invite.role);
                  return (
                    <li key={invite.id}>
                      <strong>{what}</strong>
                      {invite.expiresAt ? <span class="muted"> · until {new Date(invite.expiresAt).toLocaleString()}</span> : null}
                      <p>
                        <code class="token-secret invite-link">{linkOf(invite)}</code>{" "}
                        <CopyButton text={linkOf(invite)} label={`Copy the ${what} invite link`} />
                      </p>
                      <button
                        type="button"
                        class="danger"
                        disabled={busy}
                        aria-label={`Revoke the ${what} invite link`}
                        onClick={() =>
                          void change(() => api("PATCH", `${base}/link-invites/${encodeURIComponent(invite.id)}`, { enabled: false }), "Invite link revoked.")
                        }
                      >
                        Revoke
                      </button>
                    </li>
                  );
                })}
            </ul>
          )
        }
      </Loaded>
      <h3 id="domains-title">E-mail domains</h3>
      <p class="muted">People whose verified e-mail is at one of these domains join by themselves, with the default role.</p>
      <form aria-labelledby="domains-title" onSubmit={saveDomains}>
        <label for="email-domains">Domains (separated by commas)</label>
        <input id="email-domains" value={domains} placeholder="example.com" onInput={(event) => setDomains(event.currentTarget.value)} />
        <label for="default-role">Default role</label>
        <RoleSelect id="default-role" value={defaultRole} onChange={setDefaultRole} />
        <button type="submit" disabled={busy}>
          Save e-mail domains
        </button>
      </form>
    </>
  );
}

/** Teams: create, rename, delete; a team's members listed, added and removed. */
function Teams({ organization }: { organization: Organization }) {
  const base = `/v1/orgs/${encodeURIComponent(organization.id)}/teams`;
  const teams = useLoad(() => all<Team>(base), organization.id);
  const { change, busy, status } = useChanges(() => teams.reload());
  const [title, setTitle] = useState("");
  const create = (event: Event) => {
    event.preventDefault();
    void change(async () => {
      await api("PUT", base, { title });
      setTitle("");
    }, "Team created.");
  };
  return (
    <>
      <h2 id="teams-title">Teams</h2>
      <form class="inline-form" aria-labelledby="teams-title" onSubmit={create}>
        <label for="team-title">New team</label>
        <input id="team-title" required maxLength={255} value={title} onInput={(event) => setTitle(event.currentTarget.value)} />
        <button type="submit" disabled={busy}>
          Create team
        </button>
      </form>
      {status}
      <Loaded state={teams}>
        {(items) => (
          <CardList items={items} empty="No teams." keyOf={(team) => team.id}>
            {(team) => <TeamCard organization={organization} team={team} busy={busy} change={change} />}
          </CardList>
        )}
      </Loaded>
    </>
  );
}

function TeamCard({ organization, team, busy, change }: { organization: Organization; team: Team; busy: boolean; change: Change }) {
  const base = `/v1/orgs/${encodeURIComponent(organization.id)}/teams/${encodeURIComponent(team.id)}`;
  const [open, setOpen] = useState(false);
  const [title, setTitle] = useState(team.title);
  const [adding, setAdding] = useState("");
  const members = useLoad(
    async () =>
      open
        ? { team: await all<TeamMember>(`${base}/members`), organization: await all<Member>(`/v1/orgs/${encodeURIComponent(organization.id)}/members`) }
        : undefined,
    `${team.id}/${open}/${team.members}`,
  );
  const rename = (event: Event) => {
    event.preventDefault();
    void change(() => api("PATCH", base, { title }), `Team renamed to ${title}.`);
  };
  const add = (event: Event) => {
    event.preventDefault();
    void change(async () => {
      await api("PUT", `${base}/members/${encodeURIComponent(adding)}`);
      setAdding("");
    }, "Member added to the team.");
  };
  const details = `team-${team.id}`;
  return (
    <>
      <strong>{team.title}</strong> <span class="muted">· {team.members === 1 ? "1 member" : `${team.members} members`}</span>{" "}
      <button type="button" aria-expanded={open} aria-controls={details} onClick={() => setOpen(!open)}>
        {open ? "Hide" : "Manage"} <span class="visually-hidden">{team.title}</span>
      </button>{" "}
      <button
        type="button"
        class="danger"
        disabled={busy}
        aria-label={`Delete the team ${team.title}`}
        onClick={() => void change(() => api("DELETE", base), `Team ${team.title} deleted.`)}
      >
        Delete
      </button>
      <div id={details} hidden={!open}>
        <form class="inline-form" onSubmit={rename}>
          <label for={`${details}-title`}>Name</label>
          <input id={`${details}-title`} required maxLength={255} value={title} onInput={(event) => setTitle(event.currentTarget.value)} />
          <button type="submit" disabled={busy}>
            Rename
          </button>
        </form>
        {open ? (
          <Loaded state={members}>
            {(answer) =>
              answer ? (
                <>
                  <ul>
                    {answer.team.map(({ organization: member, team: membership }) => {
                      const name = member.user.displayName || member.user.email || member.id;
                      return (
                        <li key={member.id}>
                          {name} <span class="muted">({membership.role})</span>{" "}
                          <button
                            type="button"
                            class="danger"
                            disabled={busy}
                            aria-label={`Remove ${name} from ${team.title}`}
                            onClick={() => void change(() => api("DELETE", `${base}/members/${encodeURIComponent(member.id)}`), `${name} left ${team.title}.`)}
                          >
                            Remove
                          </button>
                        </li>
                      );
                    })}
                  </ul>
                  <form class="inline-form" onSubmit={add}>
                    <label for={`${details}-add`}>Add a member</label>
                    <select id={`${details}-add`} required value={adding} onChange={(event) => setAdding(event.currentTarget.value)}>
                      <option value="">Choose a member…</option>
                      {answer.organization
                        .filter((member) => !answer.team.some((item) => item.organization.id === member.id))
                        .map((member) => (
                          <option key={member.id} value={member.id}>
                            {member.user.displayName || member.user.email}
                          </option>
                        ))}
                    </select>
                    <button type="submit" disabled={busy}>
                      Add to team
                    </button>
                  </form>
                </>
              ) : null
            }
          </Loaded>
        ) : null}
      </div>
    </>
  );
}
