import type { EntityManager } from "@mikro-orm/postgresql";
import type { JsonDocument } from "@imprint/document";
import { AppError, isId } from "@imprint/runtime";
import { findLatestOpenApiDocument, parseOpenApiFile, type LatestOpenApiDocument } from "../../openapi/index.js";
import { Space } from "../../spaces/index.js";
import { evaluateDocument, evaluateText, type ExpressionScope } from "../domain/markdown/evaluate.js";
import { expandIncludes, includedIds, MAX_INCLUDE_DEPTH, MAX_INCLUDED } from "../domain/markdown/includes.js";
import type { RevisionHeader } from "../domain/tree/caches.js";
import { ContentView, type PageTree } from "../domain/tree/content-view.js";
import { findRevision } from "../store/revision-rows.js";
import { StoreSession } from "../store/session.js";
import { pageTreeFromIndex } from "./shared/page-tree.js";
import type { RevisionDeps } from "../../deps.js";

/** A space a published site shows, at its current revision. */
interface PublishedContent {
  space: Space;
  revision: RevisionHeader;
  view: ContentView;
}

/**
 * The space when a published site shows it (publishing announced an address, kept on the space)
 * and it is not deleted, at `revisionId` (its current revision when empty, else one of its
 * committed revisions): the one check of the published read, which names no caller.
 */
async function openPublished(em: EntityManager, deps: Pick<RevisionDeps, "caches">, spaceId: string, revisionId = ""): Promise<PublishedContent> {
  const space = isId(spaceId) ? await em.findOne(Space, { id: spaceId, deletedAt: null }) : null;
  if (!space?.publishedAddress || !space.revisionId) throw AppError.notFound("Published space");
  const revision = await findRevision(em, deps.caches, revisionId || space.revisionId);
  if (!revision || revision.spaceId !== space.id || revision.status !== "committed") throw AppError.notFound("Revision");
  return { space, revision, view: new ContentView(new StoreSession(em, revision.storeId, deps.caches), revision.root, deps.caches) };
}

export interface PublishedSpace {
  space: Space;
  revision: RevisionHeader;
  /** The page tree; empty when the caller holds the current revision already. */
  pages: PageTree[];
  notModified: boolean;
}

/**
 * A published space's current revision (or `revisionId`, one of its committed revisions) and its
 * page tree (for the reader; publishing reads a revision and its parent to follow moved pages).
 */
export async function getPublishedSpace(
  em: EntityManager,
  input: { spaceId: string; knownRevisionId: string; revisionId?: string },
  deps: RevisionDeps,
): Promise<PublishedSpace> {
  const { space, revision, view } = await openPublished(em, deps, input.spaceId, input.revisionId);
  if (input.knownRevisionId !== "" && input.knownRevisionId === revision.id) return { space, revision, pages: [], notModified: true };
  return { space, revision, pages: pageTreeFromIndex(await view.index()), notModified: false };
}

/** A reusable content a published page includes, its body evaluated as the page's. */
export interface PublishedReusableContent {
  id: string;
  title: string;
  documentJson: string;
}

/**
 * A page of a published space, as a JSON document and as markdown, variables evaluated (for the
 * reader), with the reusable contents of the space it includes: their documents, and their
 * markdown in place of the page's include tags (so the page's markdown reads whole).
 */
export async function getPublishedPage(
  em: EntityManager,
  input: { spaceId: string; revisionId: string; pageId: string },
  deps: RevisionDeps,
): Promise<{ documentJson: string; markdown: string; reusableContents: PublishedReusableContent[] }> {
  const { revision, view } = await openPublished(em, deps, input.spaceId, input.revisionId);
  const page = input.pageId ? await view.page(input.pageId) : undefined;
  if (!page || page.type === "link") throw AppError.notFound("Page");
  if (!page.bodyId) return { documentJson: JSON.stringify({ object: "document", data: {}, nodes: [] }), markdown: "", reusableContents: [] };
  const body = (await view.bodies([page.bodyId])).get(page.bodyId);
  if (!body) throw new Error(`body ${page.bodyId} is missing`);
  const scope = { space: revision.variables, page: page.variables };
  const document = evaluateDocument(JSON.parse(body.document) as JsonDocument, scope);
  const included = await includedContents(view, document, scope);
  return {
    documentJson: JSON.stringify(document),
    markdown: expandIncludes(evaluateText(body.markdown, scope), new Map(included.map((content) => [content.id, content.markdown]))),
    reusableContents: included.map(({ id, title, documentJson }) => ({ id, title, documentJson })),
  };
}

