import { compareStringKeys } from "@imprint/runtime";
import { treeDiff, treeGetMany, type TreeDifference } from "../tree/btree.js";
import { FILE_PREFIX, PAGE_PREFIX, pageKey } from "../tree/keys.js";
import { canonicalJson, type FileRecord, type PageCoverValue, type PageLayoutValue, type PageRecord } from "../tree/model.js";
import { MAX_PAGE_DEPTH } from "../tree/content-view.js";
import type { StoreSession } from "../../store/session.js";

/** A page a change names, with its path on the side it is read from. */
export interface ChangedPage {
  page: PageRecord;
  path: string;
}

/** A value before and after (undefined: that side has none). */
export interface ValueChange<T> {
  before: T | undefined;
  after: T | undefined;
}

/** The fields of a page an edit changed (only changed ones are present). */
export interface PageAttributeChanges {
  title?: ValueChange<string>;
  description?: ValueChange<string>;
  slug?: ValueChange<string>;
  /** The body's document id (the content hash of its markdown). */
  document?: ValueChange<string>;
  emoji?: ValueChange<string>;
  cover?: ValueChange<PageCoverValue>;
  layout?: ValueChange<PageLayoutValue>;
  variables?: ValueChange<Record<string, string>>;
  /** A link page's target. */
  href?: ValueChange<string>;
}

/** One change of a content tree against another (a change request's head against its base). */
export type ContentChange =
  | { type: "page_created"; page: ChangedPage }
  | { type: "page_edited"; page: ChangedPage; attributes: PageAttributeChanges }
  | { type: "page_deleted"; page: ChangedPage }
  | { type: "page_moved"; page: ChangedPage; parentBefore: ChangedPage | null; parentAfter: ChangedPage | null }
  | { type: "file_created"; file: FileRecord }
  | { type: "file_edited"; file: FileRecord; before: FileRecord }
  | { type: "file_deleted"; file: FileRecord };

const TYPE_ORDER: Record<ContentChange["type"], string> = {
  page_created: "0",
  page_deleted: "1",
  page_moved: "2",
  page_edited: "3",
  file_created: "0",
  file_deleted: "1",
  file_edited: "2",
};

/**
 * The sort key of a change: pages before files, then path (pages) or name (files), then the id,
 * then the kind of change (a page both moved and edited is two changes). Keys are compared, not
 * positions, so a page token stays meaningful when the next page is computed from a newer head.
 */
export function changeSortKey(change: ContentChange): string[] {
  if ("file" in change) return ["1", change.file.name, change.file.fileId, TYPE_ORDER[change.type]];
  return ["0", change.page.path, change.page.page.pageId, TYPE_ORDER[change.type]];
}

const differs = <T>(a: T, b: T) => canonicalJson(a) !== canonicalJson(b);

/** The fields a change reports for each kind of page (GitBook's attributes per page type). */
const REPORTED: Record<PageRecord["type"], readonly (keyof PageAttributeChanges)[]> = {
  document: ["title", "description", "slug", "document", "emoji", "cover", "layout", "variables"],
  group: ["title", "emoji", "slug"],
  link: ["title", "emoji", "href"],
};

/**
 * Fields that changed between two versions of one page, those its kind reports; empty when only
 * others did (hidden, indexing, git metadata, a field its kind does not show).
 */
export function pageAttributeChanges(before: PageRecord, after: PageRecord): PageAttributeChanges {
  const all = allAttributeChanges(before, after);
  const reported: PageAttributeChanges = {};
  for (const field of REPORTED[after.type]) if (all[field]) Object.assign(reported, { [field]: all[field] });
  return reported;
}

