import { defineEntity, p } from "@mikro-orm/postgresql";

export type GitDirection = "import" | "export";
export type GitOperationState = "running" | "success" | "failure";

export interface GitOperationValue {
  direction: GitDirection;
  state: GitOperationState;
  startedAt: string;
  endedAt?: string;
  error?: string;
}

/**
 * A space's Git sync: the repository and ref it was last imported from or exported to (the URL
 * without credentials: they are never stored), the commit of that sync and the revision holding
 * the same content (the base of the next import's three-way merge), which page and file each
 * repository path is (so a re-import updates the same pages), and the last operation.
 */
export const GitSyncSchema = defineEntity({
  name: "GitSync",
  tableName: "git_syncs",
  properties: {
    spaceId: p.uuid().primary(),
    organizationId: p.uuid(),
    url: p.text(),
    ref: p.text(),
    projectDirectory: p.text().default(""),
    /** The commit of the last successful sync; null before the first one. */
    commitOid: p.string().length(64).nullable(),
    commitMessage: p.text().default(""),
    /** Whether that commit was made by an export. */
    commitByService: p.boolean().default(false),
    /** The revision whose content is the commit's (null before the first sync). */
    revisionId: p.uuid().nullable(),
    /** Repository path → page id. */
    pages: p.json<Record<string, string>>().default("{}"),
    /** Repository path → file id. */
    files: p.json<Record<string, string>>().default("{}"),
    operation: p.json<GitOperationValue>().nullable(),
    /** Until when the running operation holds the space (the work queue's lease); null when none runs. */
    leaseExpiresAt: p.datetime().nullable(),
    updatedAt: p.datetime(),
  },
});
export class GitSync extends GitSyncSchema.class {}
GitSyncSchema.setClass(GitSync);

export const gitEntities = [GitSync];
