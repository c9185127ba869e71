import { DocumentFormat, type ContentRef, type Page, type PageReadOptions, type ReadOptions } from "@imprint/proto/content/v1/revisions";
import type { ChangeRequest } from "@imprint/proto/collaboration/v1/change_requests";
import type { Caller } from "@imprint/proto/common/v1";
import { z } from "zod";
import { AnswerCache } from "../answer-cache.js";
import { toRestFile } from "../mappers/file.js";
import { toRestPage } from "../mappers/page.js";
import { toRestReusableContent, toRestRevision } from "../mappers/revision.js";
import { pageQueryShape, toPageRequest, toPagedList } from "../pagination.js";
import { defineRoute, ok, okChunks, type Route } from "../route.js";
import { pathId, queryParam } from "../validation.js";
import type { RouteDeps } from "./deps.js";

/**
 * Reads of content under a content prefix. Every operation exists under the space prefix
 * (`/v1/spaces/{spaceId}/content`), with change requests under theirs, and for a revision of the
 * space's history under `/v1/spaces/{spaceId}/revisions/{revisionId}`: a prefix is a path and the
 * way its parameters name the content (`ContentRef`), the operations are shared.
 */
export interface ContentPrefix {
  path: string;
  /** The prefix's path parameters (validated like every path id). */
  params: Record<string, ReturnType<typeof pathId>>;
  ref(params: Record<string, string>): ContentRef;
}

export const spaceContentPrefix: ContentPrefix = {
  path: "/v1/spaces/:spaceId/content",
  params: { spaceId: pathId() },
  ref: (params) => ({ spaceId: params.spaceId ?? "", changeRequestId: "", revisionId: "" }),
};

/** A change request's content: its branch, named by the change request's id or number. */
export const changeRequestContentPrefix: ContentPrefix = {
  path: "/v1/spaces/:spaceId/change-requests/:changeRequestId/content",
  params: { spaceId: pathId(), changeRequestId: pathId() },
  ref: (params) => ({ spaceId: params.spaceId ?? "", changeRequestId: params.changeRequestId ?? "", revisionId: "" }),
};

/** Every content prefix: the same operations serve a space's content and its change requests'. */
export const CONTENT_PREFIXES: readonly ContentPrefix[] = [spaceContentPrefix, changeRequestContentPrefix];

/**
 * One revision of a space's history (GitBook's `/revisions/{revisionId}` reads): the same reads
 * as the current content's, of an immutable revision; nothing is written there.
 */
export const revisionContentPrefix: ContentPrefix = {
  path: "/v1/spaces/:spaceId/revisions/:revisionId",
  params: { spaceId: pathId(), revisionId: pathId() },
  ref: (params) => ({ spaceId: params.spaceId ?? "", changeRequestId: "", revisionId: params.revisionId ?? "" }),
};

/** The prefixes the content reads are served under: the writable ones and the revisions. */
const READ_PREFIXES: readonly ContentPrefix[] = [...CONTENT_PREFIXES, revisionContentPrefix];

/** `metadata` (git metadata) and `computed` (computed content), both true by default. */
const flagsShape = {
  metadata: queryParam.boolean().optional(),
  computed: queryParam.boolean().optional(),
};
export const flagsQuery = z.object(flagsShape);

/**
 * Page reads: `format` (document by default), `evaluated` (true and deterministic-only evaluate
 * the same here: every expression Imprint knows is deterministic). `format.markdown.refs`,
 * `dereferenced` and `cachedMetadata` are accepted; Imprint's markdown always uses stable refs
 * (`/pages/<id>`), reusable contents are not inlined, and metadata is never cached.
 */
const pageQuery = z.object({
  ...flagsShape,
  format: z.enum(["document", "markdown"]).optional(),
  "format.markdown.refs": z.enum(["relative", "stable"]).optional(),
  evaluated: z.enum(["true", "false", "deterministic-only"]).optional(),
  dereferenced: z.enum(["true", "false", "reusable-contents"]).optional(),
  cachedMetadata: queryParam.boolean().optional(),
});
const filesQuery = z.object({ ...pageQueryShape, ...flagsShape });

function readOptions(query: z.output<typeof flagsQuery>): ReadOptions {
  return { metadata: query.metadata ?? true, computed: query.computed ?? true };
}

/**
 * What a page read's answer depends on besides the revision and the organization: the reference as
 * addressed (its app URLs name the change request so), every read option, and the page (`target`,
 * last: a path may hold any character).
 */
function pageKey(request: { ref: ContentRef; options: ReadOptions; pageOptions: PageReadOptions }, target: string): string {
  const { ref, options, pageOptions } = request;
  return `${ref.spaceId}|${ref.changeRequestId}|${ref.revisionId}|${options.metadata}|${options.computed}|${pageOptions.format}|${pageOptions.evaluated}|${target}`;
}

function pageReadOptions(query: z.output<typeof pageQuery>): PageReadOptions {
  return {
    format: query.format === "markdown" ? DocumentFormat.DOCUMENT_FORMAT_MARKDOWN : DocumentFormat.DOCUMENT_FORMAT_DOCUMENT,
    evaluated: query.evaluated !== undefined && query.evaluated !== "false",
  };
}

