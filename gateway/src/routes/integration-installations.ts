import { z } from "zod";
import type { Caller } from "@imprint/proto/common/v1";
import { type Header } from "@imprint/proto/integration/v1/scripts";
import { TargetKind, type TargetInstallation } from "@imprint/proto/integration/v1/target_installations";
import { AppError } from "@imprint/runtime/core";
import type { GatewayContext } from "../context.js";
import {
  installationLocation,
  targetInstallationLocation,
  toRestInstallation,
  toRestSiteInstallation,
  toRestSpaceInstallation,
  type RestIntegrationSiteInstallation,
  type RestIntegrationSpaceInstallation,
} from "../mappers/integration.js";
import type { RestSite } from "../mappers/site.js";
import type { RestSpace } from "../mappers/space.js";
import { readBodyBytes } from "../middleware/json-body.js";
import { pageQueryShape, toPageRequest, toPagedList } from "../pagination.js";
import { created, defineRoute, noContent, ok, resetContent, type Route } from "../route.js";
import { parseInput, pathId, queryParam } from "../validation.js";
import { toMaskedUpdate } from "../update-mask.js";
import type { DirectRoute, RouteDeps } from "./deps.js";
import { expandTargets } from "./integration-views.js";
import { integrationParams } from "./integrations.js";

// Configurations are validated by the integration service against what the integration declares
// (a 400 names the property); selections, external ids and their limits are its rules too.
const installationParams = integrationParams.extend({ installationId: pathId() });

const externalIdQuery = { externalId: queryParam.string(256).optional() };
const extendedQuery = { extended: queryParam.boolean().optional() };

export const listInstallationsQuery = z.object({ ...pageQueryShape, ...externalIdQuery });
export const installIntegrationBody = z.object({ organization: pathId() });

/** updateIntegrationInstallation (GitBook's UpdateIntegrationInstallation): only the fields sent change. */
export const updateInstallationBody = z.object({
  externalIds: z.array(z.string()).optional(),
  configuration: z.record(z.string(), z.unknown()).optional(),
  space_selection: z.string().optional(),
  site_selection: z.string().optional(),
});

/** updateIntegrationSpaceInstallation / updateIntegrationSiteInstallation: only the fields sent change. */
export const updateTargetInstallationBody = z.object({
  externalIds: z.array(z.string()).optional(),
  configuration: z.record(z.string(), z.unknown()).optional(),
});

/** The largest body an installation's public endpoint passes to its script. */
export const PUBLIC_ENDPOINT_BODY_LIMIT = 1024 * 1024;

/** Space and site installations differ in their path segment, GitBook's body field, and their object. */
interface TargetRoutes {
  kind: TargetKind;
  segment: "spaces" | "sites";
  /** The path parameter naming one target (`:spaceId`, `:siteId`), read as `targetId`. */
  param: "spaceId" | "siteId";
  params: z.ZodType<{ integrationName: string; installationId: string; targetId: string }>;
  /** installIntegrationOnSpace's `space`, installIntegrationOnSite's `siteId`, read as `targetId`. */
  installBody: z.ZodType<{ targetId: string }>;
  toRest(
    installation: TargetInstallation | undefined,
    expanded: RestSpace | RestSite | undefined,
  ): RestIntegrationSpaceInstallation | RestIntegrationSiteInstallation;
}

/** The fields every installation update has (an installation's, a space's or a site's). */
const installationChangeFields = {
  configuration: ["configuration_json", (configuration: Record<string, unknown>) => ({ configurationJson: JSON.stringify(configuration) })],
  externalIds: ["external_ids", (values: string[]) => ({ externalIds: { values } })],
} as const;
const unchangedInstallation = { configurationJson: "", externalIds: { values: [] as string[] } };

/**
 * A PATCH body → the update's fields plus a mask naming exactly those the client sent (an empty
 * body names none: the installation's status still settles).
 */
function targetInstallationChanges(body: z.output<typeof updateTargetInstallationBody>) {
  return toMaskedUpdate(body, unchangedInstallation, installationChangeFields);
}

