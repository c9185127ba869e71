import type { EntityManager } from "@mikro-orm/postgresql";
import { AppError } from "@imprint/runtime";
import { requireCaller, requireSpaceAccess, type CallerInput, type SpaceAccess } from "../../access/index.js";
import type { RevisionHeader } from "../store/caches.js";
import { ContentView } from "../store/content-view.js";
import { findRevision } from "../store/revision-rows.js";
import { StoreSession } from "../store/session.js";
import type { RevisionDeps } from "./deps.js";
import { isRevisionId } from "./drafts.js";

/** Which content a read is about (the proto ContentRef). */
export interface ContentRefInput {
  spaceId: string;
  changeRequestId: string;
  revisionId: string;
}

export interface OpenedContent {
  access: SpaceAccess;
  revision: RevisionHeader;
  view: ContentView;
}

/**
 * The one entry point of every content read: checks that the caller may view the space, then
 * resolves the reference to a revision: the space's current one, a given committed revision of
 * the space, or a draft of the caller's. Change requests arrive with the next issue and will
 * resolve here too.
 */
export async function openContent(em: EntityManager, deps: RevisionDeps, input: { caller: CallerInput | undefined; ref: ContentRefInput | undefined }): Promise<OpenedContent> {
  const caller = requireCaller(input.caller);
  if (!input.ref) throw AppError.invalidArgument("ref: is required");
  const access = await requireSpaceAccess(em, deps, { caller, spaceId: input.ref.spaceId, need: "view" });
  if (input.ref.changeRequestId !== "") throw AppError.notFound("Change request");
  const revisionId = input.ref.revisionId || access.space.revisionId;
  const revision = revisionId && isRevisionId(revisionId) ? await findRevision(em, deps.caches, revisionId) : undefined;
  if (!revision || revision.spaceId !== access.space.id || (revision.status === "draft" && revision.createdBy !== caller.userId)) {
    throw AppError.notFound("Revision");
  }
  return { access, revision, view: new ContentView(new StoreSession(em, revision.storeId, deps.caches), revision.root, deps.caches) };
}
