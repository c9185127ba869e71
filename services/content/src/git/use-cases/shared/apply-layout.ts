import { createHash } from "node:crypto";
import type { EntityManager } from "@mikro-orm/postgresql";
import { AppError } from "@imprint/runtime";
import {
  validateFile,
  imageDimensions,
  newContentId,
  type DraftEditor,
  type PagePatch,
  PAGE_LIMITS,
  ContentView,
  buildPageIndex,
  DEFAULT_LAYOUT,
  type FileRecord,
  type PageRecord,
  type ReusableRecord,
  StoreSession,
  type RevisionHeader,
  storeBlob,
  validateReusableContent,
} from "../../../revisions/index.js";
import { findLinkSites, rewriteLinkSites, sameBody, type LinkSitesOf } from "../../domain/markdown-text.js";
import { resolveRelative, type Layout, type LayoutPage } from "../../domain/read-layout.js";
import { includeFileStem } from "../../domain/write-layout.js";
import type { RevisionDeps } from "../../../deps.js";

/** How the import changed the draft. */
export interface AppliedLayout {
  created: number;
  updated: number;
  deleted: number;
  filesWritten: number;
  filesDeleted: number;
  /** Reusable contents (`.gitbook/includes/`) written and deleted. */
  reusablesWritten: number;
  reusablesDeleted: number;
  /** Repository path → page id and file id after the import (the sync's mapping). */
  pages: Record<string, string>;
  files: Record<string, string>;
}

interface Desired {
  page: LayoutPage;
  pageId: string;
  parentId: string | null;
  /** The base page it updates; undefined for a new page. */
  base: PageRecord | undefined;
  /** Path of slugs in the tree. */
  treePath: string;
}

const HREF = /^https?:\/\//i;

/** Longest increasing subsequence (indices into `values`), for the fewest moves that restore an order. */
function longestIncreasing(values: number[]): Set<number> {
  const tails: number[] = [];
  const previous: number[] = new Array<number>(values.length).fill(-1);
  for (let i = 0; i < values.length; i++) {
    let low = 0;
    let high = tails.length;
    while (low < high) {
      const mid = (low + high) >> 1;
      if (values[tails[mid]!]! < values[i]!) low = mid + 1;
      else high = mid;
    }
    if (low > 0) previous[i] = tails[low - 1]!;
    tails[low] = i;
  }
  const keep = new Set<number>();
  for (let i = tails.at(-1) ?? -1; i >= 0; i = previous[i]!) keep.add(i);
  return keep;
}

/**
 * Makes the draft's content the layout's: pages matched to the base's (by the sync's path → page
 * mapping, then the pages' git path, then their path in the tree) are updated only in what differs
 * (a page equal in every field keeps its version), new ones created, the others deleted; files the
 * same way. Relative links between the repository's files become page and file references.
 */
