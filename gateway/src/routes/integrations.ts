import { z } from "zod";
import type { Caller } from "@imprint/proto/common/v1";
import { AppError, jsonNestingDepth, jsonTooDeep, MAX_JSON_DEPTH } from "@imprint/runtime/core";
import { decompressFromEncodedURIComponent } from "../lz-string.js";
import { toRestEventLog, toRestIntegrationEvent } from "../mappers/integration.js";
import { pageQueryShape, toPageRequest, toPagedList } from "../pagination.js";
import { defineRoute, noContent, ok, resetContent, type Route, type RouteResponse } from "../route.js";
import { parseInput, pathId, queryParam } from "../validation.js";
import type { DirectRoute, RouteDeps } from "./deps.js";
import { readOwners, restIntegration, restIntegrations } from "./integration-views.js";

/** A publication carries a script (≤ 5 MiB) and base64 images (an icon and three previews): room for all of them. */
export const PUBLISH_BODY_LIMIT_BYTES = 12 * 1024 * 1024;

// Names, titles, scopes, categories, targets, visibilities, blocks, configurations, secrets and
// scripts are checked by the integration service (their limits and enumerations are its rules);
// the gateway checks shapes, and decodes the images GitBook sends as base64.
export const integrationParams = z.object({ integrationName: pathId() });
const eventParams = integrationParams.extend({ eventId: pathId() });
const assetParams = integrationParams.extend({ assetId: pathId() });

export const listIntegrationsQuery = z.object({
  ...pageQueryShape,
  search: queryParam.string(256).optional(),
  category: queryParam.string(64).optional(),
  blockDomain: queryParam.string(256).optional(),
  blocks: queryParam.boolean().optional(),
  contentSources: queryParam.boolean().optional(),
  owner: queryParam.string(128).optional(),
  scope: queryParam.string(64).optional(),
  target: queryParam.string(64).optional(),
});

/** The largest image GitBook's base64 may carry once decoded (an icon or one preview image). */
export const MAX_IMAGE_BYTES = 1024 * 1024;
const BASE64 = /^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}(?:==)?|[A-Za-z0-9+/]{3}=?)?$/;

/** GitBook's `format: byte`: base64 text, decoded here into the bytes the service stores. */
const base64Image = z.string().transform((value, ctx) => {
  if (!BASE64.test(value)) {
    ctx.addIssue({ code: "custom", message: "must be base64" });
    return z.NEVER;
  }
  const content = Buffer.from(value, "base64");
  if (content.length > MAX_IMAGE_BYTES) {
    ctx.addIssue({ code: "custom", message: `must be at most ${MAX_IMAGE_BYTES} bytes once decoded` });
    return z.NEVER;
  }
  return content;
});

const jsonObject = z.record(z.string(), z.unknown());

/** queueIntegrationTask: the task's payload (an object) and its delay; the size and the delay's range are the integration service's rules. */
export const queueIntegrationTaskBody = z.object({ task: jsonObject, schedule: z.number().optional() });

/** GitBook's IntegrationContentSecurityPolicy: a policy, or its directives by name. */
const contentSecurityPolicy = z.union([z.string(), z.record(z.string(), z.string())]);

/** publishIntegration (GitBook's PublishIntegration); `previewImages` at most 3 as GitBook's schema says. */
export const publishIntegrationBody = z.object({
  runtime: z.string().optional(),
  icon: base64Image.optional(),
  title: z.string(),
  description: z.string(),
  summary: z.string().optional(),
  previewImages: z.array(base64Image).max(3).optional(),
  visibility: z.string().optional(),
  target: z.string().optional(),
  scopes: z.array(z.string()),
  categories: z.array(z.string()).optional(),
  blocks: z.array(jsonObject).optional(),
  contentSources: z.array(jsonObject).optional(),
  externalLinks: z.array(jsonObject).optional(),
  configurations: jsonObject.optional(),
  script: z.string(),
  organization: z.string(),
  secrets: z.record(z.string(), z.string()).optional(),
  contentSecurityPolicy: contentSecurityPolicy.optional(),
});

export const developmentModeBody = z.object({ tunnelUrl: z.string(), all: z.boolean().optional() });

/** renderIntegrationUIWithPost (GitBook's RenderIntegrationUI); the GET form carries the same, compressed. */
export const renderBody = z.object({
  componentId: z.string(),
  props: jsonObject,
  state: jsonObject.optional(),
  context: jsonObject,
  action: jsonObject.optional(),
});
export type RenderBody = z.output<typeof renderBody>;

/** At most this much JSON text once a GET render `request` is decompressed. */
export const MAX_RENDER_REQUEST_CHARACTERS = 1024 * 1024;
/** The compressed form is bounded like a URL (Node's parser takes 16 KiB of request head). */
export const renderQuery = z.object({
  request: z
    .string()
    .min(1)
    .max(16 * 1024),
});

/**
 * GitBook's `request` query of renderIntegrationUIWithGet: the RenderIntegrationUI body as JSON,
 * compressed with lz-string's compressToEncodedURIComponent (the URL-safe form). Invalid input, or
 * JSON past MAX_RENDER_REQUEST_CHARACTERS, is refused naming `request`.
 */