/**
 * The last answer of a content read per key: the revision it was read from (a committed revision
 * never changes: it is the answer's identity) and the organization its app URLs name.
 */
type KeptRead = { revisionId: string; organizationId: string; json: readonly Buffer[] };

/**
 * Answers a content read from the kept JSON while content says the reference still resolves to the
 * kept revision (`known_revision_id` → `not_modified`; it checks the caller's access every time,
 * and never says it for a draft), so a large answer is built, encoded and mapped once per revision.
 * Readers arriving while the first one fetches wait for it, then ask conditionally.
 */
async function keptRead<R extends { revisionId: string; organizationId: string; notModified: boolean }>(
  kept: AnswerCache<KeptRead>,
  key: string,
  read: (knownRevisionId?: string) => Promise<R>,
  encode: (response: NoInfer<R>) => readonly Buffer[],
): Promise<readonly Buffer[]> {
  const keep = (response: R) => {
    const json = encode(response);
    kept.set(key, { revisionId: response.revisionId, organizationId: response.organizationId, json });
    return json;
  };
  if (!kept.get(key) && kept.fetching(key)) await kept.settled(key);
  const held = kept.get(key);
  if (!held) return kept.track(key, read().then(keep));
  const response = await read(held.revisionId);
  if (response.notModified && held.organizationId === response.organizationId) return held.json;
  // Same revision, another organization (the space moved): the app URLs differ.
  if (response.notModified) return kept.track(key, read().then(keep));
  return kept.track(key, Promise.resolve(response).then(keep));
}

/** Bytes, not a string: every answer writes the same buffer instead of encoding it again. */
const jsonBytes = (value: unknown): Buffer[] => [Buffer.from(JSON.stringify(value))];

/** Characters of JSON gathered before they are encoded into a chunk of the answer. */
const JSON_CHUNK_CHARS = 64 * 1024;

/**
 * `{"<key>": [items mapped]}` as chunks of bytes, each item mapped and encoded in turn: a 10,000-page
 * tree never exists as REST objects, one string or one buffer at once (the same bytes as `jsonBytes`).
 */
function jsonListBytes<T>(key: string, items: readonly T[], map: (item: T) => unknown): Buffer[] {
  const chunks: Buffer[] = [];
  let text = `{${JSON.stringify(key)}:[`;
  items.forEach((item, index) => {
    text += (index === 0 ? "" : ",") + JSON.stringify(map(item));
    if (text.length >= JSON_CHUNK_CHARS) {
      chunks.push(Buffer.from(text));
      text = "";
    }
  });
  chunks.push(Buffer.from(`${text}]}`));
  return chunks;
}

