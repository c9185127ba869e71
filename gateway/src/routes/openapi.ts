import type { Caller } from "@imprint/proto/common/v1";
import { z } from "zod";
import { openApiSpecLocation, toRestOpenApiSpec, toRestOpenApiSpecContent, toRestOpenApiSpecVersion } from "../mappers/openapi.js";
import { pageQuerySchema, toPageRequest, toPagedList } from "../pagination.js";
import { created, defineRoute, noContent, ok, type Route } from "../route.js";
import { pathId } from "../validation.js";
import type { RouteDeps } from "./deps.js";

const organizationParams = z.object({ organizationId: pathId() });
const specParams = z.object({ organizationId: pathId(), specSlug: z.string().min(1).max(128) });

/**
 * OpenAPISpecSource: only `{url}` is served (interface.md); the slug's rules (at most 100
 * characters, its pattern) and the URL's rules
 * (http(s), no credentials, at most 2048 characters) are the content service's.
 */
const sourceShape = z.object({ url: z.string() });
export const createOpenApiSpecBody = z.object({ slug: z.string(), source: sourceShape });
export const putOpenApiSpecBody = z.object({ source: sourceShape });
/** updateOpenAPISpecBySlug: `visibility` is required (GitBook's body has nothing else). */
export const updateOpenApiSpecBody = z.object({ visibility: z.enum(["private", "public"]) });
const versionParams = specParams.extend({ versionId: pathId() });