export function decodeRenderRequest(request: string): RenderBody {
  // Decompression stops at the bound: what is past it is never built.
  const decompressed = decompressFromEncodedURIComponent(request, MAX_RENDER_REQUEST_CHARACTERS);
  if (!decompressed.ok && decompressed.reason === "too-large")
    throw AppError.invalidArgument(`request: must decompress to at most ${MAX_RENDER_REQUEST_CHARACTERS} characters of JSON`);
  if (!decompressed.ok || !decompressed.text) throw AppError.invalidArgument("request: must be JSON compressed with lz-string (compressToEncodedURIComponent)");
  if (jsonNestingDepth(decompressed.text, MAX_JSON_DEPTH) > MAX_JSON_DEPTH) throw AppError.invalidArgument(jsonTooDeep("request"));
  let parsed: unknown;
  try {
    parsed = JSON.parse(decompressed.text) as unknown;
  } catch {
    throw AppError.invalidArgument("request: must be JSON compressed with lz-string (compressToEncodedURIComponent)");
  }
  return parseInput(z.object({ request: renderBody }), { request: parsed }, "query").request;
}

/** GitBook's CSP object form as the policy text the service keeps. */
function policyText(policy: z.output<typeof contentSecurityPolicy>): string {
  return typeof policy === "string"
    ? policy
    : Object.entries(policy)
        .map(([directive, value]) => `${directive} ${value}`.trim())
        .join("; ");
}

const json = (value: unknown) => (value === undefined ? "" : JSON.stringify(value));

