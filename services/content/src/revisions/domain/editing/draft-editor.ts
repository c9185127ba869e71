import { randomBytes } from "node:crypto";
import { generateKeyBetween } from "fractional-indexing";
import { slug as slugify } from "github-slugger";
import { AppError } from "@imprint/runtime";
import { markdownToDocument } from "@imprint/document";
import { treeGet, treeScan, treeUpdate } from "../tree/btree.js";
import { childKey, childPrefix, fileKey, pageKey, positionOfChildKey, reusableKey, slugKey } from "../tree/keys.js";
import {
  fileRecord,
  pageRecord,
  reusableRecord,
  sha256Hex,
  type FileRecord,
  type GitBlobValue,
  type PageCoverValue,
  type PageLayoutValue,
  type PageRecord,
  type PageType,
  type ReusableRecord,
} from "../tree/model.js";
import { MAX_PAGE_DEPTH } from "../tree/content-view.js";
import type { StoreSession } from "../../store/session.js";

export interface PositionInput {
  before?: string;
  after?: string;
  /** Zero-based index among the siblings (past the end: last); instead of before/after. */
  index?: number;
}

/** A validated new page (see page-input.ts). */
export interface NewPage {
  pageId?: string;
  parentId: string | null;
  position: PositionInput;
  type: PageType;
  title: string;
  slug?: string;
  emoji: string;
  icon: string;
  description: string;
  markdown: string;
  hidden: boolean;
  noIndex: boolean;
  noRobotsIndex: boolean;
  layout: PageLayoutValue;
  cover: PageCoverValue | null;
  variables: Record<string, string>;
  href: string | null;
  /** Git metadata (the blob a Git import read the page from); none by default. */
  git?: GitBlobValue | null;
}

/** A validated page change: only the fields present change (`cover: null` removes the cover). */
export interface PagePatch {
  pageId: string;
  title?: string;
  slug?: string;
  emoji?: string;
  icon?: string;
  description?: string;
  markdown?: string;
  hidden?: boolean;
  noIndex?: boolean;
  noRobotsIndex?: boolean;
  layout?: Partial<PageLayoutValue>;
  cover?: PageCoverValue | null;
  variables?: Record<string, string>;
  href?: string;
  /** Git metadata; absent keeps the current one. */
  git?: GitBlobValue | null;
}

export interface PageMove {
  pageId: string;
  parentId: string | null;
  position: PositionInput;
}

/** One page operation of a batch (applyPageOperations); `field` names its fields in error messages. */
export type PageOperation = (
  | { kind: "create"; page: NewPage }
  | { kind: "update"; patch: PagePatch }
  | { kind: "move"; move: PageMove }
  | { kind: "delete"; pageId: string }
) & { field?: FieldName };

interface Child {
  position: string;
  pageId: string;
}

/** Field names in error messages, prefixed for batch operations (`operations[2].create.title`). */
export type FieldName = (name: string) => string;
export const plainField: FieldName = (name) => name;

const ID_ALPHABET = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz";

/** 20 random base-62 characters (119 bits), the shape of GitBook's ids. */
export function newContentId(): string {
  const bytes = randomBytes(20);
  let id = "";
  for (const byte of bytes) id += ID_ALPHABET[byte % 62];
  return id;
}

const notFound = (field: string, what: string) => new AppError("not_found", `${field}: ${what} not found in this draft`);

/**
 * The changes of one unit of work on a draft, staged in memory over the draft's tree: reads see
 * the staged state, and `flush()` writes the new tree (one path-copy for all changes together)
 * and the new rows. Page rules live here: slugs unique among siblings, groups only at the top
 * level, links without children, no page under its own descendant, order by fractional index.
 */
export class DraftEditor {
  private readonly staged = new Map<string, string | null>();
  private readonly children = new Map<string, Child[]>();
  private readonly stagedPages = new Map<string, PageRecord>();
  private readonly stagedFiles = new Map<string, FileRecord>();
  private readonly stagedReusables = new Map<string, ReusableRecord>();

  constructor(
    private readonly session: StoreSession,
    private readonly root: string | null,
    private readonly now: Date,
  ) {}

  get changed(): boolean {
    return this.staged.size > 0;
  }

  private async value(key: string): Promise<string | undefined> {
    if (this.staged.has(key)) return this.staged.get(key) ?? undefined;
    return treeGet(this.session, this.root, key);
  }

  private stage(key: string, value: string | null): void {
    this.staged.set(key, value);
  }

