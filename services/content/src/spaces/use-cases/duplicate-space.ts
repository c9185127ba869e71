import { recordEvent } from "@imprint/runtime";
import type { EntityManager } from "@mikro-orm/postgresql";
import { requireCaller, spaceLevel, spacePermissions, type CallerInput } from "../../access/index.js";
import { requireSpaceAccess } from "./shared/access.js";
import { Space, SPACE_TITLE_MAX } from "../domain/space.js";
import { spaceDuplicated } from "../../events.js";
import { requireCreateUnder } from "../store/parent.js";
import { lockSiblings, resolvePosition } from "../store/placement.js";
import type { SpaceView } from "../store/views.js";
import type { SpaceDeps } from "../../deps.js";

export interface DuplicateSpaceInput {
  caller: CallerInput | undefined;
  spaceId: string;
}

const COPY_SUFFIX = " (copy)";

/** "<title> (copy)", shortening the title so the result stays within the limit. */
function copyTitle(title: string): string {
  const characters = [...title];
  const room = SPACE_TITLE_MAX - COPY_SUFFIX.length;
  return (characters.length > room ? characters.slice(0, room).join("").trimEnd() : title) + COPY_SUFFIX;
}

/**
 * Copies a space right after the original: same settings, and the original's current content as
 * the copy's first revision (the revision store shares every page and file row; no body is
 * copied). Needs to view the space and the create level where it lives.
 */
export async function duplicateSpace(em: EntityManager, input: DuplicateSpaceInput, deps: SpaceDeps): Promise<SpaceView> {
  const caller = requireCaller(input.caller);
  const view = await deps.unitOfWork.run(em, async (tx) => {
    const { space: original, membership } = await requireSpaceAccess(tx, deps, { caller, spaceId: input.spaceId, need: "view" });
    const parentId = original.parentId ?? null;
    await requireCreateUnder(tx, membership, original.organizationId, parentId);
    await lockSiblings(tx, original.organizationId, parentId);
    const now = deps.clock();
    const copy = tx.create(Space, {
      organizationId: original.organizationId,
      parentId,
      title: copyTitle(original.title),
      emoji: original.emoji,
      visibility: original.visibility,
      editMode: original.editMode,
      language: original.language ?? null,
      defaultLevel: original.defaultLevel ?? null,
      mergeRules: original.mergeRules ?? null,
      position: await resolvePosition(tx, {
        organizationId: original.organizationId,
        parentId,
        position: { after: { kind: "space", id: original.id } },
        movingId: null,
      }),
      revisionId: null,
      createdAt: now,
      updatedAt: now,
      deletedAt: null,
    });
    await tx.flush();
    const { revisionId } = original.revisionId
      ? await deps.spaceContent.duplicateContent(tx, {
          fromSpaceId: original.id,
          fromRevisionId: original.revisionId,
          toSpaceId: copy.id,
          toOrganizationId: original.organizationId,
          clock: deps.clock,
          actor: caller,
        })
      : await deps.spaceContent.createInitialRevision(tx, { spaceId: copy.id, organizationId: original.organizationId, actor: caller, clock: deps.clock });
    copy.revisionId = revisionId;
    recordEvent(tx, spaceDuplicated, {
      organizationId: original.organizationId,
      actor: caller,
      payload: { spaceId: copy.id, fromSpaceId: original.id, title: copy.title, parentId, revisionId: copy.revisionId },
    });
    return { space: copy, permissions: spacePermissions(await spaceLevel(tx, membership, copy), copy) };
  });
  return view;
}
