import type { JsonDocument } from "@imprint/document";
import { useState } from "preact/hooks";
import { all, api } from "../api";
import { Breadcrumbs } from "../components/layout";
import {
  type ChangeRequest,
  contentPrefix,
  EMPTY_DOCUMENT,
  firstDocument,
  flatten,
  PageTree,
  pageHref,
  RenderedDocument,
  type RevisionPage,
  type Scope,
  type Space,
  spacePath,
} from "../components/space";
import { ErrorMessage, Loaded, useLoad, useTitle } from "../components/status";
import { navigate, type PageProps } from "../navigation";

interface SearchResult {
  id: string;
  title: string;
  path: string;
  sections?: { id: string; title: string; body?: string }[];
}

/** The person's own change request on the space that is still open (or a draft), newest first; else a new one. */
export async function ownChangeRequest(space: string, userId: string, title: string): Promise<ChangeRequest> {
  const base = `/v1/spaces/${encodeURIComponent(space)}/change-requests`;
  const [open, drafts] = await Promise.all(
    ["open", "draft"].map((status) => all<ChangeRequest>(`${base}?status=${status}&creator=${encodeURIComponent(userId)}`)),
  );
  const mine = [...open!, ...drafts!].sort((a, b) => b.updatedAt.localeCompare(a.updatedAt))[0];
  return mine ?? api<ChangeRequest>("POST", base, { subject: `Edit ${title}`.slice(0, 100) });
}

/**
 * A space: its page tree, search, and a page rendered as the reader renders it, in the space's
 * current revision (`/o/{org}/s/{space}/{path}`), in a change request (`~/changes/{n}/{path}`) or
 * in a revision (`~/revisions/{id}/{path}`). "Edit" continues the person's change request.
 */
export default function SpacePage({ params, session }: PageProps) {
  const org = params.org!;
  const spaceId = params.space!;
  const path = params.path ?? "";
  const scope: Scope = params.changeRequest
    ? { kind: "change", changeRequest: params.changeRequest }
    : params.revision
      ? { kind: "revision", revision: params.revision }
      : { kind: "current" };
  const prefix = contentPrefix(spaceId, scope);
  const state = useLoad(async () => {
    const [space, tree, changeRequest] = await Promise.all([
      api<Space>("GET", `/v1/spaces/${encodeURIComponent(spaceId)}`),
      api<{ pages: RevisionPage[] }>("GET", `${prefix}/pages`),
      scope.kind === "change"
        ? api<ChangeRequest>("GET", `/v1/spaces/${encodeURIComponent(spaceId)}/change-requests/${encodeURIComponent(scope.changeRequest)}`)
        : undefined,
    ]);
    const page = path ? flatten(tree.pages).find((candidate) => candidate.path === path && candidate.type === "document") : firstDocument(tree.pages);
    const body = page ? await api<{ document?: JsonDocument }>("GET", `${prefix}/page/${encodeURIComponent(page.id)}?format=document`) : undefined;
    return { space, pages: tree.pages, page, document: body?.document ?? EMPTY_DOCUMENT, changeRequest };
  }, `${prefix}|${path}`);
  useTitle(state.data?.page?.title ?? state.data?.space.title ?? "Space");
  const [query, setQuery] = useState("");
  const [results, setResults] = useState<SearchResult[] | null>(null);
  const [failure, setFailure] = useState<unknown>(undefined);
  const [busy, setBusy] = useState(false);
  const base = spacePath(org, spaceId);

  async function search(event: Event) {
    event.preventDefault();
    setFailure(undefined);
    try {
      const answer = await api<{ items: SearchResult[] }>("GET", `/v1/spaces/${encodeURIComponent(spaceId)}/search?query=${encodeURIComponent(query)}`);
      setResults(answer.items);
    } catch (error) {
      setFailure(error);
    }
  }

  async function edit(page: RevisionPage) {
    setBusy(true);
    setFailure(undefined);
    try {
      const number = scope.kind === "change" ? scope.changeRequest : String((await ownChangeRequest(spaceId, session!.user.id, page.title)).number);
      // The page's id too: in the change request its path may differ (renamed there).
      navigate(
        `${base}/~/edit/${encodeURIComponent(number)}/${(page.path ?? "").split("/").map(encodeURIComponent).join("/")}?page=${encodeURIComponent(page.id)}`,
      );
    } catch (error) {
      setFailure(error);
      setBusy(false);
    }
  }

  return (
    <Loaded state={state}>
      {({ space, pages, page, document, changeRequest }) => {
        const links = Object.fromEntries(flatten(pages).map((item) => [item.id, pageHref(org, spaceId, scope, item.path ?? "")]));
        const editable = scope.kind === "current" || (changeRequest !== undefined && (changeRequest.status === "open" || changeRequest.status === "draft"));
        return (
          <section aria-labelledby="page-title">
            <Breadcrumbs
              items={[
                { label: "Home", href: "/" },
                { label: "Organization", href: `/o/${encodeURIComponent(org)}/` },
                { label: space.title, href: `${base}/` },
                ...(page ? [{ label: page.title }] : []),
              ]}
            />
            {changeRequest ? (
              <p class="scope-note">
                In change request{" "}
                <a href={`${base}/~/changes/${changeRequest.number}/`}>
                  #{changeRequest.number} {changeRequest.subject}
                </a>{" "}
                ({changeRequest.status})
              </p>
            ) : null}
            {scope.kind === "revision" ? (
              <p class="scope-note">
                As it was at revision <code>{scope.revision}</code>. <a href={`${base}/`}>The current version</a>
              </p>
            ) : null}
            <div class="space-toolbar">
              <a href={`${base}/~/history`}>History</a>
              <a href={`${base}/~/changes`}>Change requests</a>
              {page && editable ? (
                <button type="button" disabled={busy} onClick={() => void edit(page)}>
                  Edit
                </button>
              ) : null}
              <form role="search" onSubmit={(event) => void search(event)}>
                <label for="space-search" class="visually-hidden">
                  Search this space
                </label>
                <input id="space-search" type="search" value={query} required onInput={(event) => setQuery((event.target as HTMLInputElement).value)} />
                <button type="submit">Search</button>
              </form>
            </div>
            <ErrorMessage error={failure} />
            {results ? (
              <section aria-labelledby="search-title">
                <h2 id="search-title">Search results</h2>
                {results.length === 0 ? (
                  <p class="muted">Nothing found.</p>
                ) : (
                  <ul>
                    {results.map((result) => (
                      <li key={result.id}>
                        <a href={pageHref(org, spaceId, { kind: "current" }, result.path)}>{result.title}</a>
                        {result.sections?.[0]?.body ? <p class="muted">{result.sections[0].body}</p> : null}
                      </li>
                    ))}
                  </ul>
                )}
              </section>
            ) : null}
            <div class="space-layout">
              <PageTree pages={pages} current={page?.id} href={(item) => links[item.id]!} />
              <div>
                <h1 id="page-title">{page ? page.title : path ? "Page not found" : space.title}</h1>
                {page ? (
                  <RenderedDocument document={document} links={links} />
                ) : (
                  <p class="muted">{path ? `No page at ${path}.` : "This space has no pages yet."}</p>
                )}
              </div>
            </div>
          </section>
        );
      }}
    </Loaded>
  );
}
