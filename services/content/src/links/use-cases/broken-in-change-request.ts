import type { EntityManager } from "@mikro-orm/postgresql";
import { mergeBaseOf, type BranchRecord, requireCommittedRevision, ContentView, StoreSession } from "../../revisions/index.js";
import { linkKey } from "../domain/extract.js";
import { linkGraph } from "../store/link-graph.js";
import type { LinkGraph, LinkUsage } from "../domain/model.js";
import { linkStatus } from "../domain/link-status.js";
import type { LinkDeps } from "../deps.js";

/**
 * How many of the broken link targets listed a change request broke: those with a location (a
 * page holding the reference) where the reference is new or newly broken compared with the
 * branch's merge base (the space's revision last brought into the branch, else its fork point).
 * Links the space already had broken, and changes made to the space after the fork, do not count:
 * the number is what merging the change request would add.
 */
export async function brokenInChangeRequest(em: EntityManager, deps: LinkDeps, branch: BranchRecord, broken: readonly LinkUsage[]): Promise<number> {
  if (broken.length === 0) return 0;
  const base = await requireCommittedRevision(em, deps, mergeBaseOf(branch));
  const baseGraph = await linkGraph(new ContentView(new StoreSession(em, base.storeId, deps.caches), base.root, deps.caches), deps.links);
  return broken.filter((usage) => usage.locations.some((pageId) => !wasBrokenAt(baseGraph, pageId, usage.key))).length;
}

/** Whether the page held the reference in the base, broken there too. */
function wasBrokenAt(graph: LinkGraph, pageId: string, key: string): boolean {
  const link = graph.linksOf.get(pageId)?.find((candidate) => linkKey(candidate) === key);
  return link !== undefined && linkStatus(link, graph, undefined) === "broken";
}