function allAttributeChanges(before: PageRecord, after: PageRecord): PageAttributeChanges {
  const changes: PageAttributeChanges = {};
  const text = (value: string) => (value === "" ? undefined : value);
  if (before.title !== after.title) changes.title = { before: before.title, after: after.title };
  if (before.description !== after.description) changes.description = { before: text(before.description), after: text(after.description) };
  if (before.slug !== after.slug) changes.slug = { before: before.slug, after: after.slug };
  if (before.bodyId !== after.bodyId) changes.document = { before: before.bodyId ?? undefined, after: after.bodyId ?? undefined };
  if (before.emoji !== after.emoji) changes.emoji = { before: text(before.emoji), after: text(after.emoji) };
  if (differs(before.cover, after.cover)) changes.cover = { before: before.cover ?? undefined, after: after.cover ?? undefined };
  if (differs(before.layout, after.layout)) changes.layout = { before: before.layout, after: after.layout };
  if (differs(before.variables, after.variables)) changes.variables = { before: before.variables, after: after.variables };
  if (before.href !== after.href) changes.href = { before: before.href ?? undefined, after: after.href ?? undefined };
  return changes;
}

/** Whether two versions of a file differ in what a change reports (name, bytes, type, size). */
function fileChanged(before: FileRecord, after: FileRecord): boolean {
  return (
    before.name !== after.name ||
    before.blobKey !== after.blobKey ||
    before.contentType !== after.contentType ||
    before.size !== after.size ||
    before.width !== after.width ||
    before.height !== after.height
  );
}

/**
 * Paths of pages of one tree: each page's ancestors are read a level at a time for all pages at
 * once (through the tree's page keys), so the cost follows the number of pages asked for times
 * their depth, not the size of the tree.
 */
async function pathsIn(session: StoreSession, root: string | null, pages: readonly PageRecord[]): Promise<Map<string, string>> {
  const known = new Map<string, PageRecord | null>(pages.map((page) => [page.pageId, page]));
  const slugs = new Map<string, string[]>(pages.map((page) => [page.pageId, [page.slug]]));
  const cursor = new Map<string, string | null>(pages.map((page) => [page.pageId, page.parentId]));
  for (let depth = 0; cursor.size > 0 && depth < MAX_PAGE_DEPTH; depth++) {
    const wanted = [...new Set([...cursor.values()].filter((id): id is string => id !== null && !known.has(id)))];
    if (wanted.length > 0) {
      const versionIds = await treeGetMany(session, root, wanted.map(pageKey));
      const records = await session.pages([...versionIds.values()]);
      for (const id of wanted) {
        const versionId = versionIds.get(pageKey(id));
        known.set(id, versionId ? (records.get(versionId) ?? null) : null);
      }
    }
    for (const [pageId, ancestorId] of cursor) {
      const ancestor = ancestorId ? known.get(ancestorId) : null;
      if (!ancestor) {
        cursor.delete(pageId);
        continue;
      }
      slugs.get(pageId)!.unshift(ancestor.slug);
      cursor.set(pageId, ancestor.parentId);
    }
  }
  return new Map([...slugs].map(([pageId, parts]) => [pageId, parts.join("/")]));
}

/** Pages of one tree by id (those it does not have are left out). */
async function pagesIn(session: StoreSession, root: string | null, pageIds: readonly string[]): Promise<Map<string, PageRecord>> {
  const versionIds = await treeGetMany(session, root, pageIds.map(pageKey));
  const records = await session.pages([...versionIds.values()]);
  const found = new Map<string, PageRecord>();
  for (const pageId of pageIds) {
    const record = records.get(versionIds.get(pageKey(pageId)) ?? "");
    if (record) found.set(pageId, record);
  }
  return found;
}

/**
 * What `headRoot` changes relative to `baseRoot` (two trees of one store), sorted by
 * {@link changeSortKey}: pages created, edited, deleted and moved, files created, edited and
 * deleted. Found by diffing the trees, which skips every subtree they share: the cost follows the
 * size of the change. A deleted page's descendants are deleted too, each its own change. A page
 * both moved and edited is two changes; a page whose only changes are fields no change reports
 * (hidden, indexing, git metadata) is none.
 */
