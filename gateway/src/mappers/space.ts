import { ContentLevel, SpaceEditMode, SpaceVisibility, type Space, type SpaceMergeRules, type SpacePermissions } from "@imprint/proto/content/v1/spaces";
import { AppError } from "@imprint/runtime/core";
import { z } from "zod";
import { toRestGitSync } from "./git.js";
import { ROLE_NAMES, type RoleName } from "./role.js";
import { siteBaseUrl, type PublicUrls } from "./urls.js";

/** GitBook's `DefaultLevel`: a role, null (no default access) or "inherit" (the parent's). */
export type RestDefaultLevel = RoleName | "inherit" | null;
export const defaultLevelSchema = z.enum([...ROLE_NAMES, "inherit"]).nullable();

const LEVEL_BY_NAME: Readonly<Record<RoleName | "inherit", ContentLevel>> = {
  admin: ContentLevel.CONTENT_LEVEL_ADMIN,
  create: ContentLevel.CONTENT_LEVEL_CREATE,
  review: ContentLevel.CONTENT_LEVEL_REVIEW,
  edit: ContentLevel.CONTENT_LEVEL_EDIT,
  comment: ContentLevel.CONTENT_LEVEL_COMMENT,
  read: ContentLevel.CONTENT_LEVEL_READ,
  inherit: ContentLevel.CONTENT_LEVEL_INHERIT,
};

export function toProtoLevel(level: RestDefaultLevel): ContentLevel {
  return level === null ? ContentLevel.CONTENT_LEVEL_NONE : LEVEL_BY_NAME[level];
}

export function toRestLevel(level: ContentLevel): RestDefaultLevel {
  if (level === ContentLevel.CONTENT_LEVEL_NONE) return null;
  const entry = Object.entries(LEVEL_BY_NAME).find(([, value]) => value === level);
  // The contract says unspecified never appears in a response; if it does, it is a bug upstream.
  if (!entry) throw new AppError("internal", `upstream answered an unknown content level ${String(level)}`);
  return entry[0] as RoleName | "inherit";
}

/** A member's level on a space is a real role, never inherit or null. */
export function toRestMemberLevel(level: ContentLevel): RoleName {
  const rest = toRestLevel(level);
  if (rest === null || rest === "inherit") throw new AppError("internal", "upstream answered a member level that is not a role");
  return rest;
}

export const VISIBILITY_NAMES = ["public", "unlisted", "share-link", "visitor-auth", "in-collection", "private"] as const;
export type VisibilityName = (typeof VISIBILITY_NAMES)[number];

const VISIBILITY_BY_NAME: Readonly<Record<VisibilityName, SpaceVisibility>> = {
  public: SpaceVisibility.SPACE_VISIBILITY_PUBLIC,
  unlisted: SpaceVisibility.SPACE_VISIBILITY_UNLISTED,
  "share-link": SpaceVisibility.SPACE_VISIBILITY_SHARE_LINK,
  "visitor-auth": SpaceVisibility.SPACE_VISIBILITY_VISITOR_AUTH,
  "in-collection": SpaceVisibility.SPACE_VISIBILITY_IN_COLLECTION,
  private: SpaceVisibility.SPACE_VISIBILITY_PRIVATE,
};

export function toProtoVisibility(name: VisibilityName): SpaceVisibility {
  return VISIBILITY_BY_NAME[name];
}

function toRestVisibility(visibility: SpaceVisibility): VisibilityName {
  const entry = Object.entries(VISIBILITY_BY_NAME).find(([, value]) => value === visibility);
  if (!entry) throw new AppError("internal", `upstream answered an unknown visibility ${String(visibility)}`);
  return entry[0] as VisibilityName;
}

export function toProtoEditMode(mode: "live" | "locked"): SpaceEditMode {
  return mode === "live" ? SpaceEditMode.SPACE_EDIT_MODE_LIVE : SpaceEditMode.SPACE_EDIT_MODE_LOCKED;
}

export interface RestSpacePermissions {
  view: boolean;
  access: boolean;
  admin: boolean;
  viewInviteLinks: boolean;
  edit: boolean;
  triggerGitSync: boolean;
  comment: boolean;
  merge: boolean;
  review: boolean;
  installIntegration: boolean;
}

