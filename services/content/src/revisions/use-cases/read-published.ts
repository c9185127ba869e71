import type { EntityManager } from "@mikro-orm/postgresql";
import type { JsonDocument } from "@imprint/document";
import { AppError, isId } from "@imprint/runtime";
import { findLatestOpenApiDocument, parseOpenApiFile, type LatestOpenApiDocument } from "../../openapi/index.js";
import { Space } from "../../spaces/index.js";
import { evaluateDocument, evaluateText, type ExpressionScope } from "../domain/markdown/evaluate.js";
import { anchoredToSpace, expandIncludes, includedRefs, includeKey, MAX_INCLUDE_DEPTH, MAX_INCLUDED, type IncludedRef } from "../domain/markdown/includes.js";
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
  /** Another space's (of the organization): that space and the revision it was read at; "" for the page's own. */
  spaceId: string;
  revisionId: string;
}

/** Told when a published page includes a reusable content of another organization's space (shown as nothing). */
export type ForeignIncludeWarning = (spaceId: string, includedSpaceId: string) => void;

/**
 * A page of a published space, as a JSON document and as markdown, variables evaluated (for the
 * reader), with the reusable contents it includes: their documents, and their markdown in place of
 * the page's include tags (so the page's markdown reads whole). A reusable content of another space
 * of the organization is read at that space's current revision (GitBook's are live); another
 * organization's is left out, and `warnForeign` told.
 */
export async function getPublishedPage(
  em: EntityManager,
  input: { spaceId: string; revisionId: string; pageId: string },
  deps: RevisionDeps,
  warnForeign: ForeignIncludeWarning = () => {},
): Promise<{
  documentJson: string;
  markdown: string;
  reusableContents: PublishedReusableContent[];
  spaceVariables: Record<string, string>;
  pageVariables: Record<string, string>;
}> {
  const { space, revision, view } = await openPublished(em, deps, input.spaceId, input.revisionId);
  const page = input.pageId ? await view.page(input.pageId) : undefined;
  if (!page || page.type === "link") throw AppError.notFound("Page");
  const variables = { spaceVariables: revision.variables, pageVariables: page.variables };
  if (!page.bodyId) return { documentJson: JSON.stringify({ object: "document", data: {}, nodes: [] }), markdown: "", reusableContents: [], ...variables };
  const body = (await view.bodies([page.bodyId])).get(page.bodyId);
  if (!body) throw new Error(`body ${page.bodyId} is missing`);
  const scope = { space: revision.variables, page: page.variables };
  const document = evaluateDocument(JSON.parse(body.document) as JsonDocument, scope);
  const own: IncludeSource = { spaceId: "", revisionId: "", view, scope };
  const included = await includedContents(em, deps, space, own, document, (includedSpaceId) => warnForeign(space.id, includedSpaceId));
  return {
    documentJson: JSON.stringify(document),
    markdown: expandIncludes(
      evaluateText(body.markdown, scope),
      new Map(included.map((content) => [includeKey(content.spaceId, content.id), content.markdown])),
      space.id,
    ),
    reusableContents: included.map(({ markdown: _markdown, ...content }) => content),
    ...variables,
  };
}

/** Where included reusable contents are read: the page's space ("" ids), or another space of its organization at its current revision. */
interface IncludeSource {
  spaceId: string;
  revisionId: string;
  view: ContentView;
  scope: ExpressionScope;
}

/**
 * The reusable contents the document includes, and those they include (bounded: MAX_INCLUDE_DEPTH
 * levels, MAX_INCLUDED in all, spaces together), each evaluated in its space's variables (and the
 * page's). Other spaces are opened once each, and only when they are the page's organization's.
 */
