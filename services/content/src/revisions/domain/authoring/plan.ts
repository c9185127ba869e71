import { DocumentConversionError, documentToMarkdownPreserving, type JsonDocument } from "@imprint/document";
import { AppError, jsonNestingDepth, MAX_JSON_DEPTH } from "@imprint/runtime";
import { newContentId, type FieldName, type NewPage, type PageOperation, type PagePatch, type PositionInput } from "../editing/draft-editor.js";
import { bounded, CONTENT_ID, invalid, PAGE_LIMITS, pageMarkdown, pageSlug, pageTitle } from "../editing/page-input.js";
import type { ContentView } from "../tree/content-view.js";
import { DEFAULT_LAYOUT, type PageRecord } from "../tree/model.js";
import { changeField, type ContentChange, type ContentPageFields } from "./changes.js";
import { rewriteLinks } from "./links.js";
import { readPageMarkdown } from "./page-markdown.js";

/**
 * The one translation of GitBook's content changes into the draft editor's page operations,
 * planned on the draft's content before the batch: pages inserted by the batch get their ids
 * here (refs resolve to them in any order), markdown links are resolved against the page tree,
 * reverts become the operations that bring a page back to its state in another revision.
 */

export type AffectedPageKind = "created" | "updated" | "deleted";

export interface AffectedPage {
  pageId: string;
  kind: AffectedPageKind;
  /** The insert's ref, for a created page. */
  ref: string;
}

export interface PlanContext {
  /** The draft's content before the batch (the branch's head). */
  view: ContentView;
  /** The content to revert a page to: a revision of the space, or (null) the change request's base. */
  revertTarget: (revisionId: string | null, field: string) => Promise<ContentView>;
  /** Files the batch uploaded, by their ref. */
  fileIdByRef: ReadonlyMap<string, string>;
}

export interface ContentPlan {
  operations: PageOperation[];
  affected: AffectedPage[];
}

const DEFAULT_TITLE = "Untitled";
const EXTERNAL = /^(?:[a-z][a-z0-9+.-]*:|\/\/)/i;
const FILE_LINK = /^\/files\/[A-Za-z0-9_-]{1,64}$/;

/** Field names of the editor mapped onto GitBook's names for the change (`changes[2].into`). */
const GITBOOK_FIELD: Record<string, string> = {
  page_id: "page",
  parent_page_id: "into",
  "position.before_page_id": "at",
  "position.after_page_id": "at",
  position: "at",
  markdown: "document",
};
const fieldsOf = (index: number): FieldName => {
  const field = changeField(index);
  return (name) => field(GITBOOK_FIELD[name] ?? name);
};

function decode(path: string): string {
  try {
    return decodeURIComponent(path);
  } catch {
    return path;
  }
}

/** Resolves a Git path (`guides/intro.md`, `guides/README.md`, `guides`) to a page. */
async function pageByGitPath(view: ContentView, path: string): Promise<PageRecord | undefined> {
  const clean = path.replace(/^\/+|\/+$/g, "");
  const readme = /(?:^|\/)README\.md$/i.exec(clean);
  if (readme) {
    const folder = clean.slice(0, clean.length - readme[0].length);
    if (folder === "") {
      const [first] = await view.childIds(null);
      return first ? view.page(first) : undefined;
    }
    return view.pageByPath(folder);
  }
  return view.pageByPath(clean.replace(/\.md$/i, ""));
}

/** `../a/./b` against the folder `x/y` (segments), or undefined when it climbs above the root. */
function joinRelative(folder: string[], relative: string): string | undefined {
  const segments = [...folder];
  for (const segment of relative.split("/")) {
    if (segment === "" || segment === ".") continue;
    if (segment === "..") {
      if (segments.length === 0) return undefined;
      segments.pop();
    } else segments.push(segment);
  }
  return segments.join("/");
}

class Planner {
  readonly operations: PageOperation[] = [];
  private readonly affected = new Map<string, AffectedPage>();
  /** Pages inserted by the batch, by ref. */
  private readonly pageIdByRef = new Map<string, string>();
  private readonly pathCache = new Map<string, Promise<string>>();

  constructor(private readonly context: PlanContext) {}

  get view(): ContentView {
    return this.context.view;
  }

  touch(pageId: string, kind: AffectedPageKind, ref = ""): void {
    const known = this.affected.get(pageId);
    if (!known) this.affected.set(pageId, { pageId, kind, ref });
    else if (kind === "deleted") known.kind = "deleted";
  }