export interface RestSpace {
  object: "space";
  id: string;
  title: string;
  emoji: string;
  visibility: VisibilityName;
  createdAt: string;
  updatedAt: string;
  deletedAt?: string;
  editMode: "live" | "locked";
  /** GitBook's TranslationLanguage code, when the space has one. */
  language?: string;
  organization: string;
  parent?: string;
  revision: string;
  defaultLevel: RestDefaultLevel;
  comments: number;
  changeRequests: number;
  changeRequestsOpen: number;
  changeRequestsDraft: number;
  mergeRules: RestSpaceMergeRules;
  urls: { location: string; app: string; published?: string };
  permissions: RestSpacePermissions;
  /** GitSyncState, on a space read by id once it was synced with Git (docs/git.md). */
  gitSync?: Record<string, unknown>;
}

/** GitBook's MergeRulesSpaceConfiguration: `inherit`, `none`, or `rules` each with its users where it names some. */
export type RestSpaceMergeRules = { type: "inherit" } | { type: "none" } | { type: "rules"; rules: { rule: string; users?: string[] }[] };

function toRestSpaceMergeRules(mergeRules: SpaceMergeRules | undefined): RestSpaceMergeRules {
  if (mergeRules?.type === "none") return { type: "none" };
  if (mergeRules?.type !== "rules") return { type: "inherit" };
  return { type: "rules", rules: mergeRules.rules.map(({ rule, userIds }) => (userIds.length > 0 ? { rule, users: userIds } : { rule })) };
}

function toRestPermissions(p: SpacePermissions | undefined): RestSpacePermissions {
  return {
    view: p?.view ?? false,
    access: p?.access ?? false,
    admin: p?.admin ?? false,
    viewInviteLinks: p?.viewInviteLinks ?? false,
    edit: p?.edit ?? false,
    triggerGitSync: p?.triggerGitSync ?? false,
    comment: p?.comment ?? false,
    merge: p?.merge ?? false,
    review: p?.review ?? false,
    installIntegration: p?.installIntegration ?? false,
  };
}

/** API URL of a space (also its `Location` when created). */
export function spaceLocation(urls: PublicUrls, spaceId: string): string {
  return `${urls.api}/v1/spaces/${encodeURIComponent(spaceId)}`;
}

/**
 * GitBook's space object. `urls.published` is the address of the site-space showing it on the
 * earliest published site (publishing's announcement, kept by content), absent while no published
 * site shows it; `urls.public` is left out. `mergeRules` is the space's own (`none`, `rules`), or
 * `inherit` (the organization's apply).
 */
export function toRestSpace(space: Space | undefined, urls: PublicUrls): RestSpace {
  if (!space) throw new AppError("internal", "upstream answered without a space");
  const organization = encodeURIComponent(space.organizationId);
  const rest: RestSpace = {
    object: "space",
    id: space.id,
    title: space.title,
    emoji: space.emoji,
    visibility: toRestVisibility(space.visibility),
    createdAt: (space.createdAt ?? new Date(0)).toISOString(),
    updatedAt: (space.updatedAt ?? new Date(0)).toISOString(),
    editMode: space.editMode === SpaceEditMode.SPACE_EDIT_MODE_LOCKED ? "locked" : "live",
    organization: space.organizationId,
    revision: space.revisionId,
    defaultLevel: toRestLevel(space.defaultLevel),
    comments: space.comments,
    changeRequests: space.changeRequests,
    changeRequestsOpen: space.changeRequestsOpen,
    changeRequestsDraft: space.changeRequestsDraft,
    mergeRules: toRestSpaceMergeRules(space.mergeRules),
    urls: { location: spaceLocation(urls, space.id), app: `${urls.app}/o/${organization}/s/${encodeURIComponent(space.id)}/` },
    permissions: toRestPermissions(space.permissions),
  };
  if (space.deletedAt) rest.deletedAt = space.deletedAt.toISOString();
  if (space.parentId) rest.parent = space.parentId;
  if (space.language) rest.language = space.language;
  if (space.gitSync) rest.gitSync = toRestGitSync(space.gitSync);
  const address = space.publishedAddress;
  if (address) {
    const section = address.sectionPath ? `${encodeURIComponent(address.sectionPath)}/` : "";
    rest.urls.published = `${siteBaseUrl(address, urls)}${section}${encodeURIComponent(address.path)}/`;
  }
  return rest;
}
