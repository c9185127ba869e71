import type { EntityManager } from "@mikro-orm/postgresql";
import type { CallerInput } from "../../access/index.js";
import type { FileRecord, ReusableRecord } from "../domain/store/model.js";
import { pageListing, type PageListing } from "./list-pages.js";
import { openContent, type ContentRefInput } from "./shared/open-content.js";
import type { RevisionDeps } from "../../deps.js";

export interface RevisionContent extends PageListing {
  files: FileRecord[];
  reusables: ReusableRecord[];
}

/** A revision with its page tree (bodies included), files and reusable contents. */
export async function getRevision(em: EntityManager, input: { caller: CallerInput | undefined; ref: ContentRefInput | undefined }, deps: RevisionDeps): Promise<RevisionContent> {
  const opened = await openContent(em, deps, input);
  const [listing, files, reusables] = await Promise.all([pageListing(opened), opened.view.allFiles(), opened.view.allReusables()]);
  return { ...listing, files, reusables };
}
