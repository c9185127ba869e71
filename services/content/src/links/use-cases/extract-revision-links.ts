import type { EntityManager } from "@mikro-orm/postgresql";
import { ContentView, findRevision, StoreSession } from "../../revisions/index.js";
import { linkGraph } from "../store/link-graph.js";
import type { ExtractionCounts } from "../domain/model.js";
import type { LinkDeps } from "../deps.js";

/**
 * Extracts the links of a newly committed revision's new page versions (those of its parent are
 * stored already) and builds its link graph, so the first read of its links finds them ready.
 * Answers undefined when the revision is not in this database (purged since, or another
 * deployment's event).
 */
export async function extractRevisionLinks(em: EntityManager, deps: LinkDeps, revisionId: string): Promise<ExtractionCounts | undefined> {
  const revision = await findRevision(em, deps.caches, revisionId);
  if (!revision || revision.status !== "committed") return undefined;
  const view = new ContentView(new StoreSession(em, revision.storeId, deps.caches), revision.root, deps.caches);
  return (await linkGraph(view, deps.links)).counts;
}
