import type { EntityManager } from "@mikro-orm/postgresql";
import { AppError, parseUpdateMask, recordEvent } from "@imprint/runtime";
import { collectionLevel, collectionPermissions, type CallerInput, type DefaultLevel } from "../../access/index.js";
import { requireCollectionAccess } from "./shared/access.js";
import { collectionUpdated } from "../../events.js";
import { validateCollectionDescription, validateCollectionTitle } from "../domain/validation.js";
import type { CollectionView } from "../store/views.js";
import type { SpaceDeps } from "../../deps.js";

const UPDATABLE_FIELDS = ["title", "description", "default_level"] as const;

export interface UpdateCollectionInput {
  caller: CallerInput | undefined;
  collectionId: string;
  /** Field paths, snake_case or camelCase. */
  updateMask: string[] | undefined;
  title: string;
  /** Empty clears it. */
  description: string;
  /** undefined = not a valid level. */
  defaultLevel: DefaultLevel | undefined;
}

interface Changes {
  title?: string;
  description?: string | null;
  defaultLevel?: DefaultLevel;
}

function validateChanges(input: UpdateCollectionInput): Changes {
  const fields = parseUpdateMask(input.updateMask, UPDATABLE_FIELDS);
  const changes: Changes = {};
  if (fields.has("title")) changes.title = validateCollectionTitle(input.title);
  if (fields.has("description")) changes.description = validateCollectionDescription(input.description);
  if (fields.has("default_level")) {
    if (input.defaultLevel === undefined)
      throw AppError.invalidArgument("defaultLevel: must be a role (admin, create, review, edit, comment, read), inherit or null");
    changes.defaultLevel = input.defaultLevel;
  }
  return changes;
}

/** Changes a collection's title, description or default level; needs the admin level on it. */
export async function updateCollection(em: EntityManager, input: UpdateCollectionInput, deps: SpaceDeps): Promise<CollectionView> {
  const changes = validateChanges(input);
  const result = await deps.unitOfWork.run(em, async (tx) => {
    const { collection, membership } = await requireCollectionAccess(tx, deps, {
      caller: input.caller,
      collectionId: input.collectionId,
      need: "admin",
      lock: true,
    });
    const changed: Record<string, { from: unknown; to: unknown }> = {};
    for (const [field, value] of Object.entries(changes) as [keyof Changes, unknown][]) {
      if ((collection[field] ?? null) === value) continue;
      changed[field] = { from: collection[field] ?? null, to: value };
      Object.assign(collection, { [field]: value });
    }
    if (Object.keys(changed).length > 0) {
      collection.updatedAt = deps.clock();
      recordEvent(tx, collectionUpdated, {
        organizationId: collection.organizationId,
        actor: input.caller!,
        payload: { collectionId: collection.id, changedFields: Object.keys(changed), changes: changed },
      });
    }
    const view: CollectionView = { collection, permissions: collectionPermissions(await collectionLevel(tx, membership, collection)) };
    return { view, changed: Object.keys(changed).length > 0 };
  });
  return result.view;
}
