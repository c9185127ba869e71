import type { EntityManager } from "@mikro-orm/postgresql";
import { diffPageVersions, findRevision, StoreSession } from "../../revisions/index.js";
import { loadPageLinks } from "../store/page-links-store.js";
import type { ExtractionCounts } from "../domain/model.js";
import type { LinkDeps } from "../deps.js";

/**
 * Extracts the links of a newly committed revision's new page versions, those its first parent
 * (in the same store) does not have: the two trees are diffed through the store, which skips
 * every subtree they share, so a commit costs what it changed, not the size of the space. Its
 * link graph is built by the first read that needs it. Answers undefined when the revision is
 * not in this database (purged since, or another deployment's event).
 */
export async function extractRevisionLinks(em: EntityManager, deps: LinkDeps, revisionId: string): Promise<ExtractionCounts | undefined> {
  const revision = await findRevision(em, deps.caches, revisionId);
  if (!revision || revision.status !== "committed") return undefined;
  const parentId = revision.parents[0];
  const parent = parentId ? await findRevision(em, deps.caches, parentId) : undefined;
  const baseRoot = parent?.status === "committed" && parent.storeId === revision.storeId ? parent.root : null;
  const session = new StoreSession(em, revision.storeId, deps.caches);
  const versionIds = (await diffPageVersions(session, baseRoot, revision.root)).flatMap((change) => (change.after ? [change.after] : []));
  // loadPageLinks reads and parses the bodies a batch at a time.
  return (await loadPageLinks(session, deps.links, [...(await session.pages(versionIds)).values()])).counts;
}
