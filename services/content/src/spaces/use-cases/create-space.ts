import { recordEvent } from "@imprint/runtime";
import type { EntityManager } from "@mikro-orm/postgresql";
import { requireOrganizationMembership, type CallerInput } from "../../access/index.js";
import { Space, type SpaceEditMode } from "../domain/space.js";
import { spaceCreated } from "../../events.js";
import { requireCreateUnder } from "../store/parent.js";
import { placeAtEnd } from "../store/placement.js";
import { validateEmoji, validateSpaceLanguage, validateSpaceTitle } from "../domain/validation.js";
import { spaceView, type SpaceView } from "../store/views.js";
import type { SpaceDeps } from "../../deps.js";

export interface CreateSpaceInput {
  caller: CallerInput | undefined;
  organizationId: string;
  title: string;
  emoji: string;
  /** Parent collection; null for the top level. */
  parentId: string | null;
  /** Defaults to live. */
  editMode: SpaceEditMode | undefined;
  /** A TranslationLanguage code; "" for none. */
  language: string;
}

/**
 * Creates a space at the end of its parent's items, with its first (empty) revision from the
 * revision store, in the same transaction. The creator needs the create level where the space goes.
 */
export async function createSpace(em: EntityManager, input: CreateSpaceInput, deps: SpaceDeps): Promise<SpaceView> {
  const title = validateSpaceTitle(input.title);
  const emoji = validateEmoji(input.emoji);
  const language = validateSpaceLanguage(input.language);
  const membership = await requireOrganizationMembership(deps, input.organizationId, input.caller);
  const caller = input.caller!;
  const view = await deps.unitOfWork.run(em, async (tx) => {
    await requireCreateUnder(tx, membership, input.organizationId, input.parentId);
    const position = await placeAtEnd(tx, input.organizationId, input.parentId);
    const now = deps.clock();
    const space = tx.create(Space, {
      organizationId: input.organizationId,
      parentId: input.parentId,
      title,
      emoji,
      visibility: "private",
      editMode: input.editMode ?? "live",
      language,
      defaultLevel: "inherit",
      position,
      revisionId: null,
      createdAt: now,
      updatedAt: now,
      deletedAt: null,
    });
    await tx.flush();
    const { revisionId } = await deps.spaceContent.createInitialRevision(tx, {
      spaceId: space.id,
      organizationId: input.organizationId,
      actor: caller,
      clock: deps.clock,
    });
    space.revisionId = revisionId;
    recordEvent(tx, spaceCreated, {
      organizationId: input.organizationId,
      actor: caller,
      payload: { spaceId: space.id, title, parentId: input.parentId, revisionId: space.revisionId },
    });
    return spaceView(tx, membership, space);
  });
  return view;
}
