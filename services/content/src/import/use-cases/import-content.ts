import { CreatePageInput } from "@imprint/proto/content/v1/editing";
import { AppError, parseFetchableUrl, SafeFetchError } from "@imprint/runtime";
import type { EntityManager } from "@mikro-orm/postgresql";
import { requireCaller, type CallerInput } from "../../access/index.js";
import { requireSpaceAccess } from "../../spaces/index.js";
import {
  requireBranch,
  requireUnmerged,
  CONTENT_ID,
  PAGE_LIMITS,
  newPageFrom,
  applyPageOperations,
  type PageOperation,
  commitDraft,
  discardDraft,
  openContent,
  openDraft,
  uploadFile,
} from "../../revisions/index.js";
import { imageKey, imageUrls, planPageTree, REVISION_REFERENCES, rewriteReferences, type ConvertedPage, type PlannedPage } from "../domain/build-tree.js";
import { crawlSite } from "../store/crawl-site.js";
import { extractMainContent } from "../domain/extract.js";
import { fetchImages } from "../store/fetch-images.js";
import { hastToMdast, mdastToMarkdown } from "../domain/html-to-markdown.js";
import type { ImportDeps, RevisionDeps } from "../../deps.js";

export const IMPORT_SOURCES = ["website"] as const;

export interface ImportContentInput {
  caller: CallerInput | undefined;
  ref: { spaceId: string; changeRequestId: string; revisionId: string } | undefined;
  url: string;
  source: string;
  /** Empty: the imported pages go to the top level. */
  underPageId: string;
}

export interface ImportResult {
  revisionId: string;
  importedResources: number;
  totalResources: number;
}

/** Commits are retried this often when another commit moved the space's head meanwhile. */
const COMMIT_ATTEMPTS = 3;

/** Where an import writes, once validated: the change request is empty or names one (id or number). */
export interface ImportTarget {
  spaceId: string;
  changeRequestId: string;
  underPageId: string | null;
}

/** What a background import (an import run) observes of the work and adds to it; the synchronous import uses none. */
export interface ImportHooks {
  /** Aborts the fetching (the run was cancelled or its worker is stopping). */
  signal?: AbortSignal | undefined;
  /** Counts so far; called as pages and images arrive. What it throws ends the import before anything is written. */
  onProgress?: (progress: ImportProgress) => Promise<void>;
  /** The pages the import will create, once the site was crawled and planned. */
  onPlanned?: (pages: { pageId: string; sourceUrl: string }[], totals: { totalResources: number; skipped: number }) => Promise<void>;
  /**
   * Runs in the commit's transaction: before the commit (what it throws rolls the commit back, and
   * the draft is discarded), and with its result after it (committed together).
   */
  beforeCommit?: (tx: EntityManager) => Promise<void>;
  afterCommit?: (tx: EntityManager, result: ImportResult) => Promise<void>;
}

export interface ImportProgress {
  pagesFetched: number;
  pagesFailed: number;
  filesFetched: number;
}

/** The source's rules shared by the synchronous import and the import runs: a supported source and a fetchable URL. */
export function validateImportSource(input: { source: string; url: string }, field: { source: string; url: string } = { source: "source", url: "url" }): URL {
  if (!(IMPORT_SOURCES as readonly string[]).includes(input.source)) {
    throw AppError.invalidArgument(`${field.source}: must be "website" (the only supported import source), got "${input.source}"`);
  }
  if (input.url.trim() === "") throw AppError.invalidArgument(`${field.url}: is required`);
  if (input.url.length > 2048) throw AppError.invalidArgument(`${field.url}: must be at most 2048 characters`);
  try {
    return parseFetchableUrl(input.url.trim());
  } catch (error) {
    if (error instanceof SafeFetchError) throw AppError.invalidArgument(`${field.url}: ${error.reason}`);
    throw error;
  }
}

/**
 * The caller may import into the target: edit rights on the space (not_found when they cannot see
 * it, permission_denied when they cannot edit), a change request that exists and is not merged, a
 * page to import under that exists. Answers the change request's id (it may be named by number).
 */
