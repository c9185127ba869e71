import type { Caller } from "@imprint/proto/common/v1";
import type { ContentRef } from "@imprint/proto/content/v1/revisions";
import { z } from "zod";
import { created, defineRoute, type Route } from "../route.js";
import { pathId } from "../validation.js";
import { CONTENT_PREFIXES, type ContentPrefix } from "./content.js";
import type { RouteDeps } from "./deps.js";

/** ImportContent (GitBook 0.143.2): which sources exist and what a fetchable URL is, the content service decides. */
export const importContentBody = z.object({
  url: z.string().min(1),
  source: z.string().min(1),
});

/**
 * An import crawls a whole site before it answers, so it gets more time than other calls. The
 * content service bounds its own fetching (90 s) well inside this.
 */
export const IMPORT_TIMEOUT_MS = 150_000;

/**
 * importContent / importContentInPageById under a content prefix: the space's (a new current
 * revision) or a change request's (importContentInChangeRequest / ...PageById: a new head of its
 * branch, the space's content untouched).
 */
export function importRoutesFor(prefix: ContentPrefix, { upstreams, urls }: RouteDeps): Route[] {
  const imports = upstreams.content.import;
  const prefixParams = z.object(prefix.params);
  const pageParams = z.object({ ...prefix.params, pageId: pathId() });

  const run = async (caller: Caller, ref: ContentRef, body: z.output<typeof importContentBody>, underPageId: string) => {
    const result = await imports.importContent({ caller, ref, url: body.url, source: body.source, underPageId }, { timeoutMs: IMPORT_TIMEOUT_MS });
    // ImportContentResult; Location is the new revision (getRevisionById).
    return created(
      { revision: result.revisionId, importedResources: result.importedResources, totalResources: result.totalResources },
      `${urls.api}/v1/spaces/${encodeURIComponent(ref.spaceId)}/revisions/${encodeURIComponent(result.revisionId)}`,
    );
  };

  return [
    // importContent
    defineRoute({
      method: "POST",
      path: `${prefix.path}/import`,
      params: prefixParams,
      body: importContentBody,
      handler: ({ params, body, principal }) => run(principal.caller, prefix.ref(params), body, ""),
    }),

    // importContentInPageById
    defineRoute({
      method: "POST",
      path: `${prefix.path}/page/:pageId/import`,
      params: pageParams,
      body: importContentBody,
      handler: ({ params, body, principal }) => run(principal.caller, prefix.ref(params), body, params.pageId),
    }),
  ];
}

/** Imports into a space's content and into a change request's. */
export function importRoutes(deps: RouteDeps): Route[] {
  return CONTENT_PREFIXES.flatMap((prefix) => importRoutesFor(prefix, deps));
}