function installationChanges(body: z.output<typeof updateInstallationBody>) {
  return toMaskedUpdate(
    body,
    { ...unchangedInstallation, spaceSelection: "", siteSelection: "" },
    {
      ...installationChangeFields,
      space_selection: ["space_selection", (spaceSelection) => ({ spaceSelection })],
      site_selection: ["site_selection", (siteSelection) => ({ siteSelection })],
    },
  );
}

/** Organization installations and, within them, space and site installations (GitBook's operations). */
export function integrationInstallationRoutes({ upstreams, urls }: RouteDeps): Route[] {
  const integration = upstreams.integration;

  const targets: TargetRoutes[] = [
    {
      kind: TargetKind.TARGET_KIND_SPACE,
      segment: "spaces",
      param: "spaceId",
      params: installationParams.extend({ spaceId: pathId() }).transform(({ spaceId, ...rest }) => ({ ...rest, targetId: spaceId })),
      installBody: z.object({ space: pathId() }).transform((body) => ({ targetId: body.space })),
      toRest: (installation, expanded) => toRestSpaceInstallation(installation, expanded as RestSpace | undefined, urls),
    },
    {
      kind: TargetKind.TARGET_KIND_SITE,
      segment: "sites",
      param: "siteId",
      params: installationParams.extend({ siteId: pathId() }).transform(({ siteId, ...rest }) => ({ ...rest, targetId: siteId })),
      installBody: z.object({ siteId: pathId() }).transform((body) => ({ targetId: body.siteId })),
      toRest: (installation, expanded) => toRestSiteInstallation(installation, expanded as RestSite | undefined, urls),
    },
  ];

  /** Target installations as GitBook shows them; with `extended`, their spaces or sites in one batch per organization. */
  const restTargets = async (
    target: TargetRoutes,
    input: { caller: Caller; integrationName: string; installations: TargetInstallation[]; extended: boolean | undefined; afterWrite?: boolean },
  ) => {
    const none = new Map<string, RestSpace | RestSite>();
    // After a write is saved, the expansion is a best effort: a target left as its id is GitBook's
    // shape too (as for a target the caller cannot read), and failing would answer an applied write as failed.
    const expand = () => expandTargets(upstreams, urls, { ...input, kind: target.kind });
    const expanded = !input.extended ? none : input.afterWrite ? await expand().catch(() => none) : await expand();
    return input.installations.map((installation) => target.toRest(installation, expanded.get(installation.targetId)));
  };
  const restTarget = async (
    target: TargetRoutes,
    caller: Caller,
    integrationName: string,
    installation: TargetInstallation | undefined,
    extended: boolean | undefined,
    afterWrite = false,
  ) =>
    (await restTargets(target, { caller, integrationName, installations: installation ? [installation] : [], extended, afterWrite }))[0] ??
    target.toRest(installation, undefined);

  const targetRoutes = (target: TargetRoutes): Route[] => {
    const base = "/v1/integrations/:integrationName/installations/:installationId";
    return [
      // listIntegrationSpaceInstallations / listIntegrationSiteInstallations: every installation's the caller can see.
      defineRoute({
        method: "GET",
        path: `/v1/integrations/:integrationName/${target.segment}`,
        params: integrationParams,
        query: z.object({ ...pageQueryShape, ...externalIdQuery, ...extendedQuery }),
        handler: async ({ params, query, principal, cursors }) => {
          const response = await integration.targetInstallations.listTargetInstallations({
            caller: principal.caller,
            name: params.integrationName,
            kind: target.kind,
            installationId: "",
            externalId: query.externalId ?? "",
            page: toPageRequest(query, cursors),
          });
          const items = await restTargets(target, {
            caller: principal.caller,
            integrationName: params.integrationName,
            installations: response.installations,
            extended: query.extended,
          });
          return ok(toPagedList(items, response.page, cursors));
        },
      }),

      // listIntegrationInstallationSpaces / listIntegrationInstallationSites: one installation's.
      defineRoute({
        method: "GET",
        path: `${base}/${target.segment}`,
        params: installationParams,
        query: z.object({ ...pageQueryShape, ...extendedQuery }),
        handler: async ({ params, query, principal, cursors }) => {
          const response = await integration.targetInstallations.listTargetInstallations({
            caller: principal.caller,
            name: params.integrationName,
            kind: target.kind,
            installationId: params.installationId,
            externalId: "",
            page: toPageRequest(query, cursors),
          });
          const items = await restTargets(target, {
            caller: principal.caller,
            integrationName: params.integrationName,
            installations: response.installations,
            extended: query.extended,
          });
          return ok(toPagedList(items, response.page, cursors));
        },
      }),

      // installIntegrationOnSpace / installIntegrationOnSite: 201 with Location, also when it was installed there already.
      defineRoute({
        method: "POST",
        path: `${base}/${target.segment}`,
        params: installationParams,
        query: z.object(extendedQuery),
        body: target.installBody,
        handler: async ({ params, query, body, principal }) => {
          const response = await integration.targetInstallations.installOnTarget({
            caller: principal.caller,
            name: params.integrationName,
            installationId: params.installationId,
            kind: target.kind,
            targetId: body.targetId,
            configurationJson: "",
            externalIds: [],
          });
          const installation = await restTarget(target, principal.caller, params.integrationName, response.installation, query.extended, true);
          return created(installation, targetInstallationLocation(urls, params.integrationName, params.installationId, target.segment, body.targetId));
        },
      }),

      // getIntegrationSpaceInstallation / getIntegrationSiteInstallation
      defineRoute({
        method: "GET",
        path: `${base}/${target.segment}/:${target.param}`,
        params: target.params,
        query: z.object(extendedQuery),
        handler: async ({ params, query, principal }) => {
          const response = await integration.targetInstallations.getTargetInstallation({
            caller: principal.caller,
            name: params.integrationName,
            installationId: params.installationId,
            kind: target.kind,
            targetId: params.targetId,
          });
          return ok(await restTarget(target, principal.caller, params.integrationName, response.installation, query.extended));
        },
      }),

      // updateIntegrationSpaceInstallation / updateIntegrationSiteInstallation
      defineRoute({
        method: "PATCH",
        path: `${base}/${target.segment}/:${target.param}`,
        params: target.params,
        query: z.object(extendedQuery),
        body: updateTargetInstallationBody,
        handler: async ({ params, query, body, principal }) => {
          const response = await integration.targetInstallations.updateTargetInstallation({
            caller: principal.caller,
            name: params.integrationName,
            installationId: params.installationId,
            kind: target.kind,
            targetId: params.targetId,
            ...targetInstallationChanges(body),
          });
          return ok(await restTarget(target, principal.caller, params.integrationName, response.installation, query.extended, true));
        },
      }),

      // uninstallIntegrationFromSpace / uninstallIntegrationFromSite: 205 when uninstalled, 204 when it was not installed there.
      defineRoute({
        method: "DELETE",
        path: `${base}/${target.segment}/:${target.param}`,
        params: target.params,
        handler: async ({ params, principal }) => {
          const response = await integration.targetInstallations.uninstallFromTarget({
            caller: principal.caller,
            name: params.integrationName,
            installationId: params.installationId,
            kind: target.kind,
            targetId: params.targetId,
          });
          return response.existed ? resetContent() : noContent();
        },
      }),
    ];
  };

  return [
    // listIntegrationInstallations
    defineRoute({
      method: "GET",
      path: "/v1/integrations/:integrationName/installations",
      params: integrationParams,
      query: listInstallationsQuery,
      handler: async ({ params, query, principal, cursors }) => {
        const response = await integration.installations.listInstallations({
          caller: principal.caller,
          name: params.integrationName,
          page: toPageRequest(query, cursors),
          externalId: query.externalId ?? "",
        });
        return ok(
          toPagedList(
            response.installations.map((installation) => toRestInstallation(installation, urls)),
            response.page,
            cursors,
          ),
        );
      },
    }),

    // installIntegration: 201 with Location, also when it was installed on the organization already.
    defineRoute({
      method: "POST",
      path: "/v1/integrations/:integrationName/installations",
      params: integrationParams,
      body: installIntegrationBody,
      handler: async ({ params, body, principal }) => {
        const response = await integration.installations.installIntegration({
          caller: principal.caller,
          name: params.integrationName,
          organizationId: body.organization,
        });
        const installation = toRestInstallation(response.installation, urls);
        return created(installation, installationLocation(urls, params.integrationName, installation.id));
      },
    }),

    // getIntegrationInstallationById
    defineRoute({
      method: "GET",
      path: "/v1/integrations/:integrationName/installations/:installationId",
      params: installationParams,
      handler: async ({ params, principal }) => {
        const response = await integration.installations.getInstallation({
          caller: principal.caller,
          name: params.integrationName,
          installationId: params.installationId,
        });
        return ok(toRestInstallation(response.installation, urls));
      },
    }),

    // updateIntegrationInstallation
    defineRoute({
      method: "PATCH",
      path: "/v1/integrations/:integrationName/installations/:installationId",
      params: installationParams,
      body: updateInstallationBody,
      handler: async ({ params, body, principal }) => {
        const response = await integration.installations.updateInstallation({
          caller: principal.caller,
          name: params.integrationName,
          installationId: params.installationId,
          ...installationChanges(body),
        });
        return ok(toRestInstallation(response.installation, urls));
      },
    }),

    // uninstallIntegration: 205 when uninstalled (with its space and site installations), 204 when there was none.
    defineRoute({
      method: "DELETE",
      path: "/v1/integrations/:integrationName/installations/:installationId",
      params: installationParams,
      handler: async ({ params, principal }) =>
        (await integration.installations.uninstall({ caller: principal.caller, name: params.integrationName, installationId: params.installationId })).existed
          ? resetContent()
          : noContent(),
    }),

    // createIntegrationInstallationToken: GitBook's APITemporaryToken.
    defineRoute({
      method: "POST",
      path: "/v1/integrations/:integrationName/installations/:installationId/tokens",
      params: installationParams,
      handler: async ({ params, principal }) => {
        const response = await integration.installations.issueInstallationToken({
          caller: principal.caller,
          name: params.integrationName,
          installationId: params.installationId,
        });
        return ok({ token: response.token });
      },
    }),

    ...targets.flatMap(targetRoutes),
  ];
}