export async function requireImportTarget(
  em: EntityManager,
  deps: RevisionDeps,
  caller: CallerInput,
  target: ImportTarget,
  changeRequestField = "ref.change_request_id",
): Promise<{ organizationId: string; changeRequestId: string }> {
  // A page id of the wrong shape names no page: answered like a missing one.
  if (target.underPageId !== null && !CONTENT_ID.test(target.underPageId)) throw AppError.notFound("Page");
  const access = await requireSpaceAccess(em, deps, { caller, spaceId: target.spaceId, need: "edit" });
  let changeRequestId = "";
  if (target.changeRequestId !== "") {
    const branch = await requireBranch(em, target.spaceId, target.changeRequestId);
    requireUnmerged(branch, changeRequestField);
    changeRequestId = branch.id;
  }
  if (target.underPageId) {
    const { view } = await openContent(em, deps, { caller, ref: { spaceId: target.spaceId, changeRequestId, revisionId: "" } });
    if (!(await view.page(target.underPageId))) throw AppError.notFound("Page");
  }
  return { organizationId: access.space.organizationId, changeRequestId };
}

function validate(input: ImportContentInput): { target: ImportTarget; url: URL } {
  if (!input.ref?.spaceId) throw AppError.invalidArgument("ref.space_id: is required");
  if (input.ref.revisionId !== "") throw AppError.invalidArgument("ref.revision_id: must be empty (imports build on the current revision)");
  const url = validateImportSource(input);
  return { target: { spaceId: input.ref.spaceId, changeRequestId: input.ref.changeRequestId, underPageId: input.underPageId || null }, url };
}

async function convert(crawled: Awaited<ReturnType<typeof crawlSite>>["pages"]): Promise<ConvertedPage[]> {
  const pages: ConvertedPage[] = [];
  for (const page of crawled) {
    const extracted = extractMainContent(page.tree);
    pages.push({ crawled: page, title: extracted.title, content: await hastToMdast(extracted.content) });
  }
  return pages;
}

/**
 * The slugs already used under the import's parent in the draft (imported top-level pages must
 * avoid them), after checking that the parent page is still there and can hold sub-pages.
 */
async function slugsUnderParent(
  em: EntityManager,
  deps: RevisionDeps,
  input: { caller: CallerInput; spaceId: string; draftId: string; parentId: string | null },
): Promise<Set<string>> {
  const { view } = await openContent(em, deps, { caller: input.caller, ref: { spaceId: input.spaceId, changeRequestId: "", revisionId: input.draftId } });
  if (input.parentId) {
    const parent = await view.page(input.parentId);
    if (!parent) throw AppError.notFound("Page");
    if (parent.type === "link") throw AppError.invalidArgument("page_id: a link page cannot have sub-pages");
  }
  const slugs = new Set<string>();
  for (const id of await view.childIds(input.parentId)) {
    const page = await view.page(id);
    if (page) slugs.add(page.slug);
  }
  return slugs;
}

function uniqueSlug(slug: string, taken: Set<string>): string {
  let candidate = slug;
  for (let suffix = 1; taken.has(candidate); suffix += 1) candidate = `${slug}-${suffix}`;
  taken.add(candidate);
  return candidate;
}

interface PreparedContent {
  planned: PlannedPage[];
  images: Awaited<ReturnType<typeof fetchImages>>["images"];
  totalResources: number;
  /** Bytes downloaded and kept (pages and images), for the import's log line. */
  fetchedBytes: number;
  /** Pages and images that failed to download and were left out. */
  skipped: number;
}

