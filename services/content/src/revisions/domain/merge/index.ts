import { AppError } from "@imprint/runtime";
import { markdownToDocument } from "@imprint/document";
import { treeDiff, treeGetMany, treeScan, treeUpdate, type TreeDifference } from "../tree/btree.js";
import type { RevisionHeader } from "../tree/caches.js";
import { MAX_PAGE_DEPTH } from "../tree/content-view.js";
import { childKey, childPrefix, FILE_PREFIX, PAGE_PREFIX, pageKey, REUSABLE_PREFIX, slugKey } from "../tree/keys.js";
import { sha256Hex, type PageRecord } from "../tree/model.js";
import type { StoreSession } from "../../store/session.js";
import { mergePage, mergeStringMaps, type MergePreference } from "./page.js";
import { mergeText } from "./text.js";

/** Something both sides changed in ways that cannot be combined. */
export interface MergeConflict {
  /** The page concerned; null for files, reusable contents and revision variables. */
  pageId: string | null;
  /** What a person recognises it by: the page's title, the file's name, the variable's name. */
  title: string;
  reason: string;
}

export type MergeOutcome =
  | {
      kind: "merged";
      root: string | null;
      variables: Record<string, string>;
      mergedPages: number;
      /**
       * Pages whose version in the result differs from ours (created, changed, moved or deleted);
       * null when theirs was taken whole (ours had not changed since the base, or `prefer` chose
       * theirs as is), which needs no diff (counting would cost one only for the figure).
       */
      pagesChanged: number | null;
      rowsWritten: number;
      /** What both sides changed in ways that could not be combined, settled by `prefer` (empty without it). */
      settled: MergeConflict[];
    }
  | { kind: "conflict"; conflicts: MergeConflict[] };

export type { MergePreference };

export interface MergeInput {
  /** The common ancestor: the revision both sides started from. */
  base: RevisionHeader;
  /** The side the result is built on (the space's head for a merge, the branch's for an update). */
  ours: RevisionHeader;
  /** The side brought in. */
  theirs: RevisionHeader;
  now: Date;
  /**
   * The side whose version settles what cannot be combined (a page, a file, a reusable content, a
   * variable); when the combined tree would still break a rule of the tree (two pages on one
   * path, a page under a deleted one, a cycle, too deep), the result is that side's content as
   * is. Absent: such a merge is a conflict.
   */
  prefer?: MergePreference;
}

/** Changes of one side since the base, per page id and per file / reusable-content key. */
interface SideChanges {
  pages: Map<string, TreeDifference>;
  others: Map<string, TreeDifference>;
}

function sideChanges(differences: TreeDifference[]): SideChanges {
  const pages = new Map<string, TreeDifference>();
  const others = new Map<string, TreeDifference>();
  for (const difference of differences) {
    if (difference.key.startsWith(PAGE_PREFIX)) pages.set(difference.key.slice(PAGE_PREFIX.length), difference);
    else if (difference.key.startsWith(FILE_PREFIX) || difference.key.startsWith(REUSABLE_PREFIX)) others.set(difference.key, difference);
    // Slug and child keys follow from the page versions; the merged tree rebuilds them.
  }
  return { pages, others };
}

const describe = (conflict: MergeConflict) =>
  conflict.pageId ? `"${conflict.title}" (page ${conflict.pageId}: ${conflict.reason})` : `${conflict.title} (${conflict.reason})`;

/** The one answer to a merge that cannot be made: 409 naming what conflicts. Nothing was changed. */
export function conflictError(conflicts: MergeConflict[]): AppError {
  const shown = conflicts.slice(0, 10).map(describe).join("; ");
  const more = conflicts.length > 10 ? `; and ${conflicts.length - 10} more` : "";
  const pages = conflicts.filter((conflict) => conflict.pageId).length;
  const what = pages === conflicts.length ? `${pages} page${pages === 1 ? "" : "s"}` : `${conflicts.length} item${conflicts.length === 1 ? "" : "s"}`;
  return AppError.conflict(`The changes conflict on ${what}, nothing was merged: ${shown}${more}`);
}