export function contentRoutesFor(prefix: ContentPrefix, { upstreams, urls, caches }: RouteDeps): Route[] {
  const revisions = upstreams.content.revisions;
  const pageTrees = new AnswerCache<KeptRead>(caches.cache(`page trees ${prefix.path}`));
  // A page read by id or by path, per content reference, page and read options.
  const pages = new AnswerCache<KeptRead>(caches.cache(`pages ${prefix.path}`));
  const prefixParams = z.object(prefix.params);
  const fileParams = z.object({ ...prefix.params, fileId: pathId() });
  const pageParams = z.object({ ...prefix.params, pageId: pathId() });
  const pathParams = z.object({ ...prefix.params, pagePath: z.string().min(1).max(2048) });
  const pageContext = (params: Record<string, string>, organizationId: string) => {
    const ref = prefix.ref(params);
    return {
      urls,
      organizationId,
      spaceId: ref.spaceId,
      ...(ref.changeRequestId ? { changeRequest: ref.changeRequestId } : {}),
      ...(ref.revisionId ? { revision: ref.revisionId } : {}),
    };
  };
  const reusableParams = z.object({ ...prefix.params, reusableContentId: pathId() });
  // getPageById and getPageByPath: the page's JSON, kept per revision and read options (keptRead).
  const keptPage = (
    params: Record<string, string>,
    query: z.output<typeof pageQuery>,
    caller: Caller | undefined,
    target: { pageId: string } | { path: string },
  ): Promise<readonly Buffer[]> => {
    const request = { caller, ref: prefix.ref(params), options: readOptions(query), pageOptions: pageReadOptions(query) };
    return keptRead(
      pages,
      pageKey(request, "pageId" in target ? `id:${target.pageId}` : `path:${target.path}`),
      (knownRevisionId?: string) =>
        "pageId" in target
          ? revisions.getPage({ ...request, pageId: target.pageId, knownRevisionId })
          : revisions.getPageByPath({ ...request, path: target.path, knownRevisionId }),
      (response) => jsonBytes(toRestPage(response.page!, pageContext(params, response.organizationId))),
    );
  };

  return [
    // getCurrentRevision
    defineRoute({
      method: "GET",
      path: prefix.path,
      params: prefixParams,
      query: flagsQuery,
      handler: async ({ params, query, principal }) => {
        const response = await revisions.getRevision({ caller: principal.caller, ref: prefix.ref(params), options: readOptions(query) });
        const revision = response.revision!;
        // A merge revision carries the change request it merged (GitBook's required `mergedFrom`).
        const mergedFrom = await mergedChangeRequest(upstreams, principal.caller, revision.spaceId, revision.mergedChangeRequestId);
        return ok(toRestRevision(revision, urls, mergedFrom));
      },
    }),

    // listPages
    defineRoute({
      method: "GET",
      path: `${prefix.path}/pages`,
      params: prefixParams,
      query: flagsQuery,
      handler: async ({ params, query, principal, ctx }) => {
        const ref = prefix.ref(params);
        const options = readOptions(query);
        const key = `${ref.spaceId}|${ref.changeRequestId}|${ref.revisionId}|${options.metadata}`;
        const encode = (response: { pages: Page[]; organizationId: string }) => {
          const context = pageContext(params, response.organizationId);
          return jsonListBytes("pages", response.pages, (page) => toRestPage(page, context));
        };
        ctx.type = "application/json";
        return okChunks(
          await keptRead(
            pageTrees,
            key,
            (knownRevisionId?: string) => revisions.listPages({ caller: principal.caller, ref, options, knownRevisionId }),
            encode,
          ),
        );
      },
    }),

    // listFiles
    defineRoute({
      method: "GET",
      path: `${prefix.path}/files`,
      params: prefixParams,
      query: filesQuery,
      handler: async ({ params, query, principal, cursors }) => {
        const response = await revisions.listFiles({
          caller: principal.caller,
          ref: prefix.ref(params),
          options: readOptions(query),
          page: toPageRequest(query, cursors),
        });
        return ok(toPagedList(response.files.map(toRestFile), response.page, cursors));
      },
    }),

    // getFileById
    defineRoute({
      method: "GET",
      path: `${prefix.path}/files/:fileId`,
      params: fileParams,
      query: flagsQuery,
      handler: async ({ params, query, principal }) => {
        const response = await revisions.getFile({ caller: principal.caller, ref: prefix.ref(params), options: readOptions(query), fileId: params.fileId });
        return ok(toRestFile(response.file!));
      },
    }),

    // getPageById
    defineRoute({
      method: "GET",
      path: `${prefix.path}/page/:pageId`,
      params: pageParams,
      query: pageQuery,
      handler: async ({ params, query, principal, ctx }) => {
        ctx.type = "application/json";
        return okChunks(await keptPage(params, query, principal.caller, { pageId: params.pageId }));
      },
    }),

    // listSpacePageMetaLinks, listChangeRequestPageMetaLinks, listRevisionPageMetaLinks: a page's
    // `metaLinks` (GitBook's canonical URL and alternates, set on a page). Imprint's pages carry
    // none, so a page the caller can read answers the empty object, as GitBook does for a page
    // without them; a missing page or one the caller cannot see is 404 as for getPageById.
    defineRoute({
      method: "GET",
      path: `${prefix.path}/page/:pageId/meta-links`,
      params: pageParams,
      handler: async ({ params, principal }) => {
        await revisions.getPage({
          caller: principal.caller,
          ref: prefix.ref(params),
          options: { metadata: false, computed: false },
          pageId: params.pageId,
          pageOptions: { format: DocumentFormat.DOCUMENT_FORMAT_MARKDOWN, evaluated: false },
        });
        return ok({});
      },
    }),

    // getReusableContentById
    defineRoute({
      method: "GET",
      path: `${prefix.path}/reusable-contents/:reusableContentId`,
      params: reusableParams,
      query: flagsQuery,
      handler: async ({ params, query, principal }) => {
        const response = await revisions.getReusableContent({
          caller: principal.caller,
          ref: prefix.ref(params),
          options: readOptions(query),
          reusableContentId: params.reusableContentId,
          withDocument: false,
          evaluated: false,
        });
        return ok(toRestReusableContent(response.reusableContent!));
      },
    }),

    // getPageByPath: the rest of the URL is the page's path (slugs joined with "/").
    defineRoute({
      method: "GET",
      path: `${prefix.path}/path/*pagePath`,
      params: pathParams,
      query: pageQuery,
      handler: async ({ params, query, principal, ctx }) => {
        ctx.type = "application/json";
        return okChunks(await keptPage(params, query, principal.caller, { path: params.pagePath }));
      },
    }),
  ];
}

/** The change request a merge revision merged (GitBook's `mergedFrom`), when there is one. */
export async function mergedChangeRequest(
  upstreams: RouteDeps["upstreams"],
  caller: Caller | undefined,
  spaceId: string,
  changeRequestId: string,
): Promise<ChangeRequest | undefined> {
  if (!changeRequestId) return undefined;
  return (await upstreams.collaboration.changeRequests.getChangeRequest({ caller, spaceId, changeRequestId })).changeRequest;
}

/** The content reads under the space prefix, the change-request prefix and a revision's. */
export function contentRoutes(deps: RouteDeps): Route[] {
  return READ_PREFIXES.flatMap((prefix) => contentRoutesFor(prefix, deps));
}
