import type { EntityManager } from "@mikro-orm/postgresql";
import type { CallerInput } from "../../access/index.js";
import type { RevisionHeader } from "../domain/tree/caches.js";
import type { PageTree } from "../domain/tree/content-view.js";
import { holdsRevision, openContent, type ContentRefInput, type OpenedContent } from "./shared/open-content.js";
import { pageTreeFromIndex } from "./shared/page-tree.js";
import type { RevisionDeps } from "../../deps.js";

export interface PageListing {
  revision: RevisionHeader;
  organizationId: string;
  pages: PageTree[];
  /** Markdown of every page body, by body id. */
  markdown: Map<string, string>;
  /** The reference resolved to the revision the caller said it holds: no pages are listed. */
  notModified: boolean;
}

/** The whole page tree of a revision with every page's markdown (GitBook's page objects carry their body). */
export async function listPages(
  em: EntityManager,
  input: { caller: CallerInput | undefined; ref: ContentRefInput | undefined; knownRevisionId?: string },
  deps: RevisionDeps,
): Promise<PageListing> {
  const opened = await openContent(em, deps, input);
  if (holdsRevision(opened, input.knownRevisionId)) {
    return { revision: opened.revision, organizationId: opened.access.space.organizationId, pages: [], markdown: new Map(), notModified: true };
  }
  return pageListing(opened);
}

export async function pageListing({ revision, view, access }: OpenedContent): Promise<PageListing> {
  const index = await view.index();
  const bodyIds = [...index.byId.values()].map((page) => page.bodyId).filter((id): id is string => id !== null);
  // Read once per revision: the gateway keeps the answer and asks again with known_revision_id.
  const bodies = await view.bodies(bodyIds, { keep: false });
  return {
    revision,
    organizationId: access.space.organizationId,
    pages: pageTreeFromIndex(index),
    markdown: new Map([...bodies].map(([id, body]) => [id, body.markdown])),
    notModified: false,
  };
}
