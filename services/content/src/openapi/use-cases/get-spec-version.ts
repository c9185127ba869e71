import type { EntityManager } from "@mikro-orm/postgresql";
import { AppError, isId } from "@imprint/runtime";
import type { CallerInput } from "../../access/index.js";
import { OpenApiSpecVersion } from "../domain/entities.js";
import { findVisibleSpec, requireSpecsAccess } from "../store/access.js";
import { openApiSpecView, VERSION_SUMMARY_FIELDS, type OpenApiSpecView, type OpenApiVersionSummary } from "../store/views.js";
import type { OpenApiDeps } from "../../deps.js";

export interface GetOpenApiSpecVersionInput {
  caller: CallerInput | undefined;
  organizationId: string;
  slug: string;
  /** "" for the latest kept version. */
  versionId: string;
  /** Also read the version's text and parsed document. */
  includeContent: boolean;
}

export interface OpenApiSpecVersionView {
  spec: OpenApiSpecView;
  version: OpenApiVersionSummary;
  content: { rawText: string; document: Record<string, unknown> } | null;
}

/**
 * One kept version of a specification the caller can view (its latest when none is named), with
 * its text and document when asked. A version of another specification, a malformed id and a
 * specification with no kept version yet all answer "OpenAPI specification version not found".
 */
export async function getOpenApiSpecVersion(em: EntityManager, input: GetOpenApiSpecVersionInput, deps: OpenApiDeps): Promise<OpenApiSpecVersionView> {
  const access = await requireSpecsAccess(deps, input.organizationId, input.caller);
  const spec = await findVisibleSpec(em, access, input);
  if (!spec) throw AppError.notFound("OpenAPI specification");
  const versionId = input.versionId === "" ? spec.lastVersionId : input.versionId;
  const fields = input.includeContent ? [...VERSION_SUMMARY_FIELDS, "rawText", "document"] : [...VERSION_SUMMARY_FIELDS];
  const version = versionId && isId(versionId) ? await em.findOne(OpenApiSpecVersion, { id: versionId, specId: spec.id }, { fields: fields as never }) : null;
  if (!version) throw AppError.notFound("OpenAPI specification version");
  return {
    spec: await openApiSpecView(em, spec, access.permissions),
    version,
    content: input.includeContent ? { rawText: version.rawText, document: version.document } : null,
  };
}
