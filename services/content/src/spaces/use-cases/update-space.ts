import type { EntityManager } from "@mikro-orm/postgresql";
import { AppError, parseUpdateMask, recordEvent } from "@imprint/runtime";
import { spaceLevel, spacePermissions, type CallerInput, type DefaultLevel } from "../../access/index.js";
import { requireSpaceAccess } from "./shared/access.js";
import { validateSpaceMergeRules, type SpaceMergeRules } from "../domain/merge-rules.js";
import type { SpaceEditMode, SpaceVisibility } from "../domain/space.js";
import { spaceUpdated } from "../../events.js";
import { validateEmoji, validateSpaceLanguage, validateSpaceTitle } from "../domain/validation.js";
import type { SpaceView } from "../store/views.js";
import type { SpaceDeps } from "../../deps.js";

const UPDATABLE_FIELDS = ["title", "emoji", "edit_mode", "default_level", "visibility", "merge_rules", "language"] as const;

export interface UpdateSpaceInput {
  caller: CallerInput | undefined;
  spaceId: string;
  /** Field paths, snake_case or camelCase. */
  updateMask: string[] | undefined;
  title: string;
  emoji: string;
  /** undefined = not a valid edit mode. */
  editMode: SpaceEditMode | undefined;
  /** undefined = not a valid level. */
  defaultLevel: DefaultLevel | undefined;
  /** undefined = not a valid visibility. */
  visibility: SpaceVisibility | undefined;
  /** Type "inherit", "none" or "rules", and the rules (validateSpaceMergeRules); required when the mask names merge_rules. */
  mergeRules: { type: string; rules: { rule: string; userIds: string[] }[] } | undefined;
  /** A TranslationLanguage code; "" removes the language. */
  language: string;
}

interface Changes {
  title?: string;
  emoji?: string;
  editMode?: SpaceEditMode;
  defaultLevel?: DefaultLevel;
  visibility?: SpaceVisibility;
  mergeRules?: SpaceMergeRules | null;
  language?: string | null;
}

function validateChanges(input: UpdateSpaceInput): Changes {
  const fields = parseUpdateMask(input.updateMask, UPDATABLE_FIELDS);
  const changes: Changes = {};
  if (fields.has("title")) changes.title = validateSpaceTitle(input.title);
  if (fields.has("emoji")) changes.emoji = validateEmoji(input.emoji);
  if (fields.has("edit_mode")) {
    if (!input.editMode) throw AppError.invalidArgument("editMode: must be live or locked");
    changes.editMode = input.editMode;
  }
  if (fields.has("default_level")) {
    if (input.defaultLevel === undefined)
      throw AppError.invalidArgument("defaultLevel: must be a role (admin, create, review, edit, comment, read), inherit or null");
    changes.defaultLevel = input.defaultLevel;
  }
  if (fields.has("visibility")) {
    if (!input.visibility) throw AppError.invalidArgument("visibility: must be public, unlisted, share-link, visitor-auth, in-collection or private");
    changes.visibility = input.visibility;
  }
  if (fields.has("language")) changes.language = validateSpaceLanguage(input.language);
  if (fields.has("merge_rules")) {
    if (!input.mergeRules) throw AppError.invalidArgument("mergeRules: required when the update mask names it");
    changes.mergeRules = validateSpaceMergeRules(input.mergeRules.type, input.mergeRules.rules);
  }
  return changes;
}

/** Scalars by value; merge rules (JSON) by their JSON text, which validateSpaceMergeRules writes in one order. */
function sameValue(current: unknown, next: unknown): boolean {
  return typeof next === "object" && next !== null ? JSON.stringify(current ?? null) === JSON.stringify(next) : current === next;
}

/** Changes a space's settings; needs the admin level on it. Records the fields that really changed. */
export async function updateSpace(em: EntityManager, input: UpdateSpaceInput, deps: SpaceDeps): Promise<SpaceView> {
  const changes = validateChanges(input);
  const result = await deps.unitOfWork.run(em, async (tx) => {
    const { space, membership } = await requireSpaceAccess(tx, deps, { caller: input.caller, spaceId: input.spaceId, need: "admin", lock: true });
    if (changes.visibility === "in-collection" && !space.parentId) {
      throw AppError.invalidArgument("visibility: in-collection is only for spaces in a collection");
    }
    const changed: Record<string, { from: unknown; to: unknown }> = {};
    for (const [field, value] of Object.entries(changes) as [keyof Changes, unknown][]) {
      if (sameValue(space[field], value)) continue;
      changed[field] = { from: space[field], to: value };
      Object.assign(space, { [field]: value });
    }
    if (Object.keys(changed).length > 0) {
      space.updatedAt = deps.clock();
      recordEvent(tx, spaceUpdated, {
        organizationId: space.organizationId,
        actor: input.caller!,
        payload: { spaceId: space.id, changedFields: Object.keys(changed), changes: changed },
      });
    }
    const view: SpaceView = { space, permissions: spacePermissions(await spaceLevel(tx, membership, space), space) };
    return { view, changed: Object.keys(changed).length > 0 };
  });
  return result.view;
}
