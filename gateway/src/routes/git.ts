import { z } from "zod";
import { toRestGitSync, toRestGitSyncConnection } from "../mappers/git.js";
import { readBodyBytes } from "../middleware/json-body.js";
import { defineRoute, noContent, ok, type Route } from "../route.js";
import { parseInput, pathId } from "../validation.js";
import type { DirectRoute, RouteDeps } from "./deps.js";

/**
 * Git sync of a space (docs/git.md): importGitRepository, exportToGitRepository and
 * getSpaceGitInfo. GitBook queues imports and exports and answers 204 at once; Imprint runs them
 * before answering (still 204), so failures answer as errors (a conflict 409, a limit 413, an
 * unreachable repository 400) and getSpaceGitInfo reports the finished operation.
 */

/** Fetching, converting and writing a large repository takes longer than an ordinary call. */
export const GIT_TIMEOUT_MS = 240_000;

const spaceParams = z.object({ spaceId: pathId() });

/** GitBook's fields that only matter to its queue or its providers are accepted and not used. */
const ignoredFields = {
  repoCacheID: z.string().optional(),
  repoTreeURL: z.string().optional(),
  repoCommitURL: z.string().optional(),
  timestamp: z.string().optional(),
  force: z.boolean().optional(),
  standalone: z.boolean().optional(),
  gitInfo: z.object({ provider: z.string().optional(), url: z.string().optional() }).optional(),
};

export const importGitBody = z.object({
  url: z.string().min(1),
  ref: z.string().min(1),
  repoProjectDirectory: z.string().optional(),
  /** Imprint's extension: import into this change request (id or number) instead of the space. */
  changeRequest: z.union([z.string().min(1).max(128), z.number().int().positive()]).optional(),
  ...ignoredFields,
});

export const exportGitBody = z.object({
  url: z.string().min(1),
  ref: z.string().min(1),
  commitMessage: z.string().min(1),
  repoProjectDirectory: z.string().optional(),
  ...ignoredFields,
});

/** Imprint's Git Sync connection (docs/git.md): the values are checked by content (a second gRPC client obeys the same rules). */
export const gitSyncConnectionBody = z.strictObject({
  url: z.string().min(1),
  ref: z.string().min(1),
  projectDirectory: z.string().optional(),
  username: z.string().optional(),
  token: z.string().optional(),
  direction: z.string().optional(),
  priority: z.string().optional(),
  rotateWebhookSecret: z.boolean().optional(),
});

export function gitRoutes({ upstreams }: RouteDeps): Route[] {
  const git = upstreams.content.git;
  return [
    // importGitRepository
    defineRoute({
      method: "POST",
      path: "/v1/spaces/:spaceId/git/import",
      params: spaceParams,
      body: importGitBody,
      handler: async ({ params, body, principal }) => {
        await git.importGitRepository(
          {
            caller: principal.caller,
            ref: { spaceId: params.spaceId, changeRequestId: body.changeRequest === undefined ? "" : String(body.changeRequest), revisionId: "" },
            url: body.url,
            gitRef: body.ref,
            projectDirectory: body.repoProjectDirectory ?? "",
          },
          { timeoutMs: GIT_TIMEOUT_MS },
        );
        return noContent();
      },
    }),

    // exportToGitRepository
    defineRoute({
      method: "POST",
      path: "/v1/spaces/:spaceId/git/export",
      params: spaceParams,
      body: exportGitBody,
      handler: async ({ params, body, principal }) => {
        await git.exportToGitRepository(
          {
            caller: principal.caller,
            spaceId: params.spaceId,
            url: body.url,
            gitRef: body.ref,
            commitMessage: body.commitMessage,
            projectDirectory: body.repoProjectDirectory ?? "",
          },
          { timeoutMs: GIT_TIMEOUT_MS },
        );
        return noContent();
      },
    }),

    // getSpaceGitInfo
    defineRoute({
      method: "GET",
      path: "/v1/spaces/:spaceId/git/info",
      params: spaceParams,
      handler: async ({ params, principal }) => ok(toRestGitSync((await git.getSpaceGitInfo({ caller: principal.caller, spaceId: params.spaceId })).gitSync)),
    }),

    // Imprint's extension: connect the space for Git Sync both ways (replaces the connection)
    defineRoute({
      method: "PUT",
      path: "/v1/spaces/:spaceId/git/sync",
      params: spaceParams,
      body: gitSyncConnectionBody,
      handler: async ({ params, body, principal }) => {
        const answer = await git.updateGitSyncConnection({
          caller: principal.caller,
          spaceId: params.spaceId,
          url: body.url,
          gitRef: body.ref,
          projectDirectory: body.projectDirectory ?? "",
          username: body.username ?? "",
          token: body.token ?? "",
          direction: body.direction ?? "",
          priority: body.priority ?? "",
          rotateWebhookSecret: body.rotateWebhookSecret ?? false,
        });
        return ok(toRestGitSyncConnection(answer.gitSync, answer.webhookSecret));
      },
    }),

    // Imprint's extension: the connection and its last sync (never a secret)
    defineRoute({
      method: "GET",
      path: "/v1/spaces/:spaceId/git/sync",
      params: spaceParams,
      handler: async ({ params, principal }) =>
        ok(toRestGitSyncConnection((await git.getGitSyncConnection({ caller: principal.caller, spaceId: params.spaceId })).gitSync)),
    }),

    // Imprint's extension: disconnect
    defineRoute({
      method: "DELETE",
      path: "/v1/spaces/:spaceId/git/sync",
      params: spaceParams,
      handler: async ({ params, principal }) => {
        await git.deleteGitSyncConnection({ caller: principal.caller, spaceId: params.spaceId });
        return noContent();
      },
    }),
  ];
}

/** Push payloads are small (GitHub caps them at 25 MB; a push of many commits is well below this). */
export const GIT_WEBHOOK_BODY_LIMIT = 5 * 1024 * 1024;

/**
 * A connected space's webhook (Imprint's extension; `webhook.url` of PUT …/git/sync): reached by
 * the repository host without a token, the body read raw and handed to content, which verifies
 * the signature (GitHub, GitLab, Gitea, Forgejo) against the connection's secret: 401 when it does
 * not match, 404 when the space is not connected, else 202 `{queued, reason}`.
 */
export function gitWebhookRoute({ upstreams }: Pick<RouteDeps, "upstreams">): DirectRoute {
  const git = upstreams.content.git;
  return {
    method: "POST",
    path: "/v1/spaces/:spaceId/git/sync/webhook",
    handle: async (ctx) => {
      const params = parseInput(spaceParams, ctx.params, "path");
      const body = await readBodyBytes(ctx, GIT_WEBHOOK_BODY_LIMIT);
      const answer = await git.receiveGitWebhook({
        spaceId: params.spaceId,
        body,
        githubSignature: ctx.get("X-Hub-Signature-256"),
        gitlabToken: ctx.get("X-Gitlab-Token"),
        giteaSignature: ctx.get("X-Gitea-Signature"),
        forgejoSignature: ctx.get("X-Forgejo-Signature"),
        deliveryId: (ctx.get("X-GitHub-Delivery") || ctx.get("X-Gitlab-Event-UUID") || ctx.get("X-Gitea-Delivery") || ctx.get("X-Forgejo-Delivery")).slice(
          0,
          200,
        ),
      });
      ctx.status = 202;
      ctx.body = { queued: answer.queued, ...(answer.reason ? { reason: answer.reason } : {}) };
    },
  };
}