  async page(pageId: string): Promise<PageRecord | undefined> {
    const versionId = await this.value(pageKey(pageId));
    if (!versionId) return undefined;
    const page = this.stagedPages.get(versionId) ?? (await this.session.pages([versionId])).get(versionId);
    if (!page) throw new Error(`page version ${versionId} is missing`);
    return page;
  }

  async requirePage(pageId: string, field: string): Promise<PageRecord> {
    const page = await this.page(pageId);
    if (!page) throw notFound(field, `page "${pageId}"`);
    return page;
  }

  async pathOf(page: PageRecord): Promise<string> {
    const slugs = [page.slug];
    let parentId = page.parentId;
    for (let depth = 0; parentId && depth < MAX_PAGE_DEPTH; depth++) {
      const parent = await this.requirePage(parentId, "page");
      slugs.unshift(parent.slug);
      parentId = parent.parentId;
    }
    return slugs.join("/");
  }

  private async depthOf(pageId: string | null): Promise<number> {
    let depth = 0;
    for (let current = pageId; current; depth++) current = (await this.requirePage(current, "page")).parentId;
    return depth;
  }

  /** Children of a parent in order, read once from the tree and then kept up to date here. */
  private async childList(parentId: string | null): Promise<Child[]> {
    const key = parentId ?? "";
    let list = this.children.get(key);
    if (!list) {
      const entries = await treeScan(this.session, this.root, { prefix: childPrefix(parentId) });
      list = entries.map(([entryKey, pageId]) => ({ position: positionOfChildKey(entryKey, parentId), pageId }));
      this.children.set(key, list);
    }
    return list;
  }

  async childIds(parentId: string | null): Promise<string[]> {
    return (await this.childList(parentId)).map((child) => child.pageId);
  }

  private async addChild(parentId: string | null, child: Child): Promise<void> {
    const list = await this.childList(parentId);
    let index = list.length;
    while (index > 0 && list[index - 1]!.position > child.position) index--;
    list.splice(index, 0, child);
    this.stage(childKey(parentId, child.position, child.pageId), child.pageId);
  }

  private async removeChild(parentId: string | null, pageId: string): Promise<void> {
    const list = await this.childList(parentId);
    const index = list.findIndex((child) => child.pageId === pageId);
    if (index < 0) return;
    const [child] = list.splice(index, 1);
    this.stage(childKey(parentId, child!.position, pageId), null);
  }

  /** A fractional index for a place among `parentId`'s children (`ignoring` one that moves). */
  private async positionFor(parentId: string | null, position: PositionInput, field: FieldName, ignoring?: string): Promise<string> {
    const all = await this.childList(parentId);
    const siblings = ignoring === undefined ? all : all.filter((child) => child.pageId !== ignoring);
    if (position.before !== undefined && position.after !== undefined) {
      throw AppError.invalidArgument(`${field("position")}: give before_page_id or after_page_id, not both`);
    }
    if (position.index !== undefined) {
      const index = Math.min(position.index, siblings.length);
      return generateKeyBetween(siblings[index - 1]?.position ?? null, siblings[index]?.position ?? null);
    }
    const anchorId = position.before ?? position.after;
    if (anchorId === undefined) return generateKeyBetween(siblings[siblings.length - 1]?.position ?? null, null);
    const index = siblings.findIndex((child) => child.pageId === anchorId);
    const anchorField = field(position.before !== undefined ? "position.before_page_id" : "position.after_page_id");
    if (index < 0) throw AppError.invalidArgument(`${anchorField}: "${anchorId}" is not a page under the same parent`);
    const anchor = siblings[index]!.position;
    return position.before !== undefined
      ? generateKeyBetween(siblings[index - 1]?.position ?? null, anchor)
      : generateKeyBetween(anchor, siblings[index + 1]?.position ?? null);
  }

  private async requireParent(parentId: string | null, type: PageType, field: FieldName): Promise<void> {
    if (type === "group" && parentId !== null) throw AppError.invalidArgument(`${field("parent_page_id")}: a group can only be at the top level`);
    if (parentId === null) return;
    const parent = await this.page(parentId);
    if (!parent) throw notFound(field("parent_page_id"), `page "${parentId}"`);
    if (parent.type === "link") throw AppError.invalidArgument(`${field("parent_page_id")}: a link page cannot have sub-pages`);
    if ((await this.depthOf(parentId)) >= MAX_PAGE_DEPTH) {
      throw AppError.invalidArgument(`${field("parent_page_id")}: pages can be nested at most ${MAX_PAGE_DEPTH} levels deep`);
    }
  }

  private async slugTakenBy(parentId: string | null, slug: string): Promise<string | undefined> {
    return this.value(slugKey(parentId, slug));
  }

