import type { EntityManager } from "@mikro-orm/postgresql";
import { findPage, type Page, type PageRequestLike } from "@imprint/runtime";
import type { CallerInput } from "../../access/index.js";
import { requireSpecsAccess } from "../store/access.js";
import { OpenApiSpec } from "../domain/entities.js";
import { openApiSpecViews, type OpenApiSpecView } from "../store/views.js";
import type { OpenApiDeps } from "../../deps.js";

export interface ListOpenApiSpecsInput {
  caller: CallerInput | undefined;
  organizationId: string;
  page: PageRequestLike | undefined;
}

/** The organization's specifications by slug; guests see none. */
export async function listOpenApiSpecs(em: EntityManager, input: ListOpenApiSpecsInput, deps: OpenApiDeps): Promise<Page<OpenApiSpecView>> {
  const access = await requireSpecsAccess(deps, input.organizationId, input.caller);
  const where = access.permissions.view ? { organizationId: input.organizationId } : { id: { $in: [] } };
  const page = await findPage(em, OpenApiSpec, where, { fields: ["slug"], direction: "asc" }, input.page);
  return { ...page, items: await openApiSpecViews(em, page.items, access.permissions) };
}