/** Request headers a script never sees: credentials of this API and hop-by-hop headers. */
const WITHHELD_REQUEST_HEADERS = new Set([
  "authorization",
  "proxy-authorization",
  "cookie",
  "connection",
  "keep-alive",
  "transfer-encoding",
  "upgrade",
  "te",
  "trailer",
  "proxy-connection",
]);
/** Response headers Node sets itself for the bytes it sends. */
const WITHHELD_RESPONSE_HEADERS = new Set(["content-length", "transfer-encoding", "connection", "keep-alive"]);

/**
 * The policy every answer a script writes carries, beside the integration's own: the page gets an opaque
 * origin (no `allow-same-origin`), so it reads none of the API's cookies or storage, and its
 * requests to the API are cross-site: the browser sends no `SameSite=Lax` session cookie with
 * them, and the API answers no credentialed CORS. Its scripts, forms and popups still work. A
 * policy of its own (a second header value) rather than a directive added to the integration's:
 * a policy's second `sandbox` directive is ignored, while every policy of an answer applies.
 */
const SCRIPT_ANSWER_SANDBOX = "sandbox allow-scripts allow-forms allow-popups allow-popups-to-escape-sandbox";

/**
 * Answers a script's HTTP response as it is: its status, its headers (the integration's CSP among
 * them), its bytes; and sandboxed (SCRIPT_ANSWER_SANDBOX), whatever the integration's policy.
 */
