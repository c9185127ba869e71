import type { EntityManager, FilterQuery } from "@mikro-orm/postgresql";
import { findPage, isId, type Page, type PageRequestLike } from "@imprint/runtime";
import { OrganizationAccess, Space } from "../../spaces/index.js";
import { requireOrganizationMembership, type CallerInput } from "../../access/index.js";
import { ImportRun, type ImportRunStatus } from "../domain/import-run.js";
import type { UseCaseDeps } from "../../deps.js";

export interface ListImportRunsInput {
  caller: CallerInput | undefined;
  organizationId: string;
  /** Empty: every space. */
  spaceId: string;
  /** Empty: every target; otherwise the change request's id. */
  changeRequestId: string;
  /** Empty: every status. */
  statuses: readonly ImportRunStatus[];
  page: PageRequestLike | undefined;
}

/**
 * The organization's import runs whose target space the caller can view (guests: none), most
 * recent first, filtered by space, change request and statuses. An id of the wrong shape in a
 * filter matches nothing.
 */
export async function listImportRuns(em: EntityManager, input: ListImportRunsInput, deps: UseCaseDeps): Promise<Page<ImportRun>> {
  const membership = await requireOrganizationMembership(deps, input.organizationId, input.caller);
  const access = await OrganizationAccess.load(em, input.organizationId, membership);
  // Runs into deleted spaces are hidden as those spaces are (getImportRun answers not found for them).
  const visible = await em.find(Space, { $and: [{ organizationId: input.organizationId, deletedAt: null }, access.visibleFilter()] }, { fields: ["id"] });
  const conditions: FilterQuery<ImportRun>[] = [{ organizationId: input.organizationId }, { spaceId: { $in: visible.map((space) => space.id) } }];
  if (input.spaceId !== "") conditions.push({ spaceId: isId(input.spaceId) ? input.spaceId : { $in: [] } });
  if (input.changeRequestId !== "") conditions.push({ changeRequestId: isId(input.changeRequestId) ? input.changeRequestId : { $in: [] } });
  if (input.statuses.length > 0) conditions.push({ status: { $in: [...input.statuses] } });
  return findPage(em, ImportRun, { $and: conditions }, { fields: ["createdAt", "id"], direction: "desc", dateFields: ["createdAt"] }, input.page);
}
