import type { EntityManager } from "@mikro-orm/postgresql";
import type { Page, PageRequestLike } from "@imprint/runtime";
import type { CallerInput } from "../../access/index.js";
import { OrganizationAccess, requireCollectionAccess } from "./shared/access.js";
import { pageOfVisibleSpaces } from "./list-spaces.js";
import type { SpaceView } from "../store/views.js";
import type { SpaceDeps } from "../../deps.js";

export interface ListCollectionSpacesInput {
  caller: CallerInput | undefined;
  collectionId: string;
  page: PageRequestLike | undefined;
}

/** The spaces directly in a collection the caller can view, in sibling order. */
export async function listCollectionSpaces(em: EntityManager, input: ListCollectionSpacesInput, deps: SpaceDeps): Promise<Page<SpaceView>> {
  const { collection, membership } = await requireCollectionAccess(em, deps, { caller: input.caller, collectionId: input.collectionId, need: "view" });
  const access = await OrganizationAccess.load(em, collection.organizationId, membership);
  return pageOfVisibleSpaces(em, access, { parentId: collection.id }, input.page);
}
