import { z } from "zod";
import { toRestUser } from "../mappers/user.js";
import { defineRoute, ok, type Route } from "../route.js";
import { pathId } from "../validation.js";
import { toMaskedUpdate } from "../update-mask.js";
import type { RouteDeps } from "./deps.js";

const userParams = z.object({ userId: pathId() });

/**
 * PATCH /v1/users/{userId}: one's own display name and photo URL. Their rules (lengths, an http(s)
 * URL) are identity's; the gateway checks shape, including that the body names a field.
 */
export const updateUserBody = z
  .object({
    displayName: z.string().optional(),
    photoURL: z.string().optional(),
  })
  .refine((body) => body.displayName !== undefined || body.photoURL !== undefined, { error: "must contain displayName or photoURL" });

export function userRoutes({ upstreams, urls }: RouteDeps): Route[] {
  const identity = upstreams.identity;
  return [
    // getAuthenticatedUser
    defineRoute({
      method: "GET",
      path: "/v1/user",
      handler: async ({ principal }) => {
        const response = await identity.users.getUser({ caller: principal.caller, userId: "" });
        return ok(toRestUser(response.user, urls));
      },
    }),

    // getUserById: the caller, or a user sharing one of its organizations.
    defineRoute({
      method: "GET",
      path: "/v1/users/:userId",
      params: userParams,
      handler: async ({ params, principal }) => {
        const response = await identity.users.getUser({ caller: principal.caller, userId: params.userId });
        return ok(toRestUser(response.user, urls));
      },
    }),

    // updateUserById: only one's own profile (another visible user is 403).
    defineRoute({
      method: "PATCH",
      path: "/v1/users/:userId",
      params: userParams,
      body: updateUserBody,
      handler: async ({ params, body, principal }) => {
        const response = await identity.users.updateUser({
          caller: principal.caller,
          userId: params.userId,
          ...toMaskedUpdate(
            body,
            { displayName: "", photoUrl: "" },
            { displayName: ["display_name", (displayName) => ({ displayName })], photoURL: ["photo_url", (photoUrl) => ({ photoUrl })] },
          ),
        });
        return ok(toRestUser(response.user, urls));
      },
    }),
  ];
}