function sendScriptResponse(ctx: GatewayContext, response: { status: number; headers: Header[]; body: Uint8Array }): void {
  if (!Number.isInteger(response.status) || response.status < 200 || response.status > 599) {
    throw new AppError("internal", `upstream answered HTTP status ${response.status} for a script's response`);
  }
  ctx.status = response.status;
  // The script's own policy and framing rule (a webframe is embedded by other pages), not the
  // API's defaults; any other default the script names too is its to give.
  ctx.remove("Content-Security-Policy");
  ctx.remove("X-Frame-Options");
  for (const header of response.headers) ctx.remove(header.name);
  for (const header of response.headers) {
    if (!WITHHELD_RESPONSE_HEADERS.has(header.name.toLowerCase())) ctx.append(header.name, header.value);
  }
  ctx.append("Content-Security-Policy", SCRIPT_ANSWER_SANDBOX);
  ctx.body = Buffer.from(response.body);
}

/** Segments up to `/public` (the empty one before the first slash included): an installation's endpoint, the integration's. */
const INSTALLATION_ENDPOINT_SEGMENTS = 7;
const INTEGRATION_ENDPOINT_SEGMENTS = 5;

/**
 * The raw path below `/public` with the query, as the client sent it (`/webhook?x=1`; `/` for the
 * endpoint itself): the segments after /v1/integrations/{name}/installations/{id}/public, or after
 * /v1/integrations/{name}/public.
 */