  affectedPages(): AffectedPage[] {
    return [...this.affected.values()];
  }

  assignRefs(changes: ContentChange[]): Map<number, string> {
    const ids = new Map<number, string>();
    changes.forEach((change, index) => {
      if (change.kind !== "insert_page") return;
      const pageId = newContentId();
      ids.set(index, pageId);
      if (change.ref !== "") this.pageIdByRef.set(change.ref, pageId);
    });
    return ids;
  }

  private pathOf(page: PageRecord): Promise<string> {
    let path = this.pathCache.get(page.pageId);
    if (!path) {
      path = this.context.view.pathOf(page);
      this.pathCache.set(page.pageId, path);
    }
    return path;
  }

  /** The Git folder a page's relative links start from: its own for a page with sub-pages, else its parent's. */
  async folderOf(page: PageRecord | null, parentId: string | null): Promise<string[]> {
    const view = this.context.view;
    if (page && (await view.childIds(page.pageId)).length > 0) return (await this.pathOf(page)).split("/");
    if (!parentId) return [];
    const parent = await view.page(parentId);
    return parent ? (await this.pathOf(parent)).split("/") : [];
  }

  /** Links and images of a page body resolved to page and file references; unresolved page links become text. */
  resolveLinks(markdown: string, folder: string[]): Promise<string> {
    const view = this.context.view;
    return rewriteLinks(markdown, async (url) => {
      if (url === "" || url.startsWith("#") || EXTERNAL.test(url) || FILE_LINK.test(url)) return undefined;
      const hashAt = url.indexOf("#");
      const path = decode(hashAt < 0 ? url : url.slice(0, hashAt));
      const anchor = hashAt < 0 ? "" : url.slice(hashAt);
      const toPage = (pageId: string) => `/pages/${pageId}${anchor}`;
      if (path.startsWith("/pages/")) {
        const rest = path.slice("/pages/".length);
        if (CONTENT_ID.test(rest) && (await view.page(rest))) return toPage(rest);
        const page = await pageByGitPath(view, rest);
        return page ? toPage(page.pageId) : null;
      }
      if (path.startsWith("/")) return undefined;
      const bare = path.replace(/^(?:\.\/)+/, "");
      const fileId = this.context.fileIdByRef.get(bare);
      if (fileId) return `/files/${fileId}`;
      const refPageId = this.pageIdByRef.get(bare) ?? this.pageIdByRef.get(bare.replace(/\.md$/i, ""));
      if (refPageId) return toPage(refPageId);
      const joined = joinRelative(folder, path);
      const page = joined ? await pageByGitPath(view, joined) : undefined;
      return page ? toPage(page.pageId) : null;
    });
  }

  async requirePage(pageId: string, field: string): Promise<PageRecord> {
    const page = await this.context.view.page(pageId);
    if (!page) throw invalid(field, `page "${pageId}" is not in the change request`);
    return page;
  }

  revertTarget(revisionId: string | null, field: string): Promise<ContentView> {
    return this.context.revertTarget(revisionId, field);
  }

  push(operation: PageOperation, field: FieldName): void {
    this.operations.push({ ...operation, field });
  }
}

function patchFields(fields: ContentPageFields, field: FieldName): Omit<PagePatch, "pageId"> {
  const patch: Omit<PagePatch, "pageId"> = {};
  if (fields.title !== undefined) patch.title = pageTitle(fields.title, field("title"));
  if (fields.slug !== undefined && fields.slug.trim() !== "") patch.slug = pageSlug(fields.slug, field("slug"));
  if (fields.emoji !== undefined) patch.emoji = bounded(fields.emoji, field("emoji"), PAGE_LIMITS.emoji);
  if (fields.icon !== undefined) patch.icon = bounded(fields.icon, field("icon"), PAGE_LIMITS.icon);
  if (fields.description !== undefined) patch.description = bounded(fields.description, field("description"), PAGE_LIMITS.description);
  if (fields.hidden !== undefined) patch.hidden = fields.hidden;
  if (fields.noIndex !== undefined) patch.noIndex = fields.noIndex;
  if (fields.noRobotsIndex !== undefined) patch.noRobotsIndex = fields.noRobotsIndex;
  return patch;
}

/**
 * A change's body: markdown (its front matter and leading heading set fields) or GitBook's JSON
 * document, converted to markdown and taken as the body as it is (no front matter, no heading read).
 * A document replacing a page's `previous` body keeps the markdown of the blocks it left unchanged.
 */
