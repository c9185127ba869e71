import type { ComponentChildren } from "preact";
import { useState } from "preact/hooks";
import { api, ApiError } from "../api";
import { Breadcrumbs } from "./layout";
import { ErrorMessage, Notice, useLoad } from "./status";

/** The organization as the administration pages read it (`GET /v1/orgs/{id}`). */
export interface Organization {
  id: string;
  title: string;
  emailDomains: string[];
  defaultRole: string | null;
  inviteLinks: boolean;
  sso: boolean;
  signInMethods?: string[];
  permissions: { admin: boolean; listMembers: boolean; listTeams: boolean; installIntegration: boolean };
  urls: { app: string };
}

/** The organization's roles, from most to least, with what each may do in words. */
export const ROLES: { value: string; label: string; meaning: string }[] = [
  { value: "admin", label: "Admin", meaning: "manages members, sites, sign-in and integrations" },
  { value: "create", label: "Creator", meaning: "creates spaces and collections, and edits" },
  { value: "edit", label: "Editor", meaning: "edits content and merges change requests" },
  { value: "review", label: "Reviewer", meaning: "reviews change requests" },
  { value: "comment", label: "Commenter", meaning: "comments" },
  { value: "read", label: "Reader", meaning: "reads" },
];

/** A role's name for people ("Guest" for none). */
export function roleLabel(role: string | null | undefined): string {
  return ROLES.find((item) => item.value === role)?.label ?? "Guest";
}

/** The app path of an organization's page, e.g. `orgPath(id, "members")` → `/o/{id}/members`. */
export function orgPath(org: string, ...rest: string[]): string {
  return [`/o/${encodeURIComponent(org)}`, ...rest.map((part) => encodeURIComponent(part))].join("/");
}

/** The organization `org` (its title and permissions), read once per page. */
export function useOrganization(org: string) {
  return useLoad(() => api<Organization>("GET", `/v1/orgs/${encodeURIComponent(org)}`), org);
}

/** The page an admin-only page shows to others: what they need, and the way back. */
export function AdminOnly({ organization, what }: { organization: Organization; what: string }) {
  return (
    <section aria-labelledby="admin-only-title">
      <Breadcrumbs items={[{ label: "Home", href: "/" }, { label: organization.title, href: `${orgPath(organization.id)}/` }, { label: what }]} />
      <h1 id="admin-only-title">You need to be an admin</h1>
      <p>
        Only admins of {organization.title} see {what.toLowerCase()}. Ask one of them to change your role if you need to.
      </p>
      <p>
        <a href={`${orgPath(organization.id)}/`}>Back to {organization.title}</a>
      </p>
    </section>
  );
}

/**
 * A page the API refused to read: what it means in a heading (another organization's is not
 * found, `notFound`: e.g. "Site not found"), the API's words, and the way home.
 */
export function Refused({ error, notFound = "Organization not found" }: { error: unknown; notFound?: string }) {
  const status = error instanceof ApiError ? error.status : 0;
  const title = status === 404 ? notFound : status === 403 ? "You need to be an admin" : "This page could not be opened";
  return (
    <section aria-labelledby="refused-title">
      <h1 id="refused-title">{title}</h1>
      {status === 404 ? <p>It does not exist, or you are not a member of its organization.</p> : null}
      <ErrorMessage error={error} />
      <p>
        <a href="/">Back to your organizations</a>
      </p>
    </section>
  );
}

/**
 * An admin-only page's frame: the organization read first; not found or not readable is the API's
 * message, anyone but an admin the "you need to be an admin" page, an admin `children(organization)`.
 */
export function AdminPage({
  org,
  what,
  children,
}: {
  org: string;
  what: string;
  children: (organization: Organization, reload: () => void) => ComponentChildren;
}) {
  const state = useOrganization(org);
  if (state.error !== undefined) return <Refused error={state.error} />;
  if (state.data === undefined) return <p class="loading">Loading…</p>;
  if (!state.data.permissions.admin) return <AdminOnly organization={state.data} what={what} />;
  return <>{children(state.data, () => state.reload())}</>;
}

/** The organization's administration pages, linked from its page (admins see all; others what they may read). */
export function OrganizationNav({ organization }: { organization: Organization }) {
  const base = orgPath(organization.id);
  return (
    <nav class="org-nav" aria-label="Organization">
      <ul>
        <li>
          <a href={`${base}/sites/`}>Sites</a>
        </li>
        <li>
          <a href={`${base}/integrations`}>Integrations</a>
        </li>
        <li>
          <a href={`${base}/openapi`}>OpenAPI</a>
        </li>
        {organization.permissions.admin ? (
          <>
            <li>
              <a href={`${base}/members`}>Members</a>
            </li>
            <li>
              <a href={`${base}/settings/sign-in`}>Sign-in settings</a>
            </li>
          </>
        ) : null}
      </ul>
    </nav>
  );
}

/** A button copying `text`, then saying it copied (or that the browser refused: select it instead). */
export function CopyButton({ text, label }: { text: string; label: string }) {
  const [state, setState] = useState<"idle" | "copied" | "refused">("idle");
  const copy = async () => {
    try {
      await navigator.clipboard.writeText(text);
      setState("copied");
    } catch {
      setState("refused");
    }
  };
  return (
    <>
      <button type="button" aria-label={label} onClick={() => void copy()}>
        Copy
      </button>
      {state === "copied" ? <Notice>Copied.</Notice> : null}
      {state === "refused" ? (
        <p class="error" role="alert">
          The browser refused to copy: select the text and copy it yourself.
        </p>
      ) : null}
    </>
  );
}