/** Integrations, their events, development mode and UI rendering (GitBook's `integrations` operations). */
export function integrationRoutes({ upstreams, urls }: RouteDeps): Route[] {
  const integration = upstreams.integration;
  const render = async (name: string, body: RenderBody, caller: Caller): Promise<RouteResponse> => {
    const response = await integration.scripts.renderIntegrationUi({
      caller,
      name,
      componentId: body.componentId,
      propsJson: JSON.stringify(body.props),
      stateJson: json(body.state),
      contextJson: JSON.stringify(body.context),
      actionJson: json(body.action),
    });
    let output: unknown;
    try {
      output = JSON.parse(response.outputJson) as unknown;
    } catch (error) {
      throw new AppError("internal", "upstream answered a render output that is not JSON", { cause: error });
    }
    // What a component renders depends on its caller and context: nothing caches it unless it says so.
    return ok(output, { "Cache-Control": response.cacheControl || "no-store" });
  };
  return [
    // listIntegrations
    defineRoute({
      method: "GET",
      path: "/v1/integrations",
      query: listIntegrationsQuery,
      handler: async ({ query, principal, cursors }) => {
        const response = await integration.integrations.listIntegrations({
          caller: principal.caller,
          page: toPageRequest(query, cursors),
          search: query.search ?? "",
          category: query.category ?? "",
          blockDomain: query.blockDomain ?? "",
          blocks: query.blocks,
          contentSources: query.contentSources,
          owner: query.owner ?? "",
          scope: query.scope ?? "",
          target: query.target ?? "",
          organizationId: "",
          siteId: "",
        });
        return ok(toPagedList(await restIntegrations(upstreams, urls, response.integrations), response.page, cursors));
      },
    }),

    // getIntegrationByName
    defineRoute({
      method: "GET",
      path: "/v1/integrations/:integrationName",
      params: integrationParams,
      handler: async ({ params, principal }) =>
        ok(
          await restIntegration(
            upstreams,
            urls,
            (await integration.integrations.getIntegration({ caller: principal.caller, name: params.integrationName })).integration,
          ),
        ),
    }),

    // publishIntegration: a new integration, or a new version of it (200 either way, as GitBook).
    defineRoute({
      method: "POST",
      path: "/v1/integrations/:integrationName",
      params: integrationParams,
      body: publishIntegrationBody,
      bodyLimitBytes: PUBLISH_BODY_LIMIT_BYTES,
      handler: async ({ params, body, principal }) => {
        // The owner is read before the write: once it is saved, its answer needs no other upstream.
        const owners = await readOwners(upstreams, urls, [body.organization]);
        const response = await integration.integrations.publishIntegration({
          caller: principal.caller,
          name: params.integrationName,
          organization: body.organization,
          runtime: body.runtime ?? "",
          title: body.title,
          description: body.description,
          summary: body.summary,
          visibility: body.visibility ?? "",
          target: body.target ?? "",
          scopes: body.scopes,
          categories: body.categories ?? [],
          blocksJson: json(body.blocks),
          contentSourcesJson: json(body.contentSources),
          externalLinksJson: json(body.externalLinks),
          configurationsJson: json(body.configurations),
          script: body.script,
          secrets: body.secrets ?? {},
          contentSecurityPolicy: body.contentSecurityPolicy === undefined ? undefined : policyText(body.contentSecurityPolicy),
          icon: body.icon === undefined ? undefined : { content: body.icon },
          previewImages: (body.previewImages ?? []).map((content) => ({ content })),
          previewsPresent: body.previewImages !== undefined,
        });
        return ok(await restIntegration(upstreams, urls, response.integration, owners));
      },
    }),

    // unpublishIntegration: 205 when it was deleted (and uninstalled everywhere), 204 when there was none.
    defineRoute({
      method: "DELETE",
      path: "/v1/integrations/:integrationName",
      params: integrationParams,
      handler: async ({ params, principal }) =>
        (await integration.integrations.unpublishIntegration({ caller: principal.caller, name: params.integrationName })).existed
          ? resetContent()
          : noContent(),
    }),

    // listIntegrationEvents: newest first.
    defineRoute({
      method: "GET",
      path: "/v1/integrations/:integrationName/events",
      params: integrationParams,
      query: z.object(pageQueryShape),
      handler: async ({ params, query, principal, cursors }) => {
        const response = await integration.integrationEvents.listIntegrationEvents({
          caller: principal.caller,
          name: params.integrationName,
          page: toPageRequest(query, cursors),
        });
        return ok(toPagedList(response.events.map(toRestIntegrationEvent), response.page, cursors));
      },
    }),

    // getIntegrationEvent: the event with what its handling logged.
    defineRoute({
      method: "GET",
      path: "/v1/integrations/:integrationName/events/:eventId",
      params: eventParams,
      handler: async ({ params, principal }) => {
        const response = await integration.integrationEvents.getIntegrationEvent({
          caller: principal.caller,
          name: params.integrationName,
          eventId: params.eventId,
        });
        return ok({ event: toRestIntegrationEvent(response.event), trace: { logs: response.logs.map(toRestEventLog) } });
      },
    }),

    // queueIntegrationTask: the integration's own token only; delivered later to its script as a `task` event.
    defineRoute({
      method: "POST",
      path: "/v1/integrations/:integrationName/tasks",
      params: integrationParams,
      body: queueIntegrationTaskBody,
      handler: async ({ params, body, principal }) => {
        await integration.integrationEvents.queueIntegrationTask({
          caller: principal.caller,
          name: params.integrationName,
          taskJson: JSON.stringify(body.task),
          scheduleSeconds: body.schedule ?? 0,
        });
        return noContent();
      },
    }),

    // setIntegrationDevelopmentMode
    defineRoute({
      method: "PUT",
      path: "/v1/integrations/:integrationName/dev",
      params: integrationParams,
      body: developmentModeBody,
      handler: async ({ params, body, principal }) => {
        await integration.integrations.setDevelopmentMode({
          caller: principal.caller,
          name: params.integrationName,
          tunnelUrl: body.tunnelUrl,
          all: body.all ?? false,
        });
        return noContent();
      },
    }),

    // disableIntegrationDevelopmentMode: 205, the only answer GitBook declares.
    defineRoute({
      method: "DELETE",
      path: "/v1/integrations/:integrationName/dev",
      params: integrationParams,
      handler: async ({ params, principal }) => {
        await integration.integrations.disableDevelopmentMode({ caller: principal.caller, name: params.integrationName });
        return resetContent();
      },
    }),

    // renderIntegrationUIWithGet: the body of the POST form, compressed into `request`.
    defineRoute({
      method: "GET",
      path: "/v1/integrations/:integrationName/render",
      params: integrationParams,
      query: renderQuery,
      handler: async ({ params, query, principal }) => render(params.integrationName, decodeRenderRequest(query.request), principal.caller),
    }),

    // renderIntegrationUIWithPost
    defineRoute({
      method: "POST",
      path: "/v1/integrations/:integrationName/render",
      params: integrationParams,
      body: renderBody,
      handler: async ({ params, body, principal }) => render(params.integrationName, body, principal.caller),
    }),
  ];
}

/** A year: an asset's id names its bytes, which never change (a new image is a new asset). */
const ASSET_CACHE_CONTROL = "public, max-age=31536000, immutable";

/**
 * `GET /v1/integrations/{integrationName}/assets/{assetId}`: an image an integration published
 * (its `urls.icon` and `previewImages`), without a token (integrations' images are public). The
 * bytes are a publisher's upload served from the API's origin: sandboxed and never sniffed.
 */
export function integrationAssetRoute({ upstreams }: Pick<RouteDeps, "upstreams">): DirectRoute {
  return {
    method: "GET",
    path: "/v1/integrations/:integrationName/assets/:assetId",
    handle: async (ctx) => {
      const params = parseInput(assetParams, ctx.params, "path");
      const asset = await upstreams.integration.integrations.getIntegrationAsset({ name: params.integrationName, assetId: params.assetId });
      ctx.status = 200;
      ctx.type = asset.contentType;
      ctx.set({
        "Cache-Control": ASSET_CACHE_CONTROL,
        "X-Content-Type-Options": "nosniff",
        "Content-Security-Policy": "sandbox; default-src 'none'; style-src 'unsafe-inline'",
      });
      ctx.body = Buffer.from(asset.content);
    },
  };
}