function readBody(markdown: string, documentJson: string | undefined, field: FieldName, previous = ""): { fields: ContentPageFields; body: string } {
  if (documentJson === undefined) return readPageMarkdown(markdown, field("document"));
  if (markdown !== "") throw invalid(field("document"), "set one of markdown or document, not both");
  const documentField = `${field("document")}.document`;
  if (jsonNestingDepth(documentJson, MAX_JSON_DEPTH) > MAX_JSON_DEPTH) throw invalid(documentField, `nesting deeper than ${MAX_JSON_DEPTH}`);
  let document: unknown;
  try {
    document = JSON.parse(documentJson);
  } catch {
    throw invalid(documentField, "must be a JSON document");
  }
  try {
    return { fields: {}, body: documentToMarkdownPreserving(document as JsonDocument, previous) };
  } catch (error) {
    if (error instanceof DocumentConversionError) throw invalid(error.path === "" ? documentField : `${documentField}.${error.path}`, error.reason);
    throw error;
  }
}

function position(at: number | undefined): PositionInput {
  return at === undefined ? {} : { index: at };
}

async function planInsert(planner: Planner, change: Extract<ContentChange, { kind: "insert_page" }>, pageId: string, field: FieldName): Promise<void> {
  const markdown = readBody(change.markdown, change.documentJson, field);
  const fields = { ...change.fields, ...markdown.fields };
  const patch = patchFields({ ...fields, title: fields.title?.trim() ? fields.title : DEFAULT_TITLE }, field);
  if (change.intoPageId) await planner.requirePage(change.intoPageId, field("into"));
  const body = await planner.resolveLinks(markdown.body, await planner.folderOf(null, change.intoPageId));
  const page: NewPage = {
    pageId,
    parentId: change.intoPageId,
    position: position(change.at),
    type: "document",
    title: patch.title ?? DEFAULT_TITLE,
    ...(patch.slug !== undefined ? { slug: patch.slug } : {}),
    emoji: patch.emoji ?? "",
    icon: patch.icon ?? "",
    description: patch.description ?? "",
    markdown: pageMarkdown(body, field("document")),
    hidden: patch.hidden ?? false,
    noIndex: patch.noIndex ?? false,
    noRobotsIndex: patch.noRobotsIndex ?? false,
    layout: DEFAULT_LAYOUT,
    cover: null,
    variables: {},
    href: null,
  };
  planner.push({ kind: "create", page }, field);
  planner.touch(pageId, "created", change.ref);
}

async function planUpdate(planner: Planner, change: Extract<ContentChange, { kind: "update_page" }>, field: FieldName): Promise<void> {
  const current = await planner.requirePage(change.pageId, field("page"));
  let fields = change.fields;
  let markdown: string | undefined;
  if (change.markdown !== undefined || change.documentJson !== undefined) {
    if (current.type !== "document") throw invalid(field("document"), `only document pages have a body (this page is a ${current.type})`);
    const previous = change.documentJson === undefined ? "" : await bodyOf(planner.view, current);
    const read = readBody(change.markdown ?? "", change.documentJson, field, previous);
    fields = { ...fields, ...read.fields };
    markdown = pageMarkdown(await planner.resolveLinks(read.body, await planner.folderOf(current, current.parentId)), field("document"));
  }
  const parentId = change.into === undefined ? current.parentId : change.into;
  if ((change.into !== undefined && change.into !== current.parentId) || change.at !== undefined) {
    planner.push({ kind: "move", move: { pageId: current.pageId, parentId, position: position(change.at) } }, field);
  }
  const patch = { pageId: current.pageId, ...patchFields(fields, field), ...(markdown !== undefined ? { markdown } : {}) };
  if (Object.keys(patch).length > 1) planner.push({ kind: "update", patch }, field);
  planner.touch(current.pageId, "updated");
}

/** The page's place in `target` expressed against the draft: after its nearest earlier sibling there, else before a later one. */
async function placeLike(view: ContentView, target: ContentView, page: PageRecord): Promise<PositionInput> {
  const siblings = await target.childIds(page.parentId);
  const index = siblings.indexOf(page.pageId);
  const present = async (id: string) => (await view.page(id))?.parentId === page.parentId;
  for (let i = index - 1; i >= 0; i--) if (await present(siblings[i]!)) return { after: siblings[i]! };
  for (let i = index + 1; i < siblings.length; i++) if (await present(siblings[i]!)) return { before: siblings[i]! };
  return {};
}

