import type { EntityManager } from "@mikro-orm/postgresql";
import { AppError } from "@imprint/runtime";
import { requireCaller, type CallerInput } from "../../../access/index.js";
import { requireSpaceAccess, requireSpaceReadAccess, type Space, type SpaceAccess, type SpaceSummary } from "../../../spaces/index.js";
import { requireBranch, type BranchRecord } from "../../store/branch-rows.js";
import type { RevisionHeader } from "../../domain/tree/caches.js";
import { ContentView } from "../../domain/tree/content-view.js";
import { findRevision } from "../../store/revision-rows.js";
import { StoreSession } from "../../store/session.js";
import { isRevisionId } from "./drafts.js";
import type { RevisionDeps } from "../../../deps.js";

/** Which content a read is about (the proto ContentRef). */
export interface ContentRefInput {
  spaceId: string;
  changeRequestId: string;
  revisionId: string;
}

export interface OpenedContent<S extends SpaceSummary = SpaceSummary> {
  access: SpaceAccess<S>;
  revision: RevisionHeader;
  view: ContentView;
  /** The change request's branch when the reference named one. */
  branch: BranchRecord | null;
}

/**
 * The one entry point of every content read: checks that the caller may view the space, then
 * resolves the reference to a revision: the space's current one, a given committed revision of
 * the space, or a draft of the caller's. With a change request (its id or its number in the
 * space), the branch's head instead of the space's; a revision given with it must be the head or
 * a revision made on that branch (the caller's drafts on it included).
 */
export function openContent(em: EntityManager, deps: RevisionDeps, input: ContentReadInput): Promise<OpenedContent> {
  return open(em, deps, input, requireSpaceReadAccess);
}

/** {@link openContent} with the space's entity, for answers that carry the whole space object. */
export function openContentWithSpace(em: EntityManager, deps: RevisionDeps, input: ContentReadInput): Promise<OpenedContent<Space>> {
  return open(em, deps, input, requireSpaceAccess);
}

type ContentReadInput = { caller: CallerInput | undefined; ref: ContentRefInput | undefined };

async function open<S extends SpaceSummary>(
  em: EntityManager,
  deps: RevisionDeps,
  input: ContentReadInput,
  requireAccess: (em: EntityManager, deps: RevisionDeps, input: { caller: CallerInput; spaceId: string; need: "view" }) => Promise<SpaceAccess<S>>,
): Promise<OpenedContent<S>> {
  const caller = requireCaller(input.caller);
  const { ref } = input;
  if (!ref) throw AppError.invalidArgument("ref: is required");
  const access = await requireAccess(em, deps, { caller, spaceId: ref.spaceId, need: "view" });
  const branch = ref.changeRequestId !== "" ? await requireBranch(em, access.space.id, ref.changeRequestId) : null;
  const revisionId = ref.revisionId || (branch ? branch.headRevisionId : access.space.revisionId);
  const revision = revisionId && isRevisionId(revisionId) ? await findRevision(em, deps.caches, revisionId) : undefined;
  if (!revision || revision.spaceId !== access.space.id || (revision.status === "draft" && revision.createdBy !== caller.userId)) {
    throw AppError.notFound("Revision");
  }
  if (branch && revision.id !== branch.headRevisionId && revision.branchId !== branch.id) throw AppError.notFound("Revision");
  return { access, revision, branch, view: new ContentView(new StoreSession(em, revision.storeId, deps.caches), revision.root, deps.caches) };
}

/**
 * Whether the caller already holds what a read of `opened` answers: it names the revision the
 * reference resolved to, and that revision is committed (immutable; a draft changes under its id).
 */
export function holdsRevision(opened: OpenedContent, knownRevisionId: string | undefined): boolean {
  return knownRevisionId !== undefined && knownRevisionId === opened.revision.id && opened.revision.status === "committed";
}
