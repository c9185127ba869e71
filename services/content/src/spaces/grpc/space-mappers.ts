import {
  ContentLevel,
  SpaceEditMode as SpaceEditModeMessage,
  SpaceVisibility as SpaceVisibilityMessage,
  type ContentPointer,
  type ParentTarget,
  type Position,
  type Space as SpaceMessage,
  type SpaceMergeRules as SpaceMergeRulesMessage,
  type SpacePublishedAddress,
} from "@imprint/proto/content/v1/spaces";
import type { DefaultLevel } from "../../access/index.js";
import type { SpaceMergeRules } from "../domain/merge-rules.js";
import type { SpaceEditMode, SpaceVisibility } from "../domain/space.js";
import type { PositionInput, SiblingPointer } from "../store/placement.js";
import type { SpaceView } from "../store/views.js";

const LEVEL_TO_PROTO: Record<Exclude<DefaultLevel, null>, ContentLevel> = {
  admin: ContentLevel.CONTENT_LEVEL_ADMIN,
  create: ContentLevel.CONTENT_LEVEL_CREATE,
  review: ContentLevel.CONTENT_LEVEL_REVIEW,
  edit: ContentLevel.CONTENT_LEVEL_EDIT,
  comment: ContentLevel.CONTENT_LEVEL_COMMENT,
  read: ContentLevel.CONTENT_LEVEL_READ,
  inherit: ContentLevel.CONTENT_LEVEL_INHERIT,
};

export function levelToProto(level: DefaultLevel | undefined): ContentLevel {
  // Nullable columns read as null or undefined; both mean "no default level".
  return level == null ? ContentLevel.CONTENT_LEVEL_NONE : LEVEL_TO_PROTO[level];
}

/** A default level from the wire; undefined for unspecified or unknown values. */
export function levelFromProto(level: ContentLevel): DefaultLevel | undefined {
  if (level === ContentLevel.CONTENT_LEVEL_NONE) return null;
  const entry = Object.entries(LEVEL_TO_PROTO).find(([, value]) => value === level);
  return entry ? (entry[0] as Exclude<DefaultLevel, null>) : undefined;
}

const VISIBILITY_TO_PROTO: Record<SpaceVisibility, SpaceVisibilityMessage> = {
  public: SpaceVisibilityMessage.SPACE_VISIBILITY_PUBLIC,
  unlisted: SpaceVisibilityMessage.SPACE_VISIBILITY_UNLISTED,
  "share-link": SpaceVisibilityMessage.SPACE_VISIBILITY_SHARE_LINK,
  "visitor-auth": SpaceVisibilityMessage.SPACE_VISIBILITY_VISITOR_AUTH,
  "in-collection": SpaceVisibilityMessage.SPACE_VISIBILITY_IN_COLLECTION,
  private: SpaceVisibilityMessage.SPACE_VISIBILITY_PRIVATE,
};

export function visibilityFromProto(visibility: SpaceVisibilityMessage): SpaceVisibility | undefined {
  const entry = Object.entries(VISIBILITY_TO_PROTO).find(([, value]) => value === visibility);
  return entry ? (entry[0] as SpaceVisibility) : undefined;
}

export function editModeToProto(mode: SpaceEditMode): SpaceEditModeMessage {
  return mode === "locked" ? SpaceEditModeMessage.SPACE_EDIT_MODE_LOCKED : SpaceEditModeMessage.SPACE_EDIT_MODE_LIVE;
}

export function editModeFromProto(mode: SpaceEditModeMessage): SpaceEditMode | undefined {
  if (mode === SpaceEditModeMessage.SPACE_EDIT_MODE_LIVE) return "live";
  if (mode === SpaceEditModeMessage.SPACE_EDIT_MODE_LOCKED) return "locked";
  return undefined;
}

export function spaceToProto({ space, permissions }: SpaceView): SpaceMessage {
  return {
    id: space.id,
    organizationId: space.organizationId,
    parentId: space.parentId ?? "",
    title: space.title,
    emoji: space.emoji,
    visibility: VISIBILITY_TO_PROTO[space.visibility as SpaceVisibility],
    editMode: editModeToProto(space.editMode),
    defaultLevel: levelToProto(space.defaultLevel),
    revisionId: space.revisionId ?? "",
    createdAt: space.createdAt,
    updatedAt: space.updatedAt,
    deletedAt: space.deletedAt ?? undefined,
    comments: space.comments,
    changeRequests: space.changeRequests,
    changeRequestsOpen: space.changeRequestsOpen,
    changeRequestsDraft: space.changeRequestsDraft,
    permissions,
    publishedAddress: space.publishedAddress ? (JSON.parse(space.publishedAddress) as SpacePublishedAddress) : undefined,
    mergeRules: mergeRulesToProto(space.mergeRules ?? null),
    language: space.language ?? undefined,
  };
}

/** A space's merge rules on the wire: none kept is type "inherit". */
export function mergeRulesToProto(mergeRules: SpaceMergeRules | null): SpaceMergeRulesMessage {
  if (!mergeRules) return { type: "inherit", rules: [] };
  return { type: mergeRules.type, rules: mergeRules.rules.map(({ rule, users }) => ({ rule, userIds: users ?? [] })) };
}

/** An unset parent keeps the default; a set one with an empty id is the top level. */
export function parentFromProto(parent: ParentTarget | undefined): { collectionId: string | null } | undefined {
  return parent ? { collectionId: parent.collectionId || null } : undefined;
}

function pointerFromProto(pointer: ContentPointer | undefined): SiblingPointer | undefined {
  if (!pointer) return undefined;
  if (pointer.spaceId !== undefined) return { kind: "space", id: pointer.spaceId };
  if (pointer.collectionId !== undefined) return { kind: "collection", id: pointer.collectionId };
  return undefined;
}

export function positionFromProto(position: Position | undefined): PositionInput | undefined {
  if (!position) return undefined;
  return { before: pointerFromProto(position.before), after: pointerFromProto(position.after) };
}