/**
 * Three-way merge of two revisions of one store against their common ancestor, written as a new
 * tree (its nodes and new rows are inserted through `session`; the caller makes the revision).
 *
 * Changes are found by diffing trees (shared subtrees are skipped, so the work follows the size of
 * the changes). A page changed on one side only takes that side's version (created, changed,
 * moved or deleted); a page changed on both sides merges field by field, its markdown three-way
 * by lines. Files, reusable contents and revision variables changed on one side take it. What
 * cannot be combined is reported, never dropped: the same field or the same lines changed
 * differently, a page deleted on one side and changed on the other, a page left under a deleted
 * parent, two pages on one path, a move cycle or a tree deeper than allowed; unless `prefer`
 * names the side that settles it.
 */
export async function mergeRevisions(session: StoreSession, input: MergeInput): Promise<MergeOutcome> {
  const { base, ours, theirs, prefer } = input;
  /** What cannot be combined: conflicts without `prefer`, else what the preferred side settled. */
  const conflicts: MergeConflict[] = [];
  const settled: MergeConflict[] = [];
  const variables = mergeStringMaps(base.variables, ours.variables, theirs.variables, prefer);
  for (const name of variables.conflicts) {
    (prefer ? settled : conflicts).push({ pageId: null, title: `variable "${name}"`, reason: "set differently on both sides" });
  }
  const mergedVariables = variables.value;

  // Only one side changed the content: the other side's tree is the answer as is.
  if (theirs.root === base.root || theirs.root === ours.root || ours.root === base.root) {
    if (conflicts.length > 0) return { kind: "conflict", conflicts };
    const takesTheirs = ours.root === base.root && theirs.root !== ours.root;
    const root = takesTheirs ? theirs.root : ours.root;
    return { kind: "merged", root, variables: mergedVariables, mergedPages: 0, pagesChanged: takesTheirs ? null : 0, rowsWritten: 0, settled };
  }

  const oursChanges = sideChanges(await treeDiff(session, base.root, ours.root));
  const theirsChanges = sideChanges(await treeDiff(session, base.root, theirs.root));

  const versionIds = new Set<string>();
  for (const [pageId, change] of theirsChanges.pages) {
    for (const id of [change.before, change.after, oursChanges.pages.get(pageId)?.after]) if (id) versionIds.add(id);
  }
  const versions = await session.pages([...versionIds]);
  const version = (id: string | undefined): PageRecord | undefined => (id ? versions.get(id) : undefined);

  // The texts of pages changed on both sides, read in one go: their bodies may merge.
  const bodyIds = new Set<string>();
  for (const [pageId, theirsChange] of theirsChanges.pages) {
    const oursChange = oursChanges.pages.get(pageId);
    if (!oursChange) continue;
    for (const id of [theirsChange.before, theirsChange.after, oursChange.after]) {
      const bodyId = version(id)?.bodyId;
      if (bodyId) bodyIds.add(bodyId);
    }
  }
  const bodies = await session.bodies([...bodyIds]);

  // Bodies are merged as text; a merged text becomes a new body row.
  const mergeBody = (baseId: string | null, oursId: string | null, theirsId: string | null) => {
    if (oursId === theirsId || theirsId === baseId) return Promise.resolve({ bodyId: oursId });
    if (oursId === baseId) return Promise.resolve({ bodyId: theirsId });
    const text = (id: string | null) => (id ? (bodies.get(id)?.markdown ?? "") : "");
    const merged = mergeText(text(baseId), text(oursId), text(theirsId));
    if ("conflict" in merged) return Promise.resolve({ conflict: true as const });
    if (merged.merged === "") return Promise.resolve({ bodyId: null });
    const id = sha256Hex(merged.merged);
    session.stageBody({ id, markdown: merged.merged, document: JSON.stringify(markdownToDocument(merged.merged)) });
    return Promise.resolve({ bodyId: id });
  };

  // The pages whose merged version differs from ours: new version, or null when deleted.
  const outcome = new Map<string, PageRecord | null>();
  /** Ours' version of those pages (absent when ours does not have the page). */
  const oursVersion = new Map<string, PageRecord | undefined>();
  const newRecords: PageRecord[] = [];
  let mergedPages = 0;
  for (const [pageId, theirsChange] of theirsChanges.pages) {
    const oursChange = oursChanges.pages.get(pageId);
    const oursPage = version(oursChange ? oursChange.after : theirsChange.before);
    const theirsPage = version(theirsChange.after);
    const takeTheirs = () => {
      outcome.set(pageId, theirsPage ?? null);
      oursVersion.set(pageId, oursPage);
    };
    if (!oursChange) {
      takeTheirs();
      continue;
    }
    if (oursChange.after === theirsChange.after) continue;
    const title = (oursPage ?? theirsPage ?? version(theirsChange.before))?.title ?? pageId;
    // Both sides changed the page in ways that cannot be combined: the preferred side's version, or a conflict.
    const cannotCombine = (reason: string) => {
      (prefer ? settled : conflicts).push({ pageId, title, reason });
      if (prefer === "theirs") takeTheirs();
    };
    if (!oursPage || !theirsPage) {
      cannotCombine("deleted on one side and changed on the other");
      continue;
    }
    const basePage = version(theirsChange.before);
    if (!basePage) {
      cannotCombine("created on both sides with different content");
      continue;
    }
    const merged = await mergePage(basePage, oursPage, theirsPage, mergeBody, input.now);
    if ("conflict" in merged) {
      cannotCombine(merged.conflict);
      continue;
    }
    if (merged.page.id === oursPage.id) continue;
    if (merged.combined) {
      mergedPages++;
      newRecords.push(merged.page);
      session.stagePage(merged.page);
    }
    outcome.set(pageId, merged.page);
    oursVersion.set(pageId, oursPage);
  }

  const changes = new Map<string, string | null>();
  // Keys of ours' versions go first, then the merged versions' keys (which may reuse some).
  for (const [pageId, previous] of oursVersion) {
    if (!previous) continue;
    changes.set(pageKey(pageId), null);
    changes.set(slugKey(previous.parentId, previous.slug), null);
    changes.set(childKey(previous.parentId, previous.position, pageId), null);
  }
  const slugHolders = new Map<string, string>();
  for (const [pageId, next] of outcome) {
    if (!next) continue;
    const slug = slugKey(next.parentId, next.slug);
    const other = slugHolders.get(slug);
    if (other) conflicts.push({ pageId, title: next.title, reason: `its path is also taken by page ${other} from the other side` });
    slugHolders.set(slug, pageId);
    changes.set(pageKey(pageId), next.id);
    changes.set(slug, pageId);
    changes.set(childKey(next.parentId, next.position, pageId), pageId);
  }

  await checkTree(session, ours.root, outcome, slugHolders, conflicts);

  // Files and reusable contents: whole values; one side's change wins, both sides' is a conflict.
  const otherConflicts: string[] = [];
  for (const [key, theirsChange] of theirsChanges.others) {
    const oursChange = oursChanges.others.get(key);
    if (!oursChange) changes.set(key, theirsChange.after ?? null);
    else if (oursChange.after !== theirsChange.after) {
      otherConflicts.push(key);
      if (prefer === "theirs") changes.set(key, theirsChange.after ?? null);
    }
  }
  if (otherConflicts.length > 0) (prefer ? settled : conflicts).push(...(await describeOthers(session, otherConflicts, oursChanges, theirsChanges)));

  if (conflicts.length > 0) {
    if (!prefer) return { kind: "conflict", conflicts };
    // The combined tree breaks a rule of the tree: the preferred side's content stands as is.
    const preferred = prefer === "theirs" ? theirs : ours;
    return {
      kind: "merged",
      root: preferred.root,
      variables: preferred.variables,
      mergedPages: 0,
      pagesChanged: prefer === "theirs" ? null : 0,
      rowsWritten: 0,
      settled: [...settled, ...conflicts],
    };
  }
  const root = await treeUpdate(session, session, ours.root, changes);
  const rowsWritten = await session.flush({ pages: new Set(newRecords.map((page) => page.id)), files: new Set(), reusables: new Set() });
  return { kind: "merged", root, variables: mergedVariables, mergedPages, pagesChanged: outcome.size, rowsWritten, settled };
}