/** Everything that needs the network, done before any draft exists. */
async function fetchSite(url: URL, deps: ImportDeps, hooks: ImportHooks): Promise<PreparedContent> {
  const budget = AbortSignal.timeout(deps.limits.maxFetchDurationMs);
  const signal = hooks.signal ? AbortSignal.any([hooks.signal, budget]) : budget;
  const progress = { pagesFetched: 0, pagesFailed: 0, filesFetched: 0 };
  const report = hooks.onProgress;
  let crawl;
  try {
    crawl = await crawlSite(url, {
      policy: deps.fetchPolicy,
      limits: deps.limits.crawl,
      signal,
      onProgress: report && (({ fetched, failed }) => report(Object.assign(progress, { pagesFetched: fetched, pagesFailed: failed }))),
    });
  } catch (error) {
    if (error instanceof SafeFetchError) throw AppError.invalidArgument(`url: could not be fetched (${error.reason})`);
    throw error;
  }
  const converted = await convert(crawl.pages);
  const planned = planPageTree(converted, crawl.scope);
  const imageByKey = new Map<string, URL>();
  for (const page of converted) for (const image of imageUrls(page)) if (!imageByKey.has(imageKey(image))) imageByKey.set(imageKey(image), image);
  const downloads = await fetchImages([...imageByKey.values()], {
    policy: deps.fetchPolicy,
    limits: deps.limits.images,
    signal,
    onProgress: report && ((downloaded) => report(Object.assign(progress, { filesFetched: downloaded }))),
  });
  const failures = [...crawl.failed.map((page) => ({ key: page.url.toString(), reason: page.reason })), ...downloads.failed];
  for (const failure of failures) {
    deps.logger.info("import: resource skipped", { url: failure.key, reason: failure.reason });
  }
  return {
    planned,
    images: downloads.images,
    totalResources: crawl.pages.length + crawl.failed.length + crawl.notVisited + imageByKey.size,
    fetchedBytes: crawl.bytes + downloads.images.reduce((sum, image) => sum + image.bytes.length, 0),
    skipped: failures.length,
  };
}

/**
 * One attempt at writing the import: a draft from the current revision (of the space, or of the
 * change request's branch), the images as files, the pages (links and images rewritten to the
 * revision's references) in one batch, and a commit that moves that head only if it is still the
 * draft's parent.
 */
async function writeImport(
  em: EntityManager,
  deps: ImportDeps,
  input: { caller: CallerInput; spaceId: string; changeRequestId: string; underPageId: string | null; url: URL; content: PreparedContent },
  hooks: ImportHooks,
): Promise<ImportResult> {
  const { caller, spaceId, changeRequestId, underPageId, content } = input;
  const draft = await openDraft(em, { caller, spaceId, parentRevisionId: "", changeRequestId }, deps);
  try {
    const taken = await slugsUnderParent(em, deps, { caller, spaceId, draftId: draft.id, parentId: underPageId });

    const fileIdByImage = new Map<string, string>();
    for (const image of content.images) {
      const file = await uploadFile(
        em,
        { caller, draftId: draft.id, fileId: "", name: image.name, contentType: image.contentType, content: image.bytes },
        deps,
      );
      fileIdByImage.set(image.key, file.fileId);
    }

    const pageIdByKey = new Map<string, string>();
    for (const page of content.planned) for (const key of page.source.crawled.keys) pageIdByKey.set(key, page.pageId);

    let importedPages = 0;
    const operations: PageOperation[] = content.planned.map((page) => {
      // Rewriting works on a copy: a retried attempt starts again from the original references.
      const source: ConvertedPage = { ...page.source, content: structuredClone(page.source.content) };
      rewriteReferences(source, { pageIdByKey, fileIdByImage, format: REVISION_REFERENCES });
      let markdown = mdastToMarkdown(source.content);
      // A body over the editing API's limit is left out; the page keeps its place in the tree.
      if (Buffer.byteLength(markdown, "utf8") > PAGE_LIMITS.markdownBytes) markdown = "";
      else importedPages += 1;
      const parentPageId = page.parentPageId ?? underPageId ?? "";
      const slug = page.parentPageId === null ? uniqueSlug(page.slug, taken) : page.slug;
      const create = CreatePageInput.fromPartial({ pageId: page.pageId, parentPageId, title: page.title, slug, markdown });
      return { kind: "create", page: newPageFrom(create, (name) => `imported page ${page.source.crawled.url.toString()}: ${name}`) };
    });
    await applyPageOperations(em, { caller, draftId: draft.id, operations }, deps);

    const message = `Import from ${input.url.toString()}`.slice(0, 1000);
    const commitInput = { caller, draftId: draft.id, message, moveHead: true, expectedHeadRevisionId: "" };
    const resultOf = (revisionId: string): ImportResult => ({
      revisionId,
      importedResources: importedPages + content.images.length,
      totalResources: content.totalResources,
    });
    if (!hooks.beforeCommit && !hooks.afterCommit) return resultOf((await commitDraft(em, commitInput, deps)).revisionId);
    // The hooks and the commit in one transaction (the commit's own becomes a savepoint of it).
    return await deps.unitOfWork.run(em, async (tx) => {
      await hooks.beforeCommit?.(tx);
      const result = resultOf((await commitDraft(tx, commitInput, deps)).revisionId);
      await hooks.afterCommit?.(tx, result);
      return result;
    });
  } catch (error) {
    await discardDraft(em, { caller, draftId: draft.id }, deps).catch((discardError: unknown) =>
      deps.logger.warn("import: could not discard the draft", { draftId: draft.id, err: discardError }),
    );
    throw error;
  }
}

