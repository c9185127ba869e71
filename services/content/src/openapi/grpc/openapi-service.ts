import { OpenAPISpecServiceService } from "@imprint/proto/content/v1/openapi";
import { forkEm, pageInfo, pageRequest, type AsyncImplementation } from "@imprint/runtime";
import { createOpenApiSpec } from "../use-cases/create-spec.js";
import { deleteOpenApiSpec } from "../use-cases/delete-spec.js";
import { getOpenApiSpec } from "../use-cases/get-spec.js";
import { listOpenApiSpecs } from "../use-cases/list-specs.js";
import { putOpenApiSpec } from "../use-cases/put-spec.js";
import { openApiSpecToProto } from "./mappers.js";
import type { ContentDeps } from "../../deps.js";

export const OPENAPI_SPEC_SERVICE_NAME = "imprint.content.v1.OpenAPISpecService";

/** Thin transport: one use case per call on a fresh EntityManager, its result mapped to the response. */
export function openApiSpecServiceImplementation(deps: ContentDeps): AsyncImplementation<typeof OpenAPISpecServiceService> {
  const em = () => forkEm(deps.orm);
  return {
    listOpenApiSpecs: async (request) => {
      const page = await listOpenApiSpecs(em(), { caller: request.caller, organizationId: request.organizationId, page: pageRequest(request.page) }, deps);
      return { specs: page.items.map(openApiSpecToProto), page: pageInfo(page) };
    },

    createOpenApiSpec: async (request) => {
      const view = await createOpenApiSpec(
        em(),
        { caller: request.caller, organizationId: request.organizationId, slug: request.slug, sourceUrl: request.sourceUrl },
        deps,
      );
      return { spec: openApiSpecToProto(view) };
    },

    getOpenApiSpec: async (request) => {
      const view = await getOpenApiSpec(em(), { caller: request.caller, organizationId: request.organizationId, slug: request.slug }, deps);
      return { spec: openApiSpecToProto(view) };
    },

    putOpenApiSpec: async (request) => {
      const { view, created } = await putOpenApiSpec(
        em(),
        { caller: request.caller, organizationId: request.organizationId, slug: request.slug, sourceUrl: request.sourceUrl },
        deps,
      );
      return { spec: openApiSpecToProto(view), created };
    },

    deleteOpenApiSpec: async (request) => {
      await deleteOpenApiSpec(em(), { caller: request.caller, organizationId: request.organizationId, slug: request.slug }, deps);
      return {};
    },
  };
}
