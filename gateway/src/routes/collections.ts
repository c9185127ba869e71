import { ContentLevel } from "@imprint/proto/content/v1/spaces";
import { z } from "zod";
import { collectionLocation, toRestCollection } from "../mappers/collection.js";
import { defaultLevelSchema, toProtoLevel, toRestSpace } from "../mappers/space.js";
import { pageQueryShape, pageQuerySchema, toPageRequest, toPagedList } from "../pagination.js";
import { created, defineRoute, noContent, ok, type Route } from "../route.js";
import { pathId, queryParam } from "../validation.js";
import { toMaskedUpdate } from "../update-mask.js";
import type { RouteDeps } from "./deps.js";
import { moveBody, toMoveFields } from "./spaces.js";

const organizationParams = z.object({ organizationId: pathId() });
const collectionParams = z.object({ collectionId: pathId() });

// Limits (title at most 50 characters, description at most 100) are the content service's.
export const createCollectionBody = z.object({ title: z.string().optional(), parent: pathId().optional() }).optional();

/** updateCollectionById: description null clears it. */
export const updateCollectionBody = z.object({
  title: z.string().optional(),
  description: z.string().nullable().optional(),
  defaultLevel: defaultLevelSchema.optional(),
});

export function toUpdateCollectionFields(body: z.output<typeof updateCollectionBody>) {
  return toMaskedUpdate(
    body,
    { title: "", description: "", defaultLevel: ContentLevel.CONTENT_LEVEL_UNSPECIFIED },
    {
      title: ["title", (title) => ({ title })],
      description: ["description", (description) => ({ description: description ?? "" })],
      defaultLevel: ["default_level", (level) => ({ defaultLevel: toProtoLevel(level) })],
    },
  );
}

export function collectionRoutes({ upstreams, urls }: RouteDeps): Route[] {
  const collections = upstreams.content.collections;
  return [
    // listCollectionsInOrganizationById: nested=false lists only the top-level collections.
    defineRoute({
      method: "GET",
      path: "/v1/orgs/:organizationId/collections",
      params: organizationParams,
      query: z.object({ ...pageQueryShape, nested: queryParam.boolean().optional() }),
      handler: async ({ params, query, principal, cursors }) => {
        const response = await collections.listCollections({
          caller: principal.caller,
          organizationId: params.organizationId,
          page: toPageRequest(query, cursors),
          topLevelOnly: query.nested === false,
        });
        return ok(
          toPagedList(
            response.collections.map((c) => toRestCollection(c, urls)),
            response.page,
            cursors,
          ),
        );
      },
    }),

    // createCollection
    defineRoute({
      method: "POST",
      path: "/v1/orgs/:organizationId/collections",
      params: organizationParams,
      body: createCollectionBody,
      handler: async ({ params, body, principal }) => {
        const response = await collections.createCollection({
          caller: principal.caller,
          organizationId: params.organizationId,
          title: body?.title ?? "",
          parentId: body?.parent ?? "",
        });
        const collection = toRestCollection(response.collection, urls);
        return created(collection, collectionLocation(urls, collection.id));
      },
    }),

    // getCollectionById
    defineRoute({
      method: "GET",
      path: "/v1/collections/:collectionId",
      params: collectionParams,
      handler: async ({ params, principal }) => {
        const response = await collections.getCollection({ caller: principal.caller, collectionId: params.collectionId });
        return ok(toRestCollection(response.collection, urls));
      },
    }),

    // updateCollectionById
    defineRoute({
      method: "PATCH",
      path: "/v1/collections/:collectionId",
      params: collectionParams,
      body: updateCollectionBody,
      handler: async ({ params, body, principal }) => {
        const response = await collections.updateCollection({
          caller: principal.caller,
          collectionId: params.collectionId,
          ...toUpdateCollectionFields(body),
        });
        return ok(toRestCollection(response.collection, urls));
      },
    }),

    // deleteCollectionById: 204 whether or not it existed; what it held moves to its parent.
    defineRoute({
      method: "DELETE",
      path: "/v1/collections/:collectionId",
      params: collectionParams,
      handler: async ({ params, principal }) => {
        await collections.deleteCollection({ caller: principal.caller, collectionId: params.collectionId });
        return noContent();
      },
    }),

    // listSpacesInCollectionById
    defineRoute({
      method: "GET",
      path: "/v1/collections/:collectionId/spaces",
      params: collectionParams,
      query: pageQuerySchema,
      handler: async ({ params, query, principal, cursors }) => {
        const response = await collections.listCollectionSpaces({
          caller: principal.caller,
          collectionId: params.collectionId,
          page: toPageRequest(query, cursors),
        });
        return ok(
          toPagedList(
            response.spaces.map((s) => toRestSpace(s, urls)),
            response.page,
            cursors,
          ),
        );
      },
    }),

    // moveCollection
    defineRoute({
      method: "POST",
      path: "/v1/collections/:collectionId/move",
      params: collectionParams,
      body: moveBody,
      handler: async ({ params, body, principal }) => {
        const response = await collections.moveCollection({ caller: principal.caller, collectionId: params.collectionId, ...toMoveFields(body) });
        return ok(toRestCollection(response.collection, urls));
      },
    }),

    // transferCollection
    defineRoute({
      method: "POST",
      path: "/v1/collections/:collectionId/transfer",
      params: collectionParams,
      body: z.object({ organization: pathId() }),
      handler: async ({ params, body, principal }) => {
        const response = await collections.transferCollection({
          caller: principal.caller,
          collectionId: params.collectionId,
          organizationId: body.organization,
        });
        return ok(toRestCollection(response.collection, urls));
      },
    }),
  ];
}