export async function contentChanges(session: StoreSession, baseRoot: string | null, headRoot: string | null): Promise<ContentChange[]> {
  const differences = await treeDiff(session, baseRoot, headRoot);
  const pageDiffs: TreeDifference[] = [];
  const fileDiffs: TreeDifference[] = [];
  for (const difference of differences) {
    if (difference.key.startsWith(PAGE_PREFIX)) pageDiffs.push(difference);
    else if (difference.key.startsWith(FILE_PREFIX)) fileDiffs.push(difference);
  }

  const versionIds = [...pageDiffs.flatMap((diff) => [diff.before, diff.after])].filter((id): id is string => id !== undefined);
  const versions = await session.pages(versionIds);
  const version = (id: string | undefined) => (id ? versions.get(id) : undefined);

  // The head's and the base's pages that changes name (parents of moved pages included).
  const headPages: PageRecord[] = [];
  const basePages: PageRecord[] = [];
  const moves: { before: PageRecord; after: PageRecord }[] = [];
  for (const diff of pageDiffs) {
    const before = version(diff.before);
    const after = version(diff.after);
    if (after) headPages.push(after);
    if (before && !after) basePages.push(before);
    if (before && after && (before.parentId !== after.parentId || before.position !== after.position)) moves.push({ before, after });
  }
  const parentIdsBefore = [...new Set(moves.map((move) => move.before.parentId).filter((id): id is string => id !== null))];
  const parentIdsAfter = [...new Set(moves.map((move) => move.after.parentId).filter((id): id is string => id !== null))];
  const [parentsBefore, parentsAfter] = await Promise.all([pagesIn(session, baseRoot, parentIdsBefore), pagesIn(session, headRoot, parentIdsAfter)]);
  const [headPaths, basePaths] = await Promise.all([
    pathsIn(session, headRoot, [...headPages, ...parentsAfter.values()]),
    pathsIn(session, baseRoot, [...basePages, ...parentsBefore.values()]),
  ]);
  const inHead = (page: PageRecord): ChangedPage => ({ page, path: headPaths.get(page.pageId) ?? page.slug });
  const inBase = (page: PageRecord): ChangedPage => ({ page, path: basePaths.get(page.pageId) ?? page.slug });

  const changes: ContentChange[] = [];
  for (const diff of pageDiffs) {
    const before = version(diff.before);
    const after = version(diff.after);
    if (!before && after) changes.push({ type: "page_created", page: inHead(after) });
    else if (before && !after) changes.push({ type: "page_deleted", page: inBase(before) });
    else if (before && after) {
      if (before.parentId !== after.parentId || before.position !== after.position) {
        const parentBefore = before.parentId ? parentsBefore.get(before.parentId) : undefined;
        const parentAfter = after.parentId ? parentsAfter.get(after.parentId) : undefined;
        changes.push({
          type: "page_moved",
          page: inHead(after),
          parentBefore: parentBefore ? inBase(parentBefore) : null,
          parentAfter: parentAfter ? inHead(parentAfter) : null,
        });
      }
      const attributes = pageAttributeChanges(before, after);
      if (Object.keys(attributes).length > 0) changes.push({ type: "page_edited", page: inHead(after), attributes });
    }
  }

  const fileIds = fileDiffs.flatMap((diff) => [diff.before, diff.after]).filter((id): id is string => id !== undefined);
  const files = await session.files(fileIds);
  for (const diff of fileDiffs) {
    const before = diff.before ? files.get(diff.before) : undefined;
    const after = diff.after ? files.get(diff.after) : undefined;
    if (!before && after) changes.push({ type: "file_created", file: after });
    else if (before && !after) changes.push({ type: "file_deleted", file: before });
    else if (before && after && fileChanged(before, after)) changes.push({ type: "file_edited", file: after, before });
  }

  const keyed = changes.map((change) => ({ change, key: changeSortKey(change) }));
  keyed.sort((a, b) => compareStringKeys(a.key, b.key));
  return keyed.map(({ change }) => change);
}
