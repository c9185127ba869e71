import { SortOrder } from "@imprint/proto/common/v1";
import {
  ContentLevel,
  SpaceEditMode,
  SpaceVisibility,
  type ContentPointer,
  type ParentTarget,
  type Position,
  type SpaceMergeRules,
} from "@imprint/proto/content/v1/spaces";
import { z } from "zod";
import {
  defaultLevelSchema,
  spaceLocation,
  toProtoEditMode,
  toProtoLevel,
  toProtoVisibility,
  toRestMemberLevel,
  toRestSpace,
  VISIBILITY_NAMES,
} from "../mappers/space.js";
import { pageQueryShape, pageQuerySchema, toPageRequest, toPagedList } from "../pagination.js";
import { created, defineRoute, noContent, ok, type Route } from "../route.js";
import { pathId, queryParam } from "../validation.js";
import { toMaskedUpdate } from "../update-mask.js";
import type { RouteDeps } from "./deps.js";

const organizationParams = z.object({ organizationId: pathId() });
const spaceParams = z.object({ spaceId: pathId() });

// Limits (title and emoji at most 50 characters, ...) are the content service's: it counts
// characters as JSON Schema does and names the field in its 400.
const pointerSchema = z.discriminatedUnion("type", [
  z.object({ type: z.literal("space"), space: pathId() }),
  z.object({ type: z.literal("collection"), collection: pathId() }),
]);

/** Body of both move operations: `parent` (collection id, or null for the top level) and/or `position`. */
export const moveBody = z
  .object({
    parent: pathId().nullable().optional(),
    position: z.object({ before: pointerSchema.optional(), after: pointerSchema.optional() }).optional(),
  })
  .refine((body) => body.parent !== undefined || body.position !== undefined, { error: "must contain parent or position" });

function toProtoPointer(pointer: z.output<typeof pointerSchema> | undefined): ContentPointer | undefined {
  if (!pointer) return undefined;
  return pointer.type === "space" ? { spaceId: pointer.space } : { collectionId: pointer.collection };
}

/** REST move body → proto parent (unset = not sent; empty id = top level) and position. */
export function toMoveFields(body: z.output<typeof moveBody>): { parent: ParentTarget | undefined; position: Position | undefined } {
  return {
    parent: body.parent === undefined ? undefined : { collectionId: body.parent ?? "" },
    position: body.position ? { before: toProtoPointer(body.position.before), after: toProtoPointer(body.position.after) } : undefined,
  };
}

/**
 * createSpace: GitBook's optional template/empty/computedSource are accepted and ignored (every
 * space starts empty). `language` is one of GitBook's TranslationLanguage codes (content checks it).
 */
export const createSpaceBody = z
  .object({
    title: z.string().optional(),
    emoji: z.string().optional(),
    parent: pathId().optional(),
    editMode: z.enum(["live", "locked"]).optional(),
    language: z.string().optional(),
  })
  .optional();

/**
 * updateSpaceById: unknown fields (icon) are ignored; emoji null removes it; `language` is one of
 * GitBook's TranslationLanguage codes (content checks it). `mergeRules`
 * (GitBook's MergeRulesSpaceConfiguration) is checked for shape only: the type and the rules
 * (names, users, what Imprint supports) are content's to check.
 */
export const updateSpaceBody = z.object({
  title: z.string().optional(),
  emoji: z.string().nullable().optional(),
  editMode: z.enum(["live", "locked"]).optional(),
  defaultLevel: defaultLevelSchema.optional(),
  visibility: z.enum(VISIBILITY_NAMES).optional(),
  language: z.string().optional(),
  mergeRules: z
    .object({
      type: z.string(),
      rules: z.array(z.object({ rule: z.string(), users: z.array(z.string()).optional() })).optional(),
    })
    .optional(),
});

export function toUpdateSpaceFields(body: z.output<typeof updateSpaceBody>) {
  return toMaskedUpdate(
    body,
    {
      title: "",
      emoji: "",
      editMode: SpaceEditMode.SPACE_EDIT_MODE_UNSPECIFIED,
      defaultLevel: ContentLevel.CONTENT_LEVEL_UNSPECIFIED,
      visibility: SpaceVisibility.SPACE_VISIBILITY_UNSPECIFIED,
      mergeRules: undefined as SpaceMergeRules | undefined,
      language: "",
    },
    {
      title: ["title", (title) => ({ title })],
      emoji: ["emoji", (emoji) => ({ emoji: emoji ?? "" })],
      editMode: ["edit_mode", (mode) => ({ editMode: toProtoEditMode(mode) })],
      defaultLevel: ["default_level", (level) => ({ defaultLevel: toProtoLevel(level) })],
      visibility: ["visibility", (visibility) => ({ visibility: toProtoVisibility(visibility) })],
      language: ["language", (language) => ({ language })],
      mergeRules: [
        "merge_rules",
        (mergeRules) => ({
          mergeRules: { type: mergeRules.type, rules: (mergeRules.rules ?? []).map((rule) => ({ rule: rule.rule, userIds: rule.users ?? [] })) },
        }),
      ],
    },
  );
}

/** transferSpace: `organization` is required; `parent` optionally names a collection of it. */
export const transferSpaceBody = z.object({ organization: pathId(), parent: pathId().nullable().optional() });

const memberSpacesQuery = z.object({ ...pageQueryShape, order: z.enum(["asc", "desc"]).optional() });