export async function applyLayout(
  tx: EntityManager,
  deps: RevisionDeps,
  input: {
    editor: DraftEditor;
    draft: RevisionHeader;
    layout: Layout;
    /** Bytes of the layout's files, by blob oid. */
    blobs: Map<string, Buffer>;
    mapping: { pages: Record<string, string>; files: Record<string, string> };
    /** How the files' link sites are found (kept by blob oid); default: found anew. */
    linkSites?: LinkSitesOf;
  },
): Promise<AppliedLayout> {
  const { editor, draft, layout, mapping } = input;
  const session = new StoreSession(tx, draft.storeId, deps.caches);
  const index = await buildPageIndex(session, draft.root);
  const baseFiles = await new ContentView(session, draft.root, deps.caches).allFiles();

  // ── files ──
  const baseFileById = new Map(baseFiles.map((file) => [file.fileId, file]));
  const claimedFiles = new Set<string>();
  const fileIdByPath = new Map<string, string>();
  const matchFile = (path: string, name: string): FileRecord | undefined => {
    const candidates = [
      baseFileById.get(mapping.files[path] ?? ""),
      baseFiles.find((file) => file.git?.path === path),
      baseFiles.find((file) => file.name === name && !file.git),
    ];
    return candidates.find((file) => file !== undefined && !claimedFiles.has(file.fileId));
  };
  let filesWritten = 0;
  for (const file of layout.files) {
    const base = matchFile(file.path, file.name);
    if (base) claimedFiles.add(base.fileId);
    const fileId = base?.fileId ?? newContentId();
    fileIdByPath.set(file.path, fileId);
    if (base && base.git?.oid === file.oid && base.name === file.name) continue;
    const bytes = input.blobs.get(file.oid);
    if (!bytes) throw new AppError("internal", `blob ${file.oid} of ${file.path} was not read`);
    const key = createHash("sha256").update(bytes).digest("hex");
    if (base && base.blobKey === key && base.name === file.name) continue;
    const { name, contentType } = validateFile({ name: file.name, contentType: file.contentType, size: bytes.length });
    const stored = await storeBlob(tx, deps, bytes);
    const dimensions = imageDimensions(bytes);
    editor.putFile({
      fileId,
      name,
      contentType,
      size: stored.size,
      width: dimensions?.width ?? null,
      height: dimensions?.height ?? null,
      blobKey: stored.key,
      git: { oid: file.oid, path: file.path },
    });
    filesWritten += 1;
  }
  let filesDeleted = 0;
  for (const file of baseFiles) {
    if (!claimedFiles.has(file.fileId) && (await editor.deleteFile(file.fileId))) filesDeleted += 1;
  }

  // ── page identities ──
  const claimed = new Set<string>();
  const byGitPath = new Map<string, PageRecord>();
  const byTreePath = new Map<string, PageRecord>();
  for (const page of index.byId.values()) {
    if (page.git?.path) byGitPath.set(page.git.path, page);
    byTreePath.set(index.paths.get(page.pageId) ?? "", page);
  }
  const desired: Desired[] = [];
  const pageIdByPath = new Map<string, string>();
  const plan = (pages: LayoutPage[], parentId: string | null, parentPath: string) => {
    for (const page of pages) {
      const treePath = parentPath ? `${parentPath}/${page.slug}` : page.slug;
      const candidates: (PageRecord | undefined)[] = [];
      if (page.path) candidates.push(index.byId.get(mapping.pages[page.path] ?? ""), byGitPath.get(page.path));
      candidates.push(byTreePath.get(treePath));
      const base = candidates.find((candidate) => candidate !== undefined && candidate.type === page.type && !claimed.has(candidate.pageId));
      if (base) claimed.add(base.pageId);
      const pageId = base?.pageId ?? newContentId();
      if (page.path) pageIdByPath.set(page.path, pageId);
      desired.push({ page, pageId, parentId, base, treePath });
      plan(page.children, pageId, treePath);
    }
  };
  plan(layout.pages, null, "");

  // ── reusable contents: one per file of .gitbook/includes/, matched by its git path ──
  const baseReusables = await new ContentView(session, draft.root, deps.caches).allReusables();
  const claimedReusables = new Set<string>();
  const reusableIdByPath = new Map<string, string>();
  const unclaimed = (item: ReusableRecord) => !claimedReusables.has(item.reusableContentId);
  for (const include of layout.includes) {
    // Its file, else (written by an export, which keeps no blob of it) the file its title names.
    const stem = include.path.slice(include.path.lastIndexOf("/") + 1).replace(/\.md$/i, "");
    const base =
      baseReusables.find((item) => item.git?.path === include.path && unclaimed(item)) ??
      baseReusables.find((item) => !item.git && includeFileStem(item) === stem && unclaimed(item));
    if (base) claimedReusables.add(base.reusableContentId);
    reusableIdByPath.set(include.path, base?.reusableContentId ?? newContentId());
  }

  // ── bodies: relative links to pages, files and reusable contents become references ──
  const folderPage = new Map<string, string>();
  for (const [path, pageId] of pageIdByPath) {
    if (/(^|\/)(readme|index)\.md$/i.test(path)) folderPage.set(path.replace(/\/?(readme|index)\.md$/i, ""), pageId);
  }
  const sitesOf: LinkSitesOf = input.linkSites ?? ((_, markdown) => findLinkSites(markdown));
  /** `oid`: the blob `text` was read from (a page's body is a function of its file's bytes). */
  const rewriteBody = (from: string, text: string, limit: number, oid: string | null): string => {
    const body = rewriteLinkSites(text, sitesOf(oid && `blob:${oid}`, text), (url, kind) => {
      const target = resolveRelative(from, url);
      if (!target) return undefined;
      const pageId = pageIdByPath.get(target.path) ?? folderPage.get(target.path);
      if (pageId) return `/pages/${pageId}${target.anchor ? `#${target.anchor}` : ""}`;
      const fileId = fileIdByPath.get(target.path);
      if (fileId) return `/files/${fileId}`;
      const reusableId = kind === "tag" ? reusableIdByPath.get(target.path) : undefined;
      return reusableId ? `.gitbook/includes/${reusableId}.md` : undefined;
    });
    if (Buffer.byteLength(body, "utf8") > limit) throw new AppError("payload_too_large", `${from}: markdown larger than the limit of ${limit} bytes`);
    return body;
  };
  const bodyOf = (page: LayoutPage): string => (page.path ? rewriteBody(page.path, page.body, PAGE_LIMITS.markdownBytes, page.oid) : "");

  let reusablesWritten = 0;
  const baseReusableBodies = await session.bodies(baseReusables.flatMap((item) => (item.bodyId ? [item.bodyId] : [])));
  for (const include of layout.includes) {
    const reusableContentId = reusableIdByPath.get(include.path)!;
    const base = baseReusables.find((item) => item.reusableContentId === reusableContentId);
    const markdown = rewriteBody(include.path, include.body, PAGE_LIMITS.markdownBytes, include.oid);
    const baseMarkdown = base?.bodyId ? (baseReusableBodies.get(base.bodyId)?.markdown ?? "") : "";
    if (base && base.title === include.title && sameBody(baseMarkdown, markdown) && base.git?.oid === include.oid) continue;
    const valid = validateReusableContent({ title: include.title, markdown });
    editor.putReusable({ reusableContentId, ...valid, git: { oid: include.oid, path: include.path } });
    reusablesWritten += 1;
  }
  let reusablesDeleted = 0;
  for (const item of baseReusables) {
    if (!claimedReusables.has(item.reusableContentId) && (await editor.deleteReusable(item.reusableContentId))) reusablesDeleted += 1;
  }
  const bodies = await session.bodies([...new Set(desired.map((item) => item.base?.bodyId).filter((id): id is string => !!id))]);
  const baseBody = (page: PageRecord) => (page.bodyId ? (bodies.get(page.bodyId)?.markdown ?? "") : "");

  // ── 1. pages that change slug or parent take a temporary slug; those changing parent wait at the top level ──
  const moving = desired.filter((item) => item.base && item.base.parentId !== item.parentId);
  for (const item of desired) {
    if (item.base && (item.base.slug !== item.page.slug || item.base.parentId !== item.parentId)) {
      await editor.updatePage({ pageId: item.pageId, slug: `_imprint-${item.pageId}`.slice(0, PAGE_LIMITS.slug) });
    }
  }
  for (const item of moving) await editor.movePage({ pageId: item.pageId, parentId: null, position: {} });

  // ── 2. pages the repository no longer has ──
  let deleted = 0;
  for (const page of index.byId.values()) {
    if (claimed.has(page.pageId) || !(await editor.page(page.pageId))) continue;
    deleted += await editor.deletePage(page.pageId);
  }

  // ── 3. create and update, parents first ──
  let created = 0;
  let updated = 0;
  const createdIds = new Set<string>();
  const updatedIds = new Set<string>();
  const previousSibling = new Map<string, string>();
  for (const item of desired) {
    const { page } = item;
    const parentKey = item.parentId ?? "";
    const after = previousSibling.get(parentKey);
    previousSibling.set(parentKey, item.pageId);
    const git = page.path && page.oid ? { oid: page.oid, path: page.path } : null;
    const href = page.type === "link" && page.href && HREF.test(page.href) && page.href.length <= PAGE_LIMITS.href ? page.href : null;
    if (!item.base) {
      await editor.createPage({
        pageId: item.pageId,
        parentId: item.parentId,
        position: after ? { after } : {},
        type: page.type === "link" && !href ? "document" : page.type,
        title: page.title,
        slug: page.slug,
        emoji: "",
        icon: page.icon,
        description: page.description,
        markdown: page.type === "document" ? bodyOf(page) : "",
        hidden: page.hidden,
        noIndex: false,
        noRobotsIndex: false,
        layout: DEFAULT_LAYOUT,
        cover: null,
        variables: {},
        href: page.type === "link" ? href : null,
        git,
      });
      created += 1;
      createdIds.add(item.pageId);
      continue;
    }
    const base = item.base;
    if (base.parentId !== item.parentId) await editor.movePage({ pageId: item.pageId, parentId: item.parentId, position: after ? { after } : {} });
    const patch: PagePatch = { pageId: item.pageId };
    if (base.slug !== page.slug || base.parentId !== item.parentId) patch.slug = page.slug;
    if (base.title !== page.title) patch.title = page.title;
    if (base.description !== page.description) patch.description = page.description;
    if (base.icon !== page.icon) patch.icon = page.icon;
    if (base.hidden !== page.hidden) patch.hidden = page.hidden;
    if (page.type === "link" && href && base.href !== href) patch.href = href;
    if (page.type === "document") {
      const body = bodyOf(page);
      if (!sameBody(baseBody(base), body)) patch.markdown = body;
    }
    const changed = Object.keys(patch).length > 1 || base.parentId !== item.parentId;
    if (changed) {
      patch.git = git;
      await editor.updatePage(patch);
      updated += 1;
      updatedIds.add(item.pageId);
    }
  }

  // ── 4. order among siblings: the fewest moves ──
  const wanted = new Map<string, string[]>();
  for (const item of desired) {
    const key = item.parentId ?? "";
    const list = wanted.get(key) ?? [];
    list.push(item.pageId);
    wanted.set(key, list);
  }
  for (const [parentKey, order] of wanted) {
    const parentId = parentKey === "" ? null : parentKey;
    const current = await editor.childIds(parentId);
    const rank = new Map(current.map((id, position) => [id, position]));
    const keep = longestIncreasing(order.map((id) => rank.get(id) ?? -1));
    for (let i = 0; i < order.length; i++) {
      if (keep.has(i)) continue;
      const pageId = order[i]!;
      const first = (await editor.childIds(parentId)).find((id) => id !== pageId);
      await editor.movePage({ pageId, parentId, position: i > 0 ? { after: order[i - 1]! } : first ? { before: first } : {} });
      if (!createdIds.has(pageId) && !updatedIds.has(pageId)) {
        updatedIds.add(pageId);
        updated += 1;
      }
    }
  }

  const pages: Record<string, string> = {};
  for (const [path, pageId] of pageIdByPath) pages[path] = pageId;
  const files: Record<string, string> = {};
  for (const [path, fileId] of fileIdByPath) files[path] = fileId;
  return { created, updated, deleted, filesWritten, filesDeleted, reusablesWritten, reusablesDeleted, pages, files };
}
