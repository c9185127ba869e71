import type { EntityManager } from "@mikro-orm/postgresql";
import { AppError, findPage, type Page, type PageRequestLike } from "@imprint/runtime";
import type { CallerInput } from "../../access/index.js";
import { OpenApiSpecVersion } from "../domain/entities.js";
import { findVisibleSpec, requireSpecsAccess } from "../store/access.js";
import { VERSION_SUMMARY_FIELDS, type OpenApiVersionSummary } from "../store/views.js";
import type { OpenApiDeps } from "../../deps.js";

export interface ListOpenApiSpecVersionsInput {
  caller: CallerInput | undefined;
  organizationId: string;
  slug: string;
  page: PageRequestLike | undefined;
}

/** GitBook's listOpenAPISpecVersions: the kept versions of a specification the caller can view, newest first (without their text). */
export async function listOpenApiSpecVersions(em: EntityManager, input: ListOpenApiSpecVersionsInput, deps: OpenApiDeps): Promise<Page<OpenApiVersionSummary>> {
  const access = await requireSpecsAccess(deps, input.organizationId, input.caller);
  const spec = await findVisibleSpec(em, access, input);
  if (!spec) throw AppError.notFound("OpenAPI specification");
  return findPage(em, OpenApiSpecVersion, { specId: spec.id }, { fields: ["createdAt", "id"], direction: "desc", dateFields: ["createdAt"] }, input.page, {
    fields: VERSION_SUMMARY_FIELDS,
  });
}