async function includedContents(
  em: EntityManager,
  deps: Pick<RevisionDeps, "caches">,
  pageSpace: Space,
  own: IncludeSource,
  document: JsonDocument,
  warnForeign: (includedSpaceId: string) => void,
): Promise<(PublishedReusableContent & { markdown: string })[]> {
  const found: (PublishedReusableContent & { markdown: string })[] = [];
  const sources = new Map<string, Promise<IncludeSource | null>>([["", Promise.resolve(own)]]);
  const sourceOf = (spaceId: string) => {
    let source = sources.get(spaceId);
    if (!source) {
      source = openIncludeSource(em, deps, pageSpace, spaceId, own.scope, warnForeign);
      sources.set(spaceId, source);
    }
    return source;
  };
  const seen = new Set<string>();
  // Each reference with the space it names ("" for the page's own): a block naming none is in the space it is written in.
  const spaceOfRef = (ref: IncludedRef, writtenIn: string) => {
    const named = ref.space ?? writtenIn;
    return named === pageSpace.id ? "" : named;
  };
  let next = includedRefs(document).map((ref) => ({ id: ref.reusableContentId, spaceId: spaceOfRef(ref, "") }));
  for (let depth = 0; depth < MAX_INCLUDE_DEPTH && next.length > 0; depth++) {
    const refs = next
      .filter((ref) => !seen.has(includeKey(ref.spaceId, ref.id)) && IDENTIFIER.test(ref.id) && (ref.spaceId === "" || IDENTIFIER.test(ref.spaceId)))
      .slice(0, MAX_INCLUDED - seen.size);
    for (const ref of refs) seen.add(includeKey(ref.spaceId, ref.id));
    next = [];
    for (const spaceId of new Set(refs.map((ref) => ref.spaceId))) {
      const source = await sourceOf(spaceId);
      if (!source) continue;
      const records = (await Promise.all(refs.filter((ref) => ref.spaceId === spaceId).map((ref) => source.view.reusable(ref.id)))).filter(
        (record) => record !== undefined,
      );
      const bodies = await source.view.bodies(records.flatMap((record) => (record.bodyId ? [record.bodyId] : [])));
      for (const record of records) {
        const body = record.bodyId ? bodies.get(record.bodyId) : undefined;
        const evaluated = body ? evaluateDocument(JSON.parse(body.document) as JsonDocument, source.scope) : EMPTY_DOCUMENT;
        // Another space's blocks that name no space name that one, wherever the page shows them.
        const included = spaceId === "" ? evaluated : anchoredToSpace(evaluated, spaceId);
        found.push({
          id: record.reusableContentId,
          title: record.title,
          documentJson: JSON.stringify(included),
          spaceId: source.spaceId,
          revisionId: source.revisionId,
          markdown: body ? evaluateText(body.markdown, source.scope) : "",
        });
        next.push(...includedRefs(included).map((ref) => ({ id: ref.reusableContentId, spaceId: spaceOfRef(ref, spaceId) })));
      }
    }
  }
  return found;
}

/** What GitBook's identifiers (of spaces, reusable contents) look like. */
const IDENTIFIER = /^[A-Za-z0-9_-]{1,64}$/;

/**
 * Another space whose reusable contents a published page includes, at its current revision, when
 * it is of the page's organization and not deleted; null otherwise (another organization's is told
 * to `warnForeign`). Its variables replace the page's space's; the page's own stay.
 */
async function openIncludeSource(
  em: EntityManager,
  deps: Pick<RevisionDeps, "caches">,
  pageSpace: Space,
  spaceId: string,
  pageScope: ExpressionScope,
  warnForeign: (includedSpaceId: string) => void,
): Promise<IncludeSource | null> {
  const space = isId(spaceId) ? await em.findOne(Space, { id: spaceId, deletedAt: null }) : null;
  if (!space?.revisionId) return null;
  if (space.organizationId !== pageSpace.organizationId) {
    warnForeign(space.id);
    return null;
  }
  const revision = await findRevision(em, deps.caches, space.revisionId);
  if (!revision || revision.spaceId !== space.id || revision.status !== "committed") return null;
  return {
    spaceId: space.id,
    revisionId: revision.id,
    view: new ContentView(new StoreSession(em, revision.storeId, deps.caches), revision.root, deps.caches),
    scope: { ...pageScope, space: revision.variables },
  };
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
