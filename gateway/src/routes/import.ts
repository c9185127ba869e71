import type { Caller } from "@imprint/proto/common/v1";
import { z } from "zod";
import { created, defineRoute, type Route } from "../route.js";
import { pathId } from "../validation.js";
import type { RouteDeps } from "./deps.js";

const spaceParams = z.object({ spaceId: pathId() });
const pageParams = z.object({ spaceId: pathId(), pageId: pathId() });

/** ImportContent (GitBook 0.143.2): which sources exist and what a fetchable URL is, the content service decides. */
export const importContentBody = z.object({
  url: z.string().min(1).max(2048),
  source: z.string().min(1).max(64),
});

/**
 * An import crawls a whole site before it answers, so it gets more time than other calls. The
 * content service bounds its own fetching (90 s) well inside this.
 */
export const IMPORT_TIMEOUT_MS = 150_000;

export function importRoutes({ upstreams, urls }: RouteDeps): Route[] {
  const imports = upstreams.content.import;

  const run = async (caller: Caller, spaceId: string, body: z.output<typeof importContentBody>, underPageId: string) => {
    const result = await imports.importContent(
      { caller, ref: { spaceId, changeRequestId: "", revisionId: "" }, url: body.url, source: body.source, underPageId },
      { timeoutMs: IMPORT_TIMEOUT_MS },
    );
    // ImportContentResult; Location is the new revision (getRevisionById).
    return created(
      { revision: result.revisionId, importedResources: result.importedResources, totalResources: result.totalResources },
      `${urls.api}/v1/spaces/${encodeURIComponent(spaceId)}/revisions/${encodeURIComponent(result.revisionId)}`,
    );
  };

  return [
    // importContent
    defineRoute({
      method: "POST",
      path: "/v1/spaces/:spaceId/content/import",
      params: spaceParams,
      body: importContentBody,
      handler: ({ params, body, principal }) => run(principal.caller, params.spaceId, body, ""),
    }),

    // importContentInPageById
    defineRoute({
      method: "POST",
      path: "/v1/spaces/:spaceId/content/page/:pageId/import",
      params: pageParams,
      body: importContentBody,
      handler: ({ params, body, principal }) => run(principal.caller, params.spaceId, body, params.pageId),
    }),
  ];
}
