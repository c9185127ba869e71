import type { EntityManager, FilterQuery } from "@mikro-orm/postgresql";
import { findPage, type Page, type PageRequestLike } from "@imprint/runtime";
import { collectionPermissions, requireOrganizationMembership, type CallerInput } from "../../access/index.js";
import { OrganizationAccess } from "./shared/access.js";
import { Collection } from "../domain/collection.js";
import type { CollectionView } from "../store/views.js";
import type { SpaceDeps } from "../../deps.js";

export interface ListCollectionsInput {
  caller: CallerInput | undefined;
  organizationId: string;
  page: PageRequestLike | undefined;
  /** Only the top level (GitBook's `nested=false`); otherwise collections at every depth. */
  topLevelOnly: boolean;
}

/** The organization's collections the caller can view, in sibling order (position, then id). */
export async function listCollections(em: EntityManager, input: ListCollectionsInput, deps: SpaceDeps): Promise<Page<CollectionView>> {
  const membership = await requireOrganizationMembership(deps, input.organizationId, input.caller);
  const access = await OrganizationAccess.load(em, input.organizationId, membership);
  const conditions: FilterQuery<Collection>[] = [{ organizationId: input.organizationId }];
  if (input.topLevelOnly) conditions.push({ parentId: null });
  if (!access.seesAll) conditions.push({ id: { $in: access.visibleCollectionIds() } });
  const page = await findPage(em, Collection, { $and: conditions }, { fields: ["position", "id"], direction: "asc" }, input.page);
  return {
    ...page,
    items: page.items.map((collection) => ({ collection, permissions: collectionPermissions(access.collectionLevel(collection.id)) })),
  };
}
