import type { EntityManager } from "@mikro-orm/postgresql";
import type { JsonDocument } from "@imprint/document";
import { AppError, isId } from "@imprint/runtime";
import { Space } from "../../spaces/index.js";
import { evaluateDocument, evaluateText } from "../domain/markdown/evaluate.js";
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

/** A page of a published space, as a JSON document and as markdown, variables evaluated (for the reader). */
export async function getPublishedPage(
  em: EntityManager,
  input: { spaceId: string; revisionId: string; pageId: string },
  deps: RevisionDeps,
): Promise<{ documentJson: string; markdown: string }> {
  const { revision, view } = await openPublished(em, deps, input.spaceId, input.revisionId);
  const page = input.pageId ? await view.page(input.pageId) : undefined;
  if (!page || page.type === "link") throw AppError.notFound("Page");
  if (!page.bodyId) return { documentJson: JSON.stringify({ object: "document", data: {}, nodes: [] }), markdown: "" };
  const body = (await view.bodies([page.bodyId])).get(page.bodyId);
  if (!body) throw new Error(`body ${page.bodyId} is missing`);
  const scope = { space: revision.variables, page: page.variables };
  return { documentJson: JSON.stringify(evaluateDocument(JSON.parse(body.document) as JsonDocument, scope)), markdown: evaluateText(body.markdown, scope) };
}

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