/**
 * Rules of a page tree that a merge of two valid trees can still break: a slug taken twice among
 * siblings, a page under a parent that is gone, a page left under a deleted page, a move cycle, a
 * tree deeper than allowed.
 */
async function checkTree(
  session: StoreSession,
  oursRoot: string | null,
  outcome: Map<string, PageRecord | null>,
  slugHolders: Map<string, string>,
  conflicts: MergeConflict[],
): Promise<void> {
  // Pages of the result outside `outcome` are ours' pages, read through the tree when needed.
  const oursPages = new Map<string, PageRecord | null>();
  const load = async (pageIds: string[]) => {
    const wanted = pageIds.filter((id) => !outcome.has(id) && !oursPages.has(id));
    if (wanted.length === 0) return;
    const found = await treeGetMany(session, oursRoot, wanted.map(pageKey));
    const records = await session.pages([...found.values()]);
    for (const id of wanted) {
      const versionId = found.get(pageKey(id));
      oursPages.set(id, versionId ? (records.get(versionId) ?? null) : null);
    }
  };
  const resultPage = (pageId: string): PageRecord | null => (outcome.has(pageId) ? outcome.get(pageId)! : (oursPages.get(pageId) ?? null));

  const holders = await treeGetMany(session, oursRoot, [...slugHolders.keys()]);
  for (const [slug, pageId] of slugHolders) {
    const holder = holders.get(slug);
    if (holder && holder !== pageId && !outcome.has(holder)) {
      const page = outcome.get(pageId)!;
      conflicts.push({ pageId, title: page.title, reason: `another page already has the path of this page ("${page.slug}")` });
    }
  }

  // Walk up from every page the merge placed, one level for all of them at a time.
  const placed = [...outcome.values()].filter((page): page is PageRecord => page !== null);
  const cursor = new Map(placed.map((page) => [page.pageId, page.parentId]));
  for (let depth = 1; cursor.size > 0; depth++) {
    await load([...cursor.values()].filter((id): id is string => id !== null));
    for (const [pageId, ancestorId] of cursor) {
      const page = outcome.get(pageId)!;
      if (ancestorId === null) {
        cursor.delete(pageId);
        continue;
      }
      const ancestor = resultPage(ancestorId);
      if (ancestorId === pageId) conflicts.push({ pageId, title: page.title, reason: "the two sides moved pages under each other" });
      else if (!ancestor)
        conflicts.push({
          pageId,
          title: page.title,
          reason: depth === 1 ? "its parent page was deleted on the other side" : "an ancestor page was deleted on the other side",
        });
      else if (depth >= MAX_PAGE_DEPTH) conflicts.push({ pageId, title: page.title, reason: `it would be nested more than ${MAX_PAGE_DEPTH} levels deep` });
      else {
        cursor.set(pageId, ancestor.parentId);
        continue;
      }
      cursor.delete(pageId);
    }
  }

  // Pages deleted by the merge must not keep children in the result (ours added or moved one there).
  for (const [pageId, next] of outcome) {
    if (next) continue;
    const children = await treeScan(session, oursRoot, { prefix: childPrefix(pageId) });
    for (const [, childId] of children) {
      if (outcome.has(childId)) continue;
      await load([childId]);
      const child = resultPage(childId);
      if (child) conflicts.push({ pageId: childId, title: child.title, reason: "it is under a page that was deleted on the other side" });
    }
  }
}

async function describeOthers(session: StoreSession, keys: string[], ours: SideChanges, theirs: SideChanges): Promise<MergeConflict[]> {
  const fileVersionIds = keys
    .filter((key) => key.startsWith(FILE_PREFIX))
    .flatMap((key) => [ours.others.get(key)?.after, theirs.others.get(key)?.after, theirs.others.get(key)?.before])
    .filter((id): id is string => id !== undefined);
  const files = await session.files(fileVersionIds);
  return keys.map((key) => {
    if (key.startsWith(REUSABLE_PREFIX)) {
      return { pageId: null, title: `reusable content ${key.slice(REUSABLE_PREFIX.length)}`, reason: "changed differently on both sides" };
    }
    const ids = [ours.others.get(key)?.after, theirs.others.get(key)?.after, theirs.others.get(key)?.before];
    const name = ids.map((id) => (id ? files.get(id)?.name : undefined)).find((value) => value !== undefined) ?? key.slice(FILE_PREFIX.length);
    return { pageId: null, title: `file "${name}"`, reason: "changed differently on both sides" };
  });
}
