import { LockMode, type EntityClass, type EntityManager, type FilterQuery, type ObjectQuery } from "@mikro-orm/postgresql";
import { isId } from "../caller.js";
import { AppError } from "../errors.js";

export interface FindOwnedOptions {
  /**
   * Take the row FOR UPDATE (inside a transaction): it stays locked until the commit, so two
   * changes of one row at once (the same request sent twice) run one after the other, the second
   * seeing what the first did.
   */
  lock?: boolean;
  /** Read the row again even when the EntityManager already holds it (a fresh look under the lock). */
  refresh?: boolean;
  /** What the not_found message calls the row (default from the entity's name: `SiteSection` → "Site section"). */
  name?: string;
}

/**
 * The row of `entity` with this id that belongs to `owner` (a filter naming its owner, e.g.
 * `{ siteId: site.id }` or `{ organization: organizationId }`; `{}` for a row reached by id
 * alone), else null: an id that is no uuid, a missing row and another owner's row look alike.
 */
export async function findOwnedOrNull<Entity extends object>(
  em: EntityManager,
  entity: EntityClass<Entity>,
  owner: ObjectQuery<Entity>,
  id: string,
  options: Omit<FindOwnedOptions, "name"> = {},
): Promise<Entity | null> {
  if (!isId(id)) return null;
  return findByKey(em, entity, { ...owner, id } as FilterQuery<NoInfer<Entity>>, options);
}

/**
 * The row of `entity` that `key` names (a natural key such as an organization's slug or an
 * integration's name, or owner and id), else null; `lock` and `refresh` as {@link findOwned}.
 */
export async function findByKey<Entity extends object>(
  em: EntityManager,
  entity: EntityClass<Entity>,
  key: FilterQuery<NoInfer<Entity>>,
  options: Omit<FindOwnedOptions, "name"> = {},
): Promise<Entity | null> {
  return em.findOne(entity, key, {
    ...(options.lock ? { lockMode: LockMode.PESSIMISTIC_WRITE } : {}),
    ...(options.refresh ? { refresh: true } : {}),
  });
}

/** {@link findOwnedOrNull}, answering not_found ("Site section not found") when there is no such row of the owner. */
export async function findOwned<Entity extends object>(
  em: EntityManager,
  entity: EntityClass<Entity>,
  owner: ObjectQuery<Entity>,
  id: string,
  options: FindOwnedOptions = {},
): Promise<Entity> {
  const found = await findOwnedOrNull(em, entity, owner, id, options);
  if (!found) throw AppError.notFound(options.name ?? readableName(entity.name));
  return found;
}

/** `SiteExternalLink` → "Site external link". */
function readableName(className: string): string {
  const words = className.replace(/([a-z0-9])([A-Z])/g, "$1 $2").toLowerCase();
  return words.charAt(0).toUpperCase() + words.slice(1);
}