/**
 * Imports a website into a space (or into a change request's branch) as one new revision: crawls
 * the same-site pages from `url`, extracts their main content as markdown, builds the page tree
 * from their URL paths, downloads their images as files and rewrites links between imported pages
 * into page references. Needs edit rights (and, for a change request, one that is not merged),
 * checked before anything is fetched. Sources that cannot be fetched answer invalid_argument
 * naming `url`.
 */
export async function importContent(em: EntityManager, input: ImportContentInput, deps: ImportDeps): Promise<ImportResult> {
  const caller = requireCaller(input.caller);
  const { target, url } = validate(input);
  const { changeRequestId } = await requireImportTarget(em, deps, caller, target);
  return performImport(em, { caller, target: { ...target, changeRequestId }, url }, deps);
}

/**
 * The import itself, shared by the synchronous import and the import runs, once the target was
 * checked ({@link requireImportTarget}): everything that needs the network first, then a draft
 * written and committed (again on the new head, up to three times, when another commit moved it
 * meanwhile). Logs its figures when done.
 */
export async function performImport(
  em: EntityManager,
  input: { caller: CallerInput; target: ImportTarget; url: URL },
  deps: ImportDeps,
  hooks: ImportHooks = {},
): Promise<ImportResult> {
  const { caller, url } = input;
  const { spaceId, changeRequestId, underPageId } = input.target;
  const started = performance.now();
  const content = await fetchSite(url, deps, hooks);
  await hooks.onPlanned?.(
    content.planned.map((page) => ({ pageId: page.pageId, sourceUrl: page.source.crawled.url.toString() })),
    { totalResources: content.totalResources, skipped: content.skipped },
  );
  for (let attempt = 1; ; attempt += 1) {
    try {
      // A fresh identity map per attempt: the space and branch rows read before the fetch (or by a
      // failed attempt) would otherwise hold the head as it was then, and every attempt conflict.
      const result = await writeImport(em.fork({ clear: true }), deps, { caller, spaceId, changeRequestId, underPageId, url, content }, hooks);
      deps.logger.info("website import finished", {
        space_id: spaceId,
        change_request_id: changeRequestId || undefined,
        // Without the query string, which may carry a credential of the source site.
        url: `${url.origin}${url.pathname}`,
        revision_id: result.revisionId,
        pages: content.planned.length,
        files: content.images.length,
        bytes: content.fetchedBytes,
        skipped: content.skipped,
        duration_ms: Math.round(performance.now() - started),
        ...(attempt > 1 ? { attempts: attempt } : {}),
      });
      return result;
    } catch (error) {
      // Another commit moved the head between our draft and our commit: build again on the new head.
      if (error instanceof AppError && error.code === "conflict" && attempt < COMMIT_ATTEMPTS) continue;
      throw error;
    }
  }
}