export function spaceRoutes({ upstreams, urls }: RouteDeps): Route[] {
  const spaces = upstreams.content.spaces;
  return [
    // createSpace
    defineRoute({
      method: "POST",
      path: "/v1/orgs/:organizationId/spaces",
      params: organizationParams,
      body: createSpaceBody,
      handler: async ({ params, body, principal }) => {
        const response = await spaces.createSpace({
          caller: principal.caller,
          organizationId: params.organizationId,
          title: body?.title ?? "",
          emoji: body?.emoji ?? "",
          parentId: body?.parent ?? "",
          editMode: body?.editMode ? toProtoEditMode(body.editMode) : SpaceEditMode.SPACE_EDIT_MODE_UNSPECIFIED,
          language: body?.language,
        });
        const space = toRestSpace(response.space, urls);
        return created(space, spaceLocation(urls, space.id));
      },
    }),

    // listSpacesInOrganizationById
    defineRoute({
      method: "GET",
      path: "/v1/orgs/:organizationId/spaces",
      params: organizationParams,
      query: pageQuerySchema,
      handler: async ({ params, query, principal, cursors }) => {
        const response = await spaces.listSpaces({ caller: principal.caller, organizationId: params.organizationId, page: toPageRequest(query, cursors) });
        return ok(
          toPagedList(
            response.spaces.map((s) => toRestSpace(s, urls)),
            response.page,
            cursors,
          ),
        );
      },
    }),

    // getSpaceById: shareKey is accepted and passed on; it grants nothing until sites exist.
    defineRoute({
      method: "GET",
      path: "/v1/spaces/:spaceId",
      params: spaceParams,
      query: z.object({ shareKey: queryParam.string(512).optional() }),
      handler: async ({ params, query, principal }) => {
        const response = await spaces.getSpace({ caller: principal.caller, spaceId: params.spaceId, shareKey: query.shareKey ?? "" });
        return ok(toRestSpace(response.space, urls));
      },
    }),

    // updateSpaceById
    defineRoute({
      method: "PATCH",
      path: "/v1/spaces/:spaceId",
      params: spaceParams,
      body: updateSpaceBody,
      handler: async ({ params, body, principal }) => {
        const response = await spaces.updateSpace({ caller: principal.caller, spaceId: params.spaceId, ...toUpdateSpaceFields(body) });
        return ok(toRestSpace(response.space, urls));
      },
    }),

    // deleteSpaceById: 204 whether or not the space existed (interface.md; GitBook uses 205 when deleted).
    defineRoute({
      method: "DELETE",
      path: "/v1/spaces/:spaceId",
      params: spaceParams,
      handler: async ({ params, principal }) => {
        await spaces.deleteSpace({ caller: principal.caller, spaceId: params.spaceId });
        return noContent();
      },
    }),

    // duplicateSpace
    defineRoute({
      method: "POST",
      path: "/v1/spaces/:spaceId/duplicate",
      params: spaceParams,
      handler: async ({ params, principal }) => {
        const response = await spaces.duplicateSpace({ caller: principal.caller, spaceId: params.spaceId });
        const space = toRestSpace(response.space, urls);
        return created(space, spaceLocation(urls, space.id));
      },
    }),

    // restoreSpace
    defineRoute({
      method: "POST",
      path: "/v1/spaces/:spaceId/restore",
      params: spaceParams,
      handler: async ({ params, principal }) => {
        const response = await spaces.restoreSpace({ caller: principal.caller, spaceId: params.spaceId });
        return ok(toRestSpace(response.space, urls));
      },
    }),

    // moveSpace
    defineRoute({
      method: "POST",
      path: "/v1/spaces/:spaceId/move",
      params: spaceParams,
      body: moveBody,
      handler: async ({ params, body, principal }) => {
        const response = await spaces.moveSpace({ caller: principal.caller, spaceId: params.spaceId, ...toMoveFields(body) });
        return ok(toRestSpace(response.space, urls));
      },
    }),

    // transferSpace
    defineRoute({
      method: "POST",
      path: "/v1/spaces/:spaceId/transfer",
      params: spaceParams,
      body: transferSpaceBody,
      handler: async ({ params, body, principal }) => {
        const response = await spaces.transferSpace({
          caller: principal.caller,
          spaceId: params.spaceId,
          organizationId: body.organization,
          parent: body.parent ? { collectionId: body.parent } : undefined,
        });
        return ok(toRestSpace(response.space, urls));
      },
    }),

    // listSpacesForOrganizationMember
    defineRoute({
      method: "GET",
      path: "/v1/orgs/:organizationId/members/:userId/spaces",
      params: z.object({ organizationId: pathId(), userId: pathId() }),
      query: memberSpacesQuery,
      handler: async ({ params, query, principal, cursors }) => {
        const response = await spaces.listMemberSpaces({
          caller: principal.caller,
          organizationId: params.organizationId,
          userId: params.userId,
          page: toPageRequest(query, cursors),
          order: query.order === "asc" ? SortOrder.SORT_ORDER_ASC : SortOrder.SORT_ORDER_DESC,
        });
        const items = response.items.map((item) => ({ permission: toRestMemberLevel(item.level), space: toRestSpace(item.space, urls) }));
        return ok(toPagedList(items, response.page, cursors));
      },
    }),
  ];
}