async function bodyOf(view: ContentView, page: PageRecord): Promise<string> {
  if (!page.bodyId) return "";
  return (await view.bodies([page.bodyId])).get(page.bodyId)?.markdown ?? "";
}

function restoredPage(page: PageRecord, markdown: string, position: PositionInput): NewPage {
  return {
    pageId: page.pageId,
    parentId: page.parentId,
    position,
    type: page.type,
    title: page.title,
    slug: page.slug,
    emoji: page.emoji,
    icon: page.icon,
    description: page.description,
    markdown,
    hidden: page.hidden,
    noIndex: page.noIndex,
    noRobotsIndex: page.noRobotsIndex,
    layout: page.layout,
    cover: page.cover,
    variables: page.variables,
    href: page.href,
  };
}

async function planRevert(planner: Planner, change: Extract<ContentChange, { kind: "revert_page" }>, field: FieldName, view: ContentView): Promise<void> {
  const target = await planner.revertTarget(change.revisionId, field("revision"));
  const [was, now] = await Promise.all([target.page(change.pageId), view.page(change.pageId)]);
  if (!was && !now) throw invalid(field("page"), `page "${change.pageId}" is neither in the change request nor in the revision`);
  if (!was) {
    // Added since: removed (with its sub-pages).
    planner.push({ kind: "delete", pageId: change.pageId }, field);
    planner.touch(change.pageId, "deleted");
    return;
  }
  const parentPresent = was.parentId === null || (await view.page(was.parentId)) !== undefined;
  if (!now) {
    // Deleted since: restored at its place with the sub-pages it had.
    if (!parentPresent) throw invalid(field("page"), "its parent page is not in the change request; revert the parent page first");
    planner.push({ kind: "create", page: restoredPage(was, await bodyOf(target, was), await placeLike(view, target, was)) }, field);
    planner.touch(was.pageId, "created");
    const tree = await target.subtree(was, was.slug);
    const stack = [...tree.children];
    while (stack.length > 0) {
      const node = stack.shift()!;
      if (await view.page(node.page.pageId)) continue;
      planner.push({ kind: "create", page: restoredPage(node.page, await bodyOf(target, node.page), {}) }, field);
      stack.push(...node.children);
    }
    return;
  }
  // Modified since: its place (when its old parent is still there), fields and body reset.
  if (now.parentId !== was.parentId && parentPresent) {
    planner.push({ kind: "move", move: { pageId: was.pageId, parentId: was.parentId, position: await placeLike(view, target, was) } }, field);
  }
  const patch: PagePatch = {
    pageId: was.pageId,
    title: was.title,
    slug: was.slug,
    emoji: was.emoji,
    icon: was.icon,
    description: was.description,
    hidden: was.hidden,
    noIndex: was.noIndex,
    noRobotsIndex: was.noRobotsIndex,
    layout: was.layout,
    cover: was.cover,
    variables: was.variables,
    ...(now.type === "document" && was.type === "document" ? { markdown: await bodyOf(target, was) } : {}),
    ...(now.type === "link" && was.href ? { href: was.href } : {}),
  };
  planner.push({ kind: "update", patch }, field);
  planner.touch(was.pageId, "updated");
}

/**
 * Plans the batch on the draft's content before it. Errors name the change (`changes[3].into`);
 * the operations' own errors (applied later by the draft editor) are named the same way.
 */
export async function planContentChanges(changes: ContentChange[], context: PlanContext): Promise<ContentPlan> {
  const planner = new Planner(context);
  const insertedIds = planner.assignRefs(changes);
  for (const [index, change] of changes.entries()) {
    const field = fieldsOf(index);
    switch (change.kind) {
      case "insert_page":
        await planInsert(planner, change, insertedIds.get(index)!, field);
        break;
      case "update_page":
        await planUpdate(planner, change, field);
        break;
      case "delete_page":
        await planner.requirePage(change.pageId, field("page"));
        planner.push({ kind: "delete", pageId: change.pageId }, field);
        planner.touch(change.pageId, "deleted");
        break;
      case "revert_page":
        await planRevert(planner, change, field, context.view);
        break;
      case "insert_files":
        break;
    }
  }
  return { operations: planner.operations, affected: planner.affectedPages() };
}

/** Errors of the draft editor about a change (their message names it) answered as the change's invalid argument. */
export function asChangeError(error: unknown): unknown {
  if (error instanceof AppError && (error.code === "not_found" || error.code === "already_exists") && error.message.startsWith("changes[")) {
    return AppError.invalidArgument(error.message);
  }
  return error;
}
