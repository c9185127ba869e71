import { UserServiceService } from "@imprint/proto/identity/v1/users";
import type { EntityManager } from "@mikro-orm/postgresql";
import { type AsyncImplementation } from "@imprint/runtime";
import { batchGetUsers } from "../use-cases/users/batch-get-users.js";
import { createUser } from "../use-cases/users/create-user.js";
import { getUser } from "../use-cases/users/get-user.js";
import { updateUser } from "../use-cases/users/update-user.js";
import type { UseCaseDeps } from "../deps.js";
import { userToProto } from "./mappers.js";

export const USER_SERVICE_NAME = "imprint.identity.v1.UserService";

/**
 * Thin transport: each handler checks the request's shape (enums), runs one use case on a fresh
 * EntityManager (`em()`) with the deps service.ts built, and maps the result to proto messages.
 * Rules live in the use cases and the domain.
 */
export function userServiceImplementation(em: () => EntityManager, useCaseDeps: UseCaseDeps): AsyncImplementation<typeof UserServiceService> {
  return {
    getUser: async (request) => {
      const user = await getUser(em(), { caller: request.caller, userId: request.userId }, useCaseDeps);
      return { user: userToProto(user) };
    },

    updateUser: async (request) => {
      const user = await updateUser(
        em(),
        {
          caller: request.caller,
          userId: request.userId,
          updateMask: request.updateMask ?? [],
          displayName: request.displayName,
          photoUrl: request.photoUrl,
        },
        useCaseDeps,
      );
      return { user: userToProto(user) };
    },

    batchGetUsers: async (request) => {
      const users = await batchGetUsers(em(), { userIds: request.userIds }, useCaseDeps);
      return { users: users.map(userToProto) };
    },

    createUser: async (request) => {
      const result = await createUser(em(), { email: request.email, displayName: request.displayName }, useCaseDeps);
      return { user: userToProto(result.user), created: result.created };
    },
  };
}
