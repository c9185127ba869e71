import { GitServiceService } from "@imprint/proto/content/v1/git";
import { forkEm, type AsyncImplementation } from "@imprint/runtime";
import type { MikroORM } from "@mikro-orm/postgresql";
import type { GitDeps } from "../../deps.js";
import { gitSyncToProto } from "./mappers.js";
import { exportToGitRepository } from "../use-cases/export-to-git-repository.js";
import { deleteGitSyncConnection } from "../use-cases/delete-git-sync-connection.js";
import { getGitSyncConnection } from "../use-cases/get-git-sync-connection.js";
import { getSpaceGitInfo } from "../use-cases/get-space-git-info.js";
import { receiveGitWebhook } from "../use-cases/receive-git-webhook.js";
import { updateGitSyncConnection } from "../use-cases/update-git-sync-connection.js";
import { importGitRepository, type GitCommitValue } from "../use-cases/import-git-repository.js";

export const GIT_SERVICE_NAME = "imprint.content.v1.GitService";

const commitOf = (commit: GitCommitValue) => ({
  oid: commit.oid,
  message: commit.message,
  url: "",
  ref: commit.ref,
  createdByService: commit.createdByService,
});

/** Thin transport: one use case on a fresh EntityManager, its result mapped to the response. */
export function gitServiceImplementation(orm: MikroORM, deps: GitDeps): AsyncImplementation<typeof GitServiceService> {
  return {
    importGitRepository: async (request) => {
      const result = await importGitRepository(
        forkEm(orm),
        { caller: request.caller, ref: request.ref, url: request.url, gitRef: request.gitRef, projectDirectory: request.projectDirectory },
        deps,
      );
      return {
        revisionId: result.revisionId,
        commit: commitOf(result.commit),
        pagesCreated: result.created,
        pagesUpdated: result.updated,
        pagesDeleted: result.deleted,
        filesWritten: result.filesWritten,
        merged: result.merged,
      };
    },
    exportToGitRepository: async (request) => {
      const result = await exportToGitRepository(
        forkEm(orm),
        {
          caller: request.caller,
          spaceId: request.spaceId,
          url: request.url,
          gitRef: request.gitRef,
          commitMessage: request.commitMessage,
          projectDirectory: request.projectDirectory,
        },
        deps,
      );
      return { commit: commitOf(result.commit), pushed: result.pushed, files: result.files };
    },
    getSpaceGitInfo: async (request) => {
      const sync = await getSpaceGitInfo(forkEm(orm), { caller: request.caller, spaceId: request.spaceId }, deps);
      return { gitSync: gitSyncToProto(sync) };
    },
    updateGitSyncConnection: async (request) => {
      const { sync, webhookSecret } = await updateGitSyncConnection(
        forkEm(orm),
        {
          caller: request.caller,
          spaceId: request.spaceId,
          url: request.url,
          gitRef: request.gitRef,
          projectDirectory: request.projectDirectory,
          username: request.username,
          token: request.token,
          direction: request.direction,
          priority: request.priority,
          rotateWebhookSecret: request.rotateWebhookSecret,
        },
        deps,
      );
      return { gitSync: gitSyncToProto(sync), webhookSecret };
    },
    getGitSyncConnection: async (request) => {
      const sync = await getGitSyncConnection(forkEm(orm), { caller: request.caller, spaceId: request.spaceId }, deps);
      return { gitSync: gitSyncToProto(sync) };
    },
    deleteGitSyncConnection: async (request) => {
      await deleteGitSyncConnection(forkEm(orm), { caller: request.caller, spaceId: request.spaceId }, deps);
      return {};
    },
    receiveGitWebhook: async (request) =>
      receiveGitWebhook(
        forkEm(orm),
        {
          spaceId: request.spaceId,
          body: request.body,
          signatures: { github: request.githubSignature, gitlab: request.gitlabToken, gitea: request.giteaSignature, forgejo: request.forgejoSignature },
          deliveryId: request.deliveryId,
        },
        deps,
      ),
  };
}
