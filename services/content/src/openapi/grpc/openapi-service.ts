import { OpenAPISpecServiceService } from "@imprint/proto/content/v1/openapi";
import { forkEm, pageInfo, pageRequest, type AsyncImplementation } from "@imprint/runtime";
import { createOpenApiSpec } from "../use-cases/create-spec.js";
import { deleteOpenApiSpec } from "../use-cases/delete-spec.js";
import { getOpenApiSpec } from "../use-cases/get-spec.js";
import { listOpenApiSpecs } from "../use-cases/list-specs.js";
import { getOpenApiSpecVersion } from "../use-cases/get-spec-version.js";
import { listOpenApiSpecVersions } from "../use-cases/list-spec-versions.js";
import { putOpenApiSpec } from "../use-cases/put-spec.js";
import { updateOpenApiSpec } from "../use-cases/update-spec.js";
import { openApiSpecToProto, versionToProto } from "./mappers.js";
import type { ContentDeps, OpenApiDeps } from "../../deps.js";

export const OPENAPI_SPEC_SERVICE_NAME = "imprint.content.v1.OpenAPISpecService";

/** Thin transport: one use case per call on a fresh EntityManager, its result mapped to the response. */
export function openApiSpecServiceImplementation(deps: ContentDeps & Pick<OpenApiDeps, "fetchPolicy">): AsyncImplementation<typeof OpenAPISpecServiceService> {
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

    updateOpenApiSpec: async (request) => {
      const view = await updateOpenApiSpec(
        em(),
        {
          caller: request.caller,
          organizationId: request.organizationId,
          slug: request.slug,
          updateMask: request.updateMask,
          visibility: request.visibility,
        },
        deps,
      );
      return { spec: openApiSpecToProto(view) };
    },

    listOpenApiSpecVersions: async (request) => {
      const page = await listOpenApiSpecVersions(
        em(),
        { caller: request.caller, organizationId: request.organizationId, slug: request.slug, page: pageRequest(request.page) },
        deps,
      );
      return { versions: page.items.map(versionToProto), page: pageInfo(page) };
    },

    getOpenApiSpecVersion: async (request) => {
      const view = await getOpenApiSpecVersion(
        em(),
        {
          caller: request.caller,
          organizationId: request.organizationId,
          slug: request.slug,
          versionId: request.versionId,
          includeContent: request.includeContent,
        },
        deps,
      );
      return {
        version: versionToProto(view.version),
        spec: openApiSpecToProto(view.spec),
        rawText: view.content?.rawText ?? "",
        documentJson: view.content ? JSON.stringify(view.content.document) : "",
      };
    },

    deleteOpenApiSpec: async (request) => {
      await deleteOpenApiSpec(em(), { caller: request.caller, organizationId: request.organizationId, slug: request.slug }, deps);
      return {};
    },
  };
}
