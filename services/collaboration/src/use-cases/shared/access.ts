import type { SpaceMergeRules, SpacePermissions } from "@imprint/proto/content/v1/spaces";
import { AppError, callerMessage, isId, requireCaller, type CallerInput } from "@imprint/runtime";
import type { UseCaseDeps } from "../../deps.js";

/** The caller checks every context shares, from the runtime. */
export { callerMessage, isId, requireCaller, type CallerInput };

/** A space as the caller sees it, from the content service. */
export interface SpaceAccess {
  spaceId: string;
  organizationId: string;
  /** The space's current revision; empty while it has none. */
  revisionId: string;
  permissions: SpacePermissions;
  /** The space's own merge rules (type "inherit": the organization's apply; so too when content answers without them). */
  mergeRules: SpaceMergeRules;
}

export type SpaceRight = "view" | "edit" | "merge" | "comment" | "admin";

/**
 * The caller's rights on the space, from content (which owns spaces and their permissions): its
 * NOT_FOUND (missing space, another organization's, no view right) passes through unchanged;
 * lacking `need` is permission_denied.
 */
export async function requireSpace(
  deps: Pick<UseCaseDeps, "content">,
  caller: CallerInput | undefined,
  spaceId: string,
  need: SpaceRight,
): Promise<SpaceAccess> {
  const who = requireCaller(caller);
  if (!isId(spaceId)) throw AppError.notFound("Space");
  const { space } = await deps.content.spaces.getSpace({ caller: callerMessage(who), spaceId, shareKey: "" });
  if (!space?.permissions?.view) throw AppError.notFound("Space");
  if (!space.permissions[need]) throw AppError.permissionDenied(`You need the "${need}" permission on this space`);
  return {
    spaceId: space.id,
    organizationId: space.organizationId,
    revisionId: space.revisionId,
    permissions: space.permissions,
    mergeRules: space.mergeRules?.type ? space.mergeRules : { type: "inherit", rules: [] },
  };
}
