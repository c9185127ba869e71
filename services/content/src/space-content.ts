import { purgeGitState, spaceGitSyncOf } from "./git/index.js";
import { purgeImportRuns } from "./import/index.js";
import { createInitialRevision, deleteOrphanedBlobs, duplicateSpaceContent, purgeSpaceContent } from "./revisions/index.js";
import type { SpaceContent } from "./deps.js";

/** Spaces' port to the modules holding a space's content, from their façades (see SpaceContent in deps.ts). */
export const spaceContent: SpaceContent = {
  createInitialRevision,
  duplicateContent: duplicateSpaceContent,
  purgeContent: async (tx, spaceId) => {
    const content = await purgeSpaceContent(tx, spaceId);
    await purgeGitState(tx, spaceId);
    await purgeImportRuns(tx, spaceId);
    return content;
  },
  deleteOrphanedBlobs,
  gitSync: spaceGitSyncOf,
};
