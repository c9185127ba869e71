import { api } from "../api";
import { Breadcrumbs } from "../components/layout";
import { type ChangeRequest, type Space, spacePath, userName, when } from "../components/space";
import { Loaded, useLoad, useTitle } from "../components/status";
import type { PageProps } from "../navigation";

interface Revision {
  id: string;
  parents: string[];
  createdAt: string;
  type: "edits" | "merge" | "update";
  mergedFrom?: ChangeRequest;
  git?: { message?: string };
}
interface RevisionChange {
  type: string;
  page?: { title: string };
  file?: { name: string };
}

/** How many revisions the history shows, newest first (each one read, with what it changed). */
const SHOWN = 20;

const CHANGE_WORDS: Record<string, string> = {
  page_created: "added",
  page_deleted: "deleted",
  page_edited: "edited",
  page_moved: "moved",
  file_created: "file added",
  file_deleted: "file deleted",
  file_edited: "file changed",
};

/**
 * A space's history: its revisions newest first (the current one, then each first parent), each
 * with who made it (the change request it merged and its author), when, the pages it changed, and
 * a link to the space as it was then (`~/revisions/{id}/`).
 */
export default function SpaceHistoryPage({ params }: PageProps) {
  const org = params.org!;
  const spaceId = params.space!;
  const space = `/v1/spaces/${encodeURIComponent(spaceId)}`;
  const base = spacePath(org, spaceId);
  const state = useLoad(async () => {
    const [info, current] = await Promise.all([api<Space>("GET", space), api<Revision>("GET", `${space}/content?metadata=false`)]);
    const revisions: { revision: Revision; changes: RevisionChange[] }[] = [];
    let next: Revision | undefined = current;
    while (next && revisions.length < SHOWN) {
      const revision: Revision = next;
      const changes = await api<{ changes: RevisionChange[] }>("GET", `${space}/revisions/${encodeURIComponent(revision.id)}/changes?limit=20`);
      revisions.push({ revision, changes: changes.changes });
      const parent = revision.parents[0];
      next = parent ? await api<Revision>("GET", `${space}/revisions/${encodeURIComponent(parent)}?metadata=false`) : undefined;
    }
    return { space: info, revisions, more: next !== undefined };
  }, spaceId);
  useTitle(state.data ? `History · ${state.data.space.title}` : "History");
  return (
    <Loaded state={state}>
      {({ space: info, revisions, more }) => (
        <section aria-labelledby="history-title">
          <Breadcrumbs items={[{ label: info.title, href: `${base}/` }, { label: "History" }]} />
          <h1 id="history-title">History</h1>
          <ol class="cards history">
            {revisions.map(({ revision, changes }) => (
              <li key={revision.id}>
                <a href={`${base}/~/revisions/${encodeURIComponent(revision.id)}/`}>{when(revision.createdAt)}</a>
                <p>
                  {revision.mergedFrom ? (
                    <>
                      {userName(revision.mergedFrom.createdBy)}: merged{" "}
                      <a href={`${base}/~/changes/${revision.mergedFrom.number}/`}>
                        #{revision.mergedFrom.number} {revision.mergedFrom.subject}
                      </a>
                    </>
                  ) : revision.git?.message ? (
                    `Git: ${revision.git.message}`
                  ) : revision.type === "update" ? (
                    "Updated from main"
                  ) : revision.parents.length === 0 ? (
                    "The space was created"
                  ) : (
                    "Edited"
                  )}
                </p>
                {changes.length > 0 ? (
                  <p class="muted">
                    {changes.map((change) => `${change.page?.title ?? change.file?.name ?? ""} ${CHANGE_WORDS[change.type] ?? change.type}`).join(", ")}
                  </p>
                ) : null}
              </li>
            ))}
          </ol>
          {more ? <p class="muted">Older revisions are not shown.</p> : null}
        </section>
      )}
    </Loaded>
  );
}
