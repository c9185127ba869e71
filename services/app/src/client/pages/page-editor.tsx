import type { JsonDocument } from "@imprint/document";
import type { ComponentType } from "preact";
import { useEffect, useRef, useState } from "preact/hooks";
import { api } from "../api";
import { Breadcrumbs } from "../components/layout";
import {
  type ChangeRequest,
  contentPrefix,
  EMPTY_DOCUMENT,
  firstDocument,
  flatten,
  pageHref,
  type RevisionPage,
  type Space,
  spacePath,
} from "../components/space";
import { ErrorMessage, Loaded, Notice, useLoad, useTitle } from "../components/status";
import type { DocumentEditorProps } from "../editor/index";
import { navigate, type PageProps } from "../navigation";

/** How long after the last change the page saves itself. */
const AUTOSAVE_MS = 3000;

type SaveState = "unchanged" | "changed" | "saving" | "saved" | "failed" | "conflict";

const SAVE_WORDS: Record<SaveState, string> = {
  unchanged: "No changes yet",
  changed: "Unsaved changes",
  saving: "Saving…",
  saved: "Saved",
  failed: "Not saved",
  conflict: "Not saved: conflict",
};

/** The editor's chunk, loaded when the first editing page opens. */
let editorModule: Promise<{ DocumentEditor: ComponentType<DocumentEditorProps> }> | undefined;

/**
 * A page edited inside a change request (`/o/{org}/s/{space}/~/edit/{n}/{path}`): the title and
 * the document, saved by "Save" and a few seconds after the last change, each time as one
 * `updateChangeRequestContent` batch. Before saving it checks the change request's revision is
 * still the one it started from: if another person (or tab) saved meanwhile, nothing is
 * overwritten and a conflict is shown, the person's text kept in the editor.
 */
