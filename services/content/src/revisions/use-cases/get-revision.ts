import type { EntityManager } from "@mikro-orm/postgresql";
import type { CallerInput } from "../../access/index.js";
import { findBranchMergedInto } from "../store/branch-rows.js";
import type { FileRecord, ReusableRecord } from "../domain/tree/model.js";
import { pageListing, type PageListing } from "./list-pages.js";
import { openContent, type ContentRefInput } from "./shared/open-content.js";
import type { RevisionDeps } from "../../deps.js";

export interface RevisionContent extends PageListing {
  files: FileRecord[];
  reusables: ReusableRecord[];
  /** For a merge revision, the change request it merged (GitBook's `mergedFrom`). */
  mergedChangeRequestId: string | null;
}

/** A revision with its page tree (bodies included), files and reusable contents. */
export async function getRevision(
  em: EntityManager,
  input: { caller: CallerInput | undefined; ref: ContentRefInput | undefined },
  deps: RevisionDeps,
): Promise<RevisionContent> {
  const opened = await openContent(em, deps, input);
  const [listing, files, reusables] = await Promise.all([pageListing(opened), opened.view.allFiles(), opened.view.allReusables()]);
  const mergedChangeRequestId = listing.revision.type === "merge" ? await findBranchMergedInto(em, listing.revision.spaceId, listing.revision.id) : null;
  return { ...listing, files, reusables, mergedChangeRequestId };
}
