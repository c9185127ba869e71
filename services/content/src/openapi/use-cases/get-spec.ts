import type { EntityManager } from "@mikro-orm/postgresql";
import { AppError } from "@imprint/runtime";
import type { CallerInput } from "../../access/index.js";
import { findVisibleSpec, requireSpecsAccess } from "../store/access.js";
import { openApiSpecView, type OpenApiSpecView } from "../store/views.js";
import type { OpenApiDeps } from "../../deps.js";

export interface GetOpenApiSpecInput {
  caller: CallerInput | undefined;
  organizationId: string;
  slug: string;
}

export async function getOpenApiSpec(em: EntityManager, input: GetOpenApiSpecInput, deps: OpenApiDeps): Promise<OpenApiSpecView> {
  const access = await requireSpecsAccess(deps, input.organizationId, input.caller);
  const spec = await findVisibleSpec(em, access, input);
  if (!spec) throw AppError.notFound("OpenAPI specification");
  return openApiSpecView(em, spec, access.permissions);
}