export default function PageEditorPage({ params, query }: PageProps) {
  const org = params.org!;
  const spaceId = params.space!;
  const number = params.changeRequest!;
  const path = params.path ?? "";
  const pageId = query.get("page");
  const crPath = `/v1/spaces/${encodeURIComponent(spaceId)}/change-requests/${encodeURIComponent(number)}`;
  const prefix = contentPrefix(spaceId, { kind: "change", changeRequest: number });
  const [round, setRound] = useState(0);
  const state = useLoad(async () => {
    const [space, changeRequest, tree] = await Promise.all([
      api<Space>("GET", `/v1/spaces/${encodeURIComponent(spaceId)}`),
      api<ChangeRequest>("GET", crPath),
      api<{ pages: RevisionPage[] }>("GET", `${prefix}/pages`),
    ]);
    const documents = flatten(tree.pages).filter((candidate) => candidate.type === "document");
    const page =
      documents.find((candidate) => candidate.id === pageId) ??
      (path ? documents.find((candidate) => candidate.path === path) : pageId ? undefined : firstDocument(tree.pages));
    const body = page ? await api<{ document?: JsonDocument }>("GET", `${prefix}/page/${encodeURIComponent(page.id)}?format=document`) : undefined;
    return { space, changeRequest, pages: tree.pages, page, document: body?.document ?? EMPTY_DOCUMENT };
  }, `${crPath}|${path}|${pageId}|${round}`);
  useTitle(state.data?.page ? `Editing ${state.data.page.title}` : "Editing");
  const [Editor, setEditor] = useState<ComponentType<DocumentEditorProps> | null>(null);
  const [editorFailure, setEditorFailure] = useState<unknown>(undefined);
  useEffect(() => {
    (editorModule ??= import("../editor/index")).then(
      (module) => setEditor(() => module.DocumentEditor),
      (error: unknown) => setEditorFailure(error),
    );
  }, []);

  const [document, setDocument] = useState<JsonDocument | null>(null);
  const [title, setTitle] = useState("");
  const [saveState, setSaveState] = useState<SaveState>("unchanged");
  const [failure, setFailure] = useState<unknown>(undefined);
  const [newTitle, setNewTitle] = useState("");
  /** The change request's revision this editor's content stands on (what it read, then what it saved). */
  const base = useRef("");
  const latest = useRef<{ document: JsonDocument | null; title: string; edits: number }>({ document: null, title: "", edits: 0 });
  const saving = useRef(false);
  const timer = useRef<ReturnType<typeof setTimeout> | undefined>(undefined);
  const conflicted = useRef(false);

  useEffect(() => {
    const data = state.data;
    if (!data) return;
    base.current = data.changeRequest.revision;
    latest.current = { document: data.document, title: data.page?.title ?? "", edits: 0 };
    conflicted.current = false;
    unsaved.current = false;
    setDocument(data.document);
    setTitle(data.page?.title ?? "");
    setSaveState("unchanged");
  }, [state.data]);
  useEffect(() => () => clearTimeout(timer.current), []);
  /** Whether there are edits no save has sent yet: closing the tab then asks first. */
  const unsaved = useRef(false);
  useEffect(() => {
    const warn = (event: BeforeUnloadEvent) => {
      if (unsaved.current) event.preventDefault();
    };
    window.addEventListener("beforeunload", warn);
    return () => window.removeEventListener("beforeunload", warn);
  }, []);

  function changed(update: Partial<{ document: JsonDocument; title: string }>) {
    latest.current = { ...latest.current, ...update, edits: latest.current.edits + 1 };
    unsaved.current = true;
    // The editor keeps its own content: `document` is only what it was given (loaded), never
    // each change fed back (a change given back while the next keystroke is typed would replace it).
    if (update.title !== undefined) setTitle(update.title);
    if (conflicted.current) return;
    setSaveState("changed");
    clearTimeout(timer.current);
    timer.current = setTimeout(() => void save(), AUTOSAVE_MS);
  }

  async function save(): Promise<boolean> {
    const page = state.data?.page;
    if (!page || saving.current || conflicted.current) return false;
    clearTimeout(timer.current);
    saving.current = true;
    setSaveState("saving");
    setFailure(undefined);
    const sent = latest.current;
    try {
      const current = await api<ChangeRequest>("GET", crPath);
      if (current.revision !== base.current) {
        conflicted.current = true;
        setSaveState("conflict");
        return false;
      }
      const answer = await api<ChangeRequest>("POST", `${crPath}/content`, {
        changes: [{ operation: "update_page", page: page.id, title: sent.title, document: { document: sent.document } }],
      });
      base.current = answer.revision;
      if (latest.current.edits === sent.edits) {
        unsaved.current = false;
        setSaveState("saved");
      } else {
        setSaveState("changed");
        timer.current = setTimeout(() => void save(), AUTOSAVE_MS);
      }
      return true;
    } catch (error) {
      setFailure(error);
      setSaveState("failed");
      return false;
    } finally {
      saving.current = false;
    }
  }

  /** Runs one batch of page operations (after saving what is unsaved), then opens `then`. */
  async function batch(changes: unknown[], then: (pages: RevisionPage[], before: Set<string>) => string) {
    setFailure(undefined);
    try {
      if (saveState === "changed" && !(await save())) return;
      const before = new Set(flatten(state.data?.pages ?? []).map((page) => page.id));
      await api("POST", `${crPath}/content`, { changes });
      const tree = await api<{ pages: RevisionPage[] }>("GET", `${prefix}/pages`);
      navigate(then(tree.pages, before));
    } catch (error) {
      setFailure(error);
    }
  }

  const editPath = (page: RevisionPage | undefined) =>
    `${spacePath(org, spaceId)}/~/edit/${encodeURIComponent(number)}/${(page?.path ?? "").split("/").map(encodeURIComponent).join("/")}`;

  return (
    <Loaded state={state}>
      {({ space, changeRequest, page }) => {
        const crHref = `${spacePath(org, spaceId)}/~/changes/${changeRequest.number}/`;
        const closed = changeRequest.status === "merged" || changeRequest.status === "archived";
        return (
          <section aria-labelledby="editor-title">
            <Breadcrumbs
              items={[
                { label: space.title, href: `${spacePath(org, spaceId)}/` },
                { label: `#${changeRequest.number} ${changeRequest.subject}`, href: crHref },
                { label: page ? `Editing ${page.title}` : "Editing" },
              ]}
            />
            <h1 id="editor-title">{page ? `Editing ${page.title}` : "No page to edit"}</h1>
            <p>
              In change request{" "}
              <a href={crHref}>
                #{changeRequest.number} {changeRequest.subject}
              </a>
              .{" "}
              {page ? (
                <a href={pageHref(org, spaceId, { kind: "change", changeRequest: String(changeRequest.number) }, page.path ?? "")}>View the page</a>
              ) : null}
            </p>
            {closed ? <Notice>This change request is {changeRequest.status}: it cannot be edited.</Notice> : null}
            <ErrorMessage error={failure ?? editorFailure} />
            {saveState === "conflict" ? (
              <div class="conflict" role="alert">
                <p>
                  <strong>Someone else saved this change request</strong> (another person, or you in another tab) since you opened this page. Your changes were
                  not saved and nothing was overwritten: they are still below, to copy before loading the latest version.
                </p>
                <button type="button" onClick={() => setRound((value) => value + 1)}>
                  Load the latest version
                </button>
              </div>
            ) : null}
            {page && !closed ? (
              <>
                <div class="space-toolbar">
                  <button type="button" onClick={() => void save()} disabled={saveState === "saving" || saveState === "conflict"}>
                    Save
                  </button>
                  <span class="save-state" role="status">
                    {SAVE_WORDS[saveState]}
                  </span>
                  <button
                    type="button"
                    onClick={() => {
                      if (confirm(`Delete the page "${page.title}" (and its sub-pages) in this change request?`))
                        void batch([{ operation: "delete_page", page: page.id }], () => crHref);
                    }}
                  >
                    Delete page
                  </button>
                </div>
                <label for="page-title-input">Title</label>
                <input
                  id="page-title-input"
                  class="title-input"
                  value={title}
                  onInput={(event) => changed({ title: (event.target as HTMLInputElement).value })}
                />
                {Editor && document ? (
                  <Editor document={document} onChange={(changedDocument) => changed({ document: changedDocument })} />
                ) : (
                  <p class="loading">Loading the editor…</p>
                )}
              </>
            ) : null}
            {!closed ? (
              <form
                class="space-toolbar add-page"
                onSubmit={(event) => {
                  event.preventDefault();
                  void batch([{ operation: "insert_page", title: newTitle, document: {} }], (pages, before) =>
                    editPath(flatten(pages).find((item) => !before.has(item.id))),
                  );
                }}
              >
                <label for="new-page-title">New page title</label>
                <input id="new-page-title" value={newTitle} required onInput={(event) => setNewTitle((event.target as HTMLInputElement).value)} />
                <button type="submit">Add page</button>
              </form>
            ) : null}
          </section>
        );
      }}
    </Loaded>
  );
}
