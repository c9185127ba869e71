import { AppError } from "@imprint/runtime";
import { defineEntity, p } from "@mikro-orm/postgresql";

export type GitDirection = "import" | "export";
export type GitOperationState = "running" | "success" | "failure";

export type GitSyncDirection = "both" | "import" | "export";
export type GitSyncPriority = "git" | "imprint";
export const GIT_SYNC_DIRECTIONS: readonly GitSyncDirection[] = ["both", "import", "export"];
export const GIT_SYNC_PRIORITIES: readonly GitSyncPriority[] = ["git", "imprint"];

/** A space's connection for Git Sync both ways: what runs by itself, which side wins, and on whose behalf. */
export interface GitConnectionValue {
  direction: GitSyncDirection;
  priority: GitSyncPriority;
  /** The user who connected the space: the actor of the syncs it runs. */
  connectedBy: string;
  connectedAt: string;
  hasCredentials: boolean;
  /** Where the repository host posts its push webhooks (under IMPRINT_PUBLIC_URL at connection time). */
  webhookUrl: string;
}

/** The direction a connection asks for; empty: both. */
export function parseSyncDirection(value: string): GitSyncDirection {
  if (value === "") return "both";
  if (!(GIT_SYNC_DIRECTIONS as readonly string[]).includes(value))
    throw AppError.invalidArgument(`direction: must be one of ${GIT_SYNC_DIRECTIONS.join(", ")}`);
  return value as GitSyncDirection;
}

/** Which side a connection lets win; empty: git. */
export function parseSyncPriority(value: string): GitSyncPriority {
  if (value === "") return "git";
  if (!(GIT_SYNC_PRIORITIES as readonly string[]).includes(value)) throw AppError.invalidArgument(`priority: must be one of ${GIT_SYNC_PRIORITIES.join(", ")}`);
  return value as GitSyncPriority;
}

export const CREDENTIAL_USERNAME_MAX = 256;
export const CREDENTIAL_TOKEN_MAX = 4096;

/**
 * The basic-auth header a connection keeps: from `username`/`token`, else from the URL's own
 * credentials; never both. A user name alone is refused (it authenticates nothing).
 */
export function connectionAuthorization(input: { username: string; token: string; urlAuthorization: string | undefined }): string | undefined {
  if (input.username.length > CREDENTIAL_USERNAME_MAX) throw AppError.invalidArgument(`username: must be at most ${CREDENTIAL_USERNAME_MAX} characters`);
  if (input.token.length > CREDENTIAL_TOKEN_MAX) throw AppError.invalidArgument(`token: must be at most ${CREDENTIAL_TOKEN_MAX} characters`);
  if (input.token === "") {
    if (input.username !== "") throw AppError.invalidArgument("token: is required with username");
    return input.urlAuthorization;
  }
  if (input.urlAuthorization) throw AppError.invalidArgument("url: must not hold credentials when username and token are given");
  return `Basic ${Buffer.from(`${input.username || "git"}:${input.token}`).toString("base64")}`;
}

/** What the connection keeps sealed (SecretBox, the space's id as associated data). */
export interface GitConnectionSecrets {
  /** Basic-auth header value for the repository; absent without credentials. */
  authorization?: string;
  /** The secret webhooks are signed with. */
  webhookSecret: string;
}

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
 * repository path is (so a re-import updates the same pages), and the last operation; and, once
 * the space is connected, the connection (direction, priority) and its sealed secrets.
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
    /** The connection for Git Sync both ways; null when the space is not connected. */
    connection: p.json<GitConnectionValue>().nullable(),
    /** The connection's credentials and webhook secret, sealed (never in clear); null when not connected. */
    secretsCiphertext: p.blob().nullable(),
    /** The commit a push (webhook or poll) announced, waiting for the Git sync job to import the ref; null when none waits. */
    pendingCommit: p.string().length(64).nullable(),
    /** Failed attempts at importing it so far (each retry waits twice as long). */
    pendingAttempts: p.integer().default(0),
    /** When the job may try it (next); null when none waits. */
    pendingDueAt: p.datetime().nullable(),
    /** The space's revision a head move (a merge, a direct edit) queued for export; null when none waits. */
    exportRevisionId: p.string().length(64).nullable(),
    /** Who moved the head: the author of the exported commit. */
    exportActorId: p.string().length(64).nullable(),
    /** Failed attempts at that export so far. */
    exportAttempts: p.integer().default(0),
    /** When the job may try it (next); null when none waits or it was given up. */
    exportDueAt: p.datetime().nullable(),
    /** Until when the running operation holds the space (the work queue's lease); null when none runs. */
    leaseExpiresAt: p.datetime().nullable(),
    updatedAt: p.datetime(),
  },
});
export class GitSync extends GitSyncSchema.class {}
GitSyncSchema.setClass(GitSync);

export const gitEntities = [GitSync];