/** The reusable contents of the space the document includes, and those they include (bounded), evaluated in `scope`. */
async function includedContents(
  view: ContentView,
  document: JsonDocument,
  scope: ExpressionScope,
): Promise<(PublishedReusableContent & { markdown: string })[]> {
  const found: (PublishedReusableContent & { markdown: string })[] = [];
  const seen = new Set<string>();
  let next = includedIds(document);
  for (let depth = 0; depth < MAX_INCLUDE_DEPTH && next.length > 0; depth++) {
    const ids = next.filter((id) => !seen.has(id) && /^[A-Za-z0-9_-]{1,64}$/.test(id)).slice(0, MAX_INCLUDED - seen.size);
    for (const id of ids) seen.add(id);
    const records = (await Promise.all(ids.map((id) => view.reusable(id)))).filter((record) => record !== undefined);
    const bodies = await view.bodies(records.flatMap((record) => (record.bodyId ? [record.bodyId] : [])));
    next = [];
    for (const record of records) {
      const body = record.bodyId ? bodies.get(record.bodyId) : undefined;
      const included = body ? evaluateDocument(JSON.parse(body.document) as JsonDocument, scope) : EMPTY_DOCUMENT;
      found.push({
        id: record.reusableContentId,
        title: record.title,
        documentJson: JSON.stringify(included),
        markdown: body ? evaluateText(body.markdown, scope) : "",
      });
      next.push(...includedIds(included));
    }
  }
  return found;
}

const EMPTY_DOCUMENT: JsonDocument = { object: "document", data: {}, nodes: [] };

/** A file of a published space's revision, with its bytes (for the reader: images and attachments of its pages). */
export async function getPublishedFile(
  em: EntityManager,
  input: { spaceId: string; revisionId: string; fileId: string },
  deps: RevisionDeps,
): Promise<{ name: string; contentType: string; content: Buffer; digest: string }> {
  const { view } = await openPublished(em, deps, input.spaceId, input.revisionId);
  const file = input.fileId ? await view.file(input.fileId) : undefined;
  const content = file ? await deps.blobStore.get(file.blobKey) : undefined;
  if (!file || !content) throw AppError.notFound("File");
  return { name: file.name, contentType: file.contentType, content, digest: file.blobKey };
}

/** Fetches an OpenAPI document from a URL no stored specification has (through the fetch guard); null when it cannot. */
export type ExternalOpenApiFetch = (url: string) => Promise<Record<string, unknown> | null>;

/**
 * An OpenAPI specification of a published space's organization, by slug or source URL (what the
 * space's OpenAPI blocks name): its latest kept version's document, for the reader. A URL no
 * stored specification has is fetched (`fetchExternal`), its document answered without a slug or
 * version; so is a file of the published revision (`fileId`: a Git Sync repository's own spec file).
 */
export async function getPublishedOpenApiSpec(
  em: EntityManager,
  input: { spaceId: string; spec: string; fileId?: string; revisionId?: string },
  deps: RevisionDeps,
  fetchExternal: ExternalOpenApiFetch,
): Promise<LatestOpenApiDocument> {
  if (input.fileId) {
    const file = await getPublishedFile(em, { spaceId: input.spaceId, revisionId: input.revisionId ?? "", fileId: input.fileId }, deps);
    const document = await parseOpenApiFile(file.content);
    if (!document) throw AppError.notFound("OpenAPI specification");
    return { slug: "", versionId: "", document };
  }
  const { space } = await openPublished(em, deps, input.spaceId);
  const spec = input.spec.trim();
  const latest = spec === "" ? null : await findLatestOpenApiDocument(em, space.organizationId, spec);
  if (latest) return latest;
  const external = /^https?:\/\//i.test(spec) ? await fetchExternal(spec) : null;
  if (!external) throw AppError.notFound("OpenAPI specification");
  return { slug: "", versionId: "", document: external };
}