export function openApiRoutes({ upstreams, urls }: RouteDeps): Route[] {
  const specs = upstreams.content.openapi;
  return [
    // listOpenAPISpecs
    defineRoute({
      method: "GET",
      path: "/v1/orgs/:organizationId/openapi",
      params: organizationParams,
      query: pageQuerySchema,
      handler: async ({ params, query, principal, cursors }) => {
        const response = await specs.listOpenApiSpecs({ caller: principal.caller, organizationId: params.organizationId, page: toPageRequest(query, cursors) });
        return ok(
          toPagedList(
            response.specs.map((spec) => toRestOpenApiSpec(spec, urls)),
            response.page,
            cursors,
          ),
        );
      },
    }),

    // createOpenAPISpec: 201; processing happens in the background (processingState "pending").
    defineRoute({
      method: "POST",
      path: "/v1/orgs/:organizationId/openapi",
      params: organizationParams,
      body: createOpenApiSpecBody,
      handler: async ({ params, body, principal }) => {
        const response = await specs.createOpenApiSpec({
          caller: principal.caller,
          organizationId: params.organizationId,
          slug: body.slug,
          sourceUrl: body.source.url,
        });
        const spec = toRestOpenApiSpec(response.spec, urls);
        return created(spec, openApiSpecLocation(urls, params.organizationId, spec.slug));
      },
    }),

    // getOpenAPISpecBySlug
    defineRoute({
      method: "GET",
      path: "/v1/orgs/:organizationId/openapi/:specSlug",
      params: specParams,
      handler: async ({ params, principal }) => {
        const response = await specs.getOpenApiSpec({ caller: principal.caller, organizationId: params.organizationId, slug: params.specSlug });
        return ok(toRestOpenApiSpec(response.spec, urls));
      },
    }),

    // createOrUpdateOpenAPISpecBySlug: 201 when the slug was free, 200 when it re-sourced an existing one.
    defineRoute({
      method: "PUT",
      path: "/v1/orgs/:organizationId/openapi/:specSlug",
      params: specParams,
      body: putOpenApiSpecBody,
      handler: async ({ params, body, principal }) => {
        const response = await specs.putOpenApiSpec({
          caller: principal.caller,
          organizationId: params.organizationId,
          slug: params.specSlug,
          sourceUrl: body.source.url,
        });
        const spec = toRestOpenApiSpec(response.spec, urls);
        return response.created ? created(spec, openApiSpecLocation(urls, params.organizationId, spec.slug)) : ok(spec);
      },
    }),

    // deleteOpenAPISpecBySlug: 204 whether or not it existed.
    defineRoute({
      method: "DELETE",
      path: "/v1/orgs/:organizationId/openapi/:specSlug",
      params: specParams,
      handler: async ({ params, principal }) => {
        await specs.deleteOpenApiSpec({ caller: principal.caller, organizationId: params.organizationId, slug: params.specSlug });
        return noContent();
      },
    }),

    // updateOpenAPISpecBySlug: the visibility; the source is not processed again.
    defineRoute({
      method: "PATCH",
      path: "/v1/orgs/:organizationId/openapi/:specSlug",
      params: specParams,
      body: updateOpenApiSpecBody,
      handler: async ({ params, body, principal }) => {
        const response = await specs.updateOpenApiSpec({
          caller: principal.caller,
          organizationId: params.organizationId,
          slug: params.specSlug,
          updateMask: ["visibility"],
          visibility: body.visibility,
        });
        return ok(toRestOpenApiSpec(response.spec, urls));
      },
    }),

    // listOpenAPISpecVersions: newest first.
    defineRoute({
      method: "GET",
      path: "/v1/orgs/:organizationId/openapi/:specSlug/versions",
      params: specParams,
      query: pageQuerySchema,
      handler: async ({ params, query, principal, cursors }) => {
        const response = await specs.listOpenApiSpecVersions({
          caller: principal.caller,
          organizationId: params.organizationId,
          slug: params.specSlug,
          page: toPageRequest(query, cursors),
        });
        return ok(
          toPagedList(
            response.versions.map((version) => toRestOpenApiSpecVersion(version, urls, params.organizationId, params.specSlug)),
            response.page,
            cursors,
          ),
        );
      },
    }),

    // getLatestOpenAPISpecVersion (registered before getOpenAPISpecVersionById: "latest" is no id).
    defineRoute({
      method: "GET",
      path: "/v1/orgs/:organizationId/openapi/:specSlug/versions/latest",
      params: specParams,
      handler: async ({ params, principal }) => {
        const response = await specs.getOpenApiSpecVersion({ ...versionRequest(principal.caller, params, ""), includeContent: false });
        return ok(toRestOpenApiSpecVersion(response.version, urls, params.organizationId, params.specSlug));
      },
    }),

    // getLatestOpenAPISpecVersionContent
    defineRoute({
      method: "GET",
      path: "/v1/orgs/:organizationId/openapi/:specSlug/versions/latest/content",
      params: specParams,
      handler: async ({ params, principal }) => {
        const response = await specs.getOpenApiSpecVersion({ ...versionRequest(principal.caller, params, ""), includeContent: true });
        return ok(toRestOpenApiSpecContent(response.version, response.spec, response.documentJson));
      },
    }),

    // getLatestOpenAPISpecVersionContentRaw: the text exactly as fetched.
    defineRoute({
      method: "GET",
      path: "/v1/orgs/:organizationId/openapi/:specSlug/versions/latest/content/raw",
      params: specParams,
      handler: async ({ params, principal }) => {
        const response = await specs.getOpenApiSpecVersion({ ...versionRequest(principal.caller, params, ""), includeContent: true });
        return ok({ text: response.rawText, format: response.version?.format === "yaml" ? "yaml" : "json" });
      },
    }),

    // getOpenAPISpecVersionById
    defineRoute({
      method: "GET",
      path: "/v1/orgs/:organizationId/openapi/:specSlug/versions/:versionId",
      params: versionParams,
      handler: async ({ params, principal }) => {
        const response = await specs.getOpenApiSpecVersion({ ...versionRequest(principal.caller, params, params.versionId), includeContent: false });
        return ok(toRestOpenApiSpecVersion(response.version, urls, params.organizationId, params.specSlug));
      },
    }),

    // getOpenAPISpecVersionContentById
    defineRoute({
      method: "GET",
      path: "/v1/orgs/:organizationId/openapi/:specSlug/versions/:versionId/content",
      params: versionParams,
      handler: async ({ params, principal }) => {
        const response = await specs.getOpenApiSpecVersion({ ...versionRequest(principal.caller, params, params.versionId), includeContent: true });
        return ok(toRestOpenApiSpecContent(response.version, response.spec, response.documentJson));
      },
    }),
  ];
}

/** A version read of the specification in the path; versionId "" is the latest. */
function versionRequest(caller: Caller | undefined, params: { organizationId: string; specSlug: string }, versionId: string) {
  return { caller, organizationId: params.organizationId, slug: params.specSlug, versionId };
}
