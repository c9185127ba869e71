// What the space pages share (the space, change request, history and editor pages): the content
// a path reads, the page tree, and a document rendered as the reader renders it.
import type { JsonDocument } from "@imprint/document";
import { useEffect, useState } from "preact/hooks";
import { api } from "../api";
import { ErrorMessage } from "./status";
import "./space.css";

/** A page of a revision's tree, as `GET …/pages` answers it. */
export interface RevisionPage {
  id: string;
  title: string;
  type: "document" | "group" | "link" | "computed";
  path?: string;
  hidden?: boolean;
  emoji?: string;
  pages?: RevisionPage[];
}

export interface Space {
  id: string;
  title: string;
  organization?: string;
}

export interface User {
  id: string;
  displayName: string;
}

export interface ChangeRequest {
  id: string;
  number: number;
  status: "draft" | "open" | "archived" | "merged";
  subject: string;
  description?: JsonDocument;
  createdBy?: User;
  createdAt: string;
  updatedAt: string;
  revision: string;
  revisionInitial: string;
  revisionMergedAncestor?: string;
  revisionMerged?: string;
  outdated: boolean;
  comments: number;
}

/** A page without a body. */
export const EMPTY_DOCUMENT: JsonDocument = { object: "document", data: {}, nodes: [] };

/** Which content a space page shows: the space's current revision, a change request's, or a revision's. */
export type Scope = { kind: "current" } | { kind: "change"; changeRequest: string } | { kind: "revision"; revision: string };

const segment = encodeURIComponent;

/** The API prefix of a scope's content (`…/content`, `…/change-requests/{n}/content`, `…/revisions/{id}`). */
export function contentPrefix(space: string, scope: Scope): string {
  const base = `/v1/spaces/${segment(space)}`;
  if (scope.kind === "change") return `${base}/change-requests/${segment(scope.changeRequest)}/content`;
  if (scope.kind === "revision") return `${base}/revisions/${segment(scope.revision)}`;
  return `${base}/content`;
}

/** The app's path of a space (`/o/{org}/s/{space}`), no trailing slash. */
export function spacePath(org: string, space: string): string {
  return `/o/${segment(org)}/s/${segment(space)}`;
}

/** The app's path of a page (`path` as the API names it) in a scope, as `urls.app` builds it. */
export function pageHref(org: string, space: string, scope: Scope, path: string): string {
  const base = spacePath(org, space);
  const encoded = path.split("/").filter(Boolean).map(segment).join("/");
  if (scope.kind === "change") return `${base}/~/changes/${segment(scope.changeRequest)}/${encoded}`;
  if (scope.kind === "revision") return `${base}/~/revisions/${segment(scope.revision)}/${encoded}`;
  return `${base}/${encoded}`;
}

/** Every page of a tree, depth first. */
export function flatten(pages: RevisionPage[]): RevisionPage[] {
  return pages.flatMap((page) => [page, ...flatten(page.pages ?? [])]);
}

/** The page a space opens on: the first document page of the tree. */
export function firstDocument(pages: RevisionPage[]): RevisionPage | undefined {
  return flatten(pages).find((page) => page.type === "document");
}

/** A user's name for people. */
export function userName(user: User | undefined): string {
  return user?.displayName || "Someone";
}

/** A date and time as the person's browser writes them. */
export function when(iso: string): string {
  return new Date(iso).toLocaleString();
}

/**
 * The pages of a space as a nested list of links, the current page marked (`aria-current`).
 * Arrow keys move between the links (Home and End to the first and last), Tab leaves the tree.
 */
export function PageTree({ pages, current, href }: { pages: RevisionPage[]; current?: string; href: (page: RevisionPage) => string }) {
  const onKeyDown = (event: KeyboardEvent) => {
    const links = Array.from((event.currentTarget as HTMLElement).querySelectorAll<HTMLAnchorElement>("a"));
    const index = links.indexOf(document.activeElement as HTMLAnchorElement);
    if (index < 0) return;
    const next =
      event.key === "ArrowDown" ? index + 1 : event.key === "ArrowUp" ? index - 1 : event.key === "Home" ? 0 : event.key === "End" ? links.length - 1 : -2;
    if (next === -2) return;
    event.preventDefault();
    links[Math.max(0, Math.min(links.length - 1, next))]?.focus();
  };
  const items = (list: RevisionPage[]) => (
    <ul>
      {list.map((page) => (
        <li key={page.id}>
          {page.type === "document" ? (
            <a href={href(page)} aria-current={page.id === current ? "page" : undefined}>
              {page.emoji ? `${page.emoji} ` : ""}
              {page.title}
            </a>
          ) : (
            <span class="tree-group">{page.title}</span>
          )}
          {page.pages && page.pages.length > 0 ? items(page.pages) : null}
        </li>
      ))}
    </ul>
  );
  return (
    <nav class="page-tree" aria-label="Pages" onKeyDown={onKeyDown}>
      {pages.length === 0 ? <p class="muted">No pages yet.</p> : items(pages)}
    </nav>
  );
}

/**
 * A page's document rendered by the app's server with the reader's own renderer
 * (`POST /_app/render`), shown with the reader's block styles. Page links lead to the pages of
 * the same scope.
 */
export function RenderedDocument({ document, links }: { document: JsonDocument; links: Record<string, string> }) {
  const [state, setState] = useState<{ html?: string; error?: unknown }>({});
  useEffect(() => {
    let current = true;
    setState({});
    api<{ html: string }>("POST", "/_app/render", { document, pages: links }).then(
      (answer) => current && setState({ html: answer.html }),
      (error: unknown) => current && setState({ error }),
    );
    return () => {
      current = false;
    };
  }, [document]);
  if (state.error !== undefined) return <ErrorMessage error={state.error} />;
  if (state.html === undefined) return <p class="loading">Loading…</p>;
  return <article class="page-body" dangerouslySetInnerHTML={{ __html: state.html }} />;
}