function pathBelowEndpoint(url: string, endpointSegments: number): string {
  const queryAt = url.indexOf("?");
  const pathname = queryAt === -1 ? url : url.slice(0, queryAt);
  const below = pathname.split("/").slice(endpointSegments).join("/");
  return `/${below}${queryAt === -1 ? "" : url.slice(queryAt)}`;
}

/** The methods an installation's public endpoint takes (HEAD goes with GET). */
const PUBLIC_ENDPOINT_METHODS = ["GET", "POST", "PUT", "PATCH", "DELETE"] as const;

/** The request headers a script sees: all but this API's credentials and hop-by-hop headers. */
function forwardedHeaders(ctx: GatewayContext): Record<string, string> {
  const headers: Record<string, string> = {};
  for (const [name, value] of Object.entries(ctx.req.headers)) {
    if (value === undefined || WITHHELD_REQUEST_HEADERS.has(name)) continue;
    headers[name] = Array.isArray(value) ? value.join(", ") : value;
  }
  return headers;
}

/**
 * What reaches an integration without a token: the public HTTP endpoints (`urls.publicEndpoint`)
 * of an installation and of the integration itself (the script's `fetch` handler: any method, any
 * path below it, the body as sent, bounded) and the script a site installation injects into the
 * site's pages.
 */
export function integrationInstallationDirectRoutes({ upstreams }: Pick<RouteDeps, "upstreams">): DirectRoute[] {
  const integration = upstreams.integration;
  const endpoint = "/v1/integrations/:integrationName/installations/:installationId/public";
  const handlePublic: DirectRoute["handle"] = async (ctx) => {
    const params = parseInput(installationParams, ctx.params, "path");
    const body = await readBodyBytes(ctx, PUBLIC_ENDPOINT_BODY_LIMIT);
    const response = await integration.scripts.handleInstallationRequest({
      name: params.integrationName,
      installationId: params.installationId,
      method: ctx.method,
      path: pathBelowEndpoint(ctx.url, INSTALLATION_ENDPOINT_SEGMENTS),
      headers: forwardedHeaders(ctx),
      body,
    });
    sendScriptResponse(ctx, response);
  };
  const integrationEndpoint = "/v1/integrations/:integrationName/public";
  const handleIntegrationPublic: DirectRoute["handle"] = async (ctx) => {
    const params = parseInput(integrationParams, ctx.params, "path");
    const body = await readBodyBytes(ctx, PUBLIC_ENDPOINT_BODY_LIMIT);
    const response = await integration.scripts.handleIntegrationRequest({
      name: params.integrationName,
      method: ctx.method,
      path: pathBelowEndpoint(ctx.url, INTEGRATION_ENDPOINT_SEGMENTS),
      headers: forwardedHeaders(ctx),
      body,
    });
    sendScriptResponse(ctx, response);
  };
  return [
    ...[endpoint, `${endpoint}/*path`].flatMap((path) => PUBLIC_ENDPOINT_METHODS.map((method): DirectRoute => ({ method, path, handle: handlePublic }))),
    ...[integrationEndpoint, `${integrationEndpoint}/*path`].flatMap((path) =>
      PUBLIC_ENDPOINT_METHODS.map((method): DirectRoute => ({ method, path, handle: handleIntegrationPublic })),
    ),
    {
      method: "GET",
      path: "/v1/integrations/:integrationName/installations/:installationId/sites/:siteId/script.js",
      handle: async (ctx) => {
        const params = parseInput(installationParams.extend({ siteId: pathId() }), ctx.params, "path");
        const response = await integration.scripts.getPublishedScript({
          name: params.integrationName,
          installationId: params.installationId,
          siteId: params.siteId,
        });
        sendScriptResponse(ctx, response);
      },
    },
  ];
}
