import type { SpaceGitSync } from "@imprint/proto/content/v1/git";
import type { PublishedGitSource } from "@imprint/proto/content/v1/published";
import type { EntityManager } from "@mikro-orm/postgresql";
import { findSync } from "../use-cases/shared/sync-state.js";
import { gitSyncToProto } from "./mappers.js";

/** A space's Git sync state as `Space.git_sync` carries it (GetSpace, through spaces' port); none when it never synced. */
export async function spaceGitSyncOf(em: EntityManager, spaceId: string): Promise<SpaceGitSync | undefined> {
  const sync = await findSync(em, spaceId);
  return sync ? gitSyncToProto(sync) : undefined;
}

/** Where a space's pages are in its synced repository (GetPublishedSpace's git_source, for the reader's edit links); none when it never synced. */
export async function publishedGitSourceOf(em: EntityManager, spaceId: string): Promise<PublishedGitSource | undefined> {
  const sync = await findSync(em, spaceId);
  if (!sync) return undefined;
  return { url: sync.url, gitRef: sync.ref, pagePaths: Object.fromEntries(Object.entries(sync.pages).map(([path, pageId]) => [pageId, path])) };
}