  /** The title's slug, made unique among the siblings with a numeric suffix. */
  private async derivedSlug(parentId: string | null, title: string): Promise<string> {
    const base = slugify(title).replace(/\//g, "-").slice(0, 90) || "page";
    if (!(await this.slugTakenBy(parentId, base))) return base;
    for (let suffix = 1; ; suffix++) {
      const candidate = `${base}-${suffix}`;
      if (!(await this.slugTakenBy(parentId, candidate))) return candidate;
    }
  }

  private stageBody(markdown: string): string | null {
    if (markdown === "") return null;
    const id = sha256Hex(markdown);
    this.session.stageBody({ id, markdown, document: JSON.stringify(markdownToDocument(markdown)) });
    return id;
  }

  private stagePage(page: PageRecord): void {
    this.stagedPages.set(page.id, page);
    this.session.stagePage(page);
    this.stage(pageKey(page.pageId), page.id);
  }

  // ── pages ────────────────────────────────────────────────────────────────────────────────────

  async createPage(input: NewPage, field: FieldName = plainField): Promise<PageRecord> {
    const pageId = input.pageId ?? newContentId();
    if (input.pageId !== undefined && (await this.value(pageKey(pageId)))) {
      throw new AppError("already_exists", `${field("page_id")}: a page "${pageId}" already exists in this draft`);
    }
    await this.requireParent(input.parentId, input.type, field);
    let slug: string;
    if (input.slug !== undefined) {
      if (await this.slugTakenBy(input.parentId, input.slug)) {
        throw new AppError("already_exists", `${field("slug")}: "${input.slug}" is already used by a sibling page`);
      }
      slug = input.slug;
    } else {
      slug = await this.derivedSlug(input.parentId, input.title);
    }
    const position = await this.positionFor(input.parentId, input.position, field);
    const page = pageRecord({
      pageId,
      type: input.type,
      parentId: input.parentId,
      position,
      slug,
      title: input.title,
      emoji: input.emoji,
      icon: input.icon,
      description: input.description,
      bodyId: input.type === "document" ? this.stageBody(input.markdown) : null,
      hidden: input.hidden,
      noIndex: input.noIndex,
      noRobotsIndex: input.noRobotsIndex,
      layout: input.layout,
      cover: input.cover,
      variables: input.variables,
      href: input.type === "link" ? input.href : null,
      git: input.git ?? null,
      createdAt: this.now,
      updatedAt: this.now,
    });
    this.stagePage(page);
    this.stage(slugKey(input.parentId, slug), pageId);
    await this.addChild(input.parentId, { position, pageId });
    return page;
  }

  async updatePage(patch: PagePatch, field: FieldName = plainField): Promise<PageRecord> {
    const current = await this.requirePage(patch.pageId, field("page_id"));
    if (patch.markdown !== undefined && current.type !== "document") {
      throw AppError.invalidArgument(`${field("markdown")}: only document pages have a body (this page is a ${current.type})`);
    }
    if (patch.href !== undefined && current.type !== "link") throw AppError.invalidArgument(`${field("href")}: only link pages have a target URL`);
    let slug = current.slug;
    if (patch.slug !== undefined && patch.slug !== current.slug) {
      const holder = await this.slugTakenBy(current.parentId, patch.slug);
      if (holder && holder !== current.pageId) throw new AppError("already_exists", `${field("slug")}: "${patch.slug}" is already used by a sibling page`);
      this.stage(slugKey(current.parentId, current.slug), null);
      this.stage(slugKey(current.parentId, patch.slug), current.pageId);
      slug = patch.slug;
    }
    const { id: _previous, ...base } = current;
    const fields: Omit<PageRecord, "id"> = {
      ...base,
      slug,
      title: patch.title ?? current.title,
      emoji: patch.emoji ?? current.emoji,
      icon: patch.icon ?? current.icon,
      description: patch.description ?? current.description,
      bodyId: patch.markdown !== undefined ? this.stageBody(patch.markdown) : current.bodyId,
      hidden: patch.hidden ?? current.hidden,
      noIndex: patch.noIndex ?? current.noIndex,
      noRobotsIndex: patch.noRobotsIndex ?? current.noRobotsIndex,
      layout: patch.layout ? { ...current.layout, ...patch.layout } : current.layout,
      cover: patch.cover !== undefined ? patch.cover : current.cover,
      variables: patch.variables ?? current.variables,
      href: patch.href ?? current.href,
      git: patch.git !== undefined ? patch.git : current.git,
    };
    // A change that changes nothing keeps the version (and the tree) as it is.
    if (pageRecord(fields).id === current.id) return current;
    const updated = pageRecord({ ...fields, updatedAt: this.now });
    this.stagePage(updated);
    return updated;
  }

  async movePage(move: PageMove, field: FieldName = plainField): Promise<PageRecord> {
    const current = await this.requirePage(move.pageId, field("page_id"));
    await this.requireParent(move.parentId, current.type, field);
    // Not under itself: walk up from the new parent.
    for (let ancestor = move.parentId, depth = 0; ancestor && depth <= MAX_PAGE_DEPTH; depth++) {
      if (ancestor === current.pageId) throw AppError.invalidArgument(`${field("parent_page_id")}: a page cannot be moved under itself or its sub-pages`);
      ancestor = (await this.requirePage(ancestor, field("parent_page_id"))).parentId;
    }
    if (move.parentId !== current.parentId) {
      const holder = await this.slugTakenBy(move.parentId, current.slug);
      if (holder && holder !== current.pageId) {
        throw new AppError("already_exists", `${field("parent_page_id")}: a page with the slug "${current.slug}" already exists there`);
      }
    }
    const position = await this.positionFor(move.parentId, move.position, field, current.pageId);
    await this.removeChild(current.parentId, current.pageId);
    this.stage(slugKey(current.parentId, current.slug), null);
    const { id: _previous, ...fields } = current;
    const moved = pageRecord({ ...fields, parentId: move.parentId, position, updatedAt: this.now });
    this.stagePage(moved);
    this.stage(slugKey(move.parentId, moved.slug), moved.pageId);
    await this.addChild(move.parentId, { position, pageId: moved.pageId });
    return moved;
  }

  /** Deletes the page and its descendants; answers how many pages went. */
  async deletePage(pageId: string, field: FieldName = plainField): Promise<number> {
    const top = await this.requirePage(pageId, field("page_id"));
    await this.removeChild(top.parentId, top.pageId);
    let count = 0;
    let level: PageRecord[] = [top];
    while (level.length > 0) {
      const next: PageRecord[] = [];
      for (const page of level) {
        count++;
        this.stage(pageKey(page.pageId), null);
        this.stage(slugKey(page.parentId, page.slug), null);
        this.stage(childKey(page.parentId, page.position, page.pageId), null);
        for (const child of await this.childList(page.pageId)) next.push(await this.requirePage(child.pageId, "page"));
        this.children.set(page.pageId, []);
      }
      level = next;
    }
    return count;
  }

  // ── files, reusable contents ───────────────────────────────────────────────────────────────

  async file(fileId: string): Promise<FileRecord | undefined> {
    const versionId = await this.value(fileKey(fileId));
    if (!versionId) return undefined;
    return this.stagedFiles.get(versionId) ?? (await this.session.files([versionId])).get(versionId);
  }

  putFile(fields: Omit<FileRecord, "id" | "createdAt">): FileRecord {
    const file = fileRecord({ ...fields, createdAt: this.now });
    this.stagedFiles.set(file.id, file);
    this.session.stageFile(file);
    this.stage(fileKey(file.fileId), file.id);
    return file;
  }

  async deleteFile(fileId: string): Promise<boolean> {
    if (!(await this.value(fileKey(fileId)))) return false;
    this.stage(fileKey(fileId), null);
    return true;
  }

  async reusable(id: string): Promise<ReusableRecord | undefined> {
    const versionId = await this.value(reusableKey(id));
    if (!versionId) return undefined;
    return this.stagedReusables.get(versionId) ?? (await this.session.reusables([versionId])).get(versionId);
  }

  putReusable(input: { reusableContentId: string; title: string; markdown: string; git?: GitBlobValue | null }): ReusableRecord {
    const item = reusableRecord({
      reusableContentId: input.reusableContentId,
      title: input.title,
      bodyId: this.stageBody(input.markdown),
      git: input.git ?? null,
    });
    this.stagedReusables.set(item.id, item);
    this.session.stageReusable(item);
    this.stage(reusableKey(item.reusableContentId), item.id);
    return item;
  }

  async deleteReusable(id: string): Promise<boolean> {
    if (!(await this.value(reusableKey(id)))) return false;
    this.stage(reusableKey(id), null);
    return true;
  }

  /** Writes the new tree and rows; answers the new root and how many rows were inserted. */
  async flush(): Promise<{ root: string | null; rowsWritten: number }> {
    const root = await treeUpdate(this.session, this.session, this.root, this.staged);
    const referenced = new Set([...this.staged.values()].filter((value): value is string => value !== null));
    const rowsWritten = await this.session.flush({ pages: referenced, files: referenced, reusables: referenced });
    return { root, rowsWritten };
  }
}
