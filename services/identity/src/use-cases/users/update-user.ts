import type { EntityManager } from "@mikro-orm/postgresql";
import { AppError, parseUpdateMask, recordEvent } from "@imprint/runtime";
import { userUpdated } from "../../events.js";
import { isInstallationPrincipal, updateUserProfile, validatePhotoUrl, validateUserDisplayName, type UserProfileChanges } from "../../domain/user.js";
import type { UserData } from "../shared/views.js";
import { requireVisibleUser } from "../shared/user-visibility.js";
import { requireCaller } from "../shared/validation.js";
import type { CallerInput, UseCaseDeps } from "../../deps.js";

const UPDATABLE_FIELDS = ["display_name", "photo_url"] as const;

export interface UpdateUserInput {
  caller: CallerInput | undefined;
  userId: string;
  /** Field paths, snake_case or camelCase. */
  updateMask: string[];
  displayName: string;
  photoUrl: string;
}

/**
 * Changes the caller's own display name or photo URL and records `user.updated` when a value
 * really changed. Another user the caller can see is permission_denied, and so is an integration
 * installation's principal changing itself; a user the caller cannot see is "User not found".
 */
export async function updateUser(em: EntityManager, input: UpdateUserInput, deps: UseCaseDeps): Promise<UserData> {
  const caller = requireCaller(input.caller);
  const fields = parseUpdateMask(input.updateMask, UPDATABLE_FIELDS);
  const changes: UserProfileChanges = {};
  if (fields.has("display_name")) changes.displayName = validateUserDisplayName("display_name", input.displayName);
  if (fields.has("photo_url")) changes.photoUrl = validatePhotoUrl("photo_url", input.photoUrl);

  return deps.unitOfWork.run(em, async (tx) => {
    const user = await requireVisibleUser(tx, caller.userId, input.userId);
    if (user.id !== caller.userId) throw AppError.permissionDenied("update another user's profile");
    // Its name is its integration's title, set at each token issue: a script must not pass for another.
    if (isInstallationPrincipal(user))
      throw AppError.permissionDenied("An integration installation cannot change its profile: its name is its integration's title");
    const changed = updateUserProfile(user, changes);
    if (Object.keys(changed).length > 0) {
      recordEvent(tx, userUpdated, {
        organizationId: null,
        actor: caller,
        payload: { userId: user.id, changedFields: Object.keys(changed), changes: changed },
      });
    }
    return { id: user.id, email: user.email, displayName: user.displayName, photoUrl: user.photoUrl };
  });
}
