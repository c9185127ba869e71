import { SessionServiceService, type StartedSession as StartedSessionMessage } from "@imprint/proto/identity/v1/sessions";
import type { EntityManager } from "@mikro-orm/postgresql";
import { type AsyncImplementation } from "@imprint/runtime";
import { endAllSessions } from "../use-cases/sessions/end-all-sessions.js";
import { endSession } from "../use-cases/sessions/end-session.js";
import { joinWithPassword } from "../use-cases/sessions/join-with-password.js";
import { createPasswordReset } from "../use-cases/sessions/create-password-reset.js";
import { resetPassword } from "../use-cases/sessions/reset-password.js";
import { setPassword } from "../use-cases/sessions/set-password.js";
import type { StartedSession } from "../use-cases/sessions/shared.js";
import { signInWithPassword } from "../use-cases/sessions/sign-in-with-password.js";
import type { UseCaseDeps } from "../deps.js";
import { sessionToProto, userToProto } from "./mappers.js";

export const SESSION_SERVICE_NAME = "imprint.identity.v1.SessionService";

export function startedToProto(started: StartedSession): StartedSessionMessage {
  return { session: sessionToProto(started.session), secret: started.secret, user: userToProto(started.user) };
}

/** Thin transport: each handler runs one use case on a fresh EntityManager and maps its answer. */
export function sessionServiceImplementation(em: () => EntityManager, useCaseDeps: UseCaseDeps): AsyncImplementation<typeof SessionServiceService> {
  return {
    signInWithPassword: async (request) => {
      const outcome = await signInWithPassword(em(), { email: request.email, password: request.password }, useCaseDeps);
      return { started: outcome.started ? startedToProto(outcome.started) : undefined, lockedForSeconds: outcome.lockedForSeconds };
    },

    endSession: async (request) => endSession(em(), { caller: request.caller }, useCaseDeps),

    endAllSessions: async (request) => endAllSessions(em(), { caller: request.caller }, useCaseDeps),

    setPassword: async (request) => setPassword(em(), { email: request.email, password: request.password }, useCaseDeps),

    createPasswordReset: async (request) => createPasswordReset(em(), { email: request.email }, useCaseDeps),

    resetPassword: async (request) => resetPassword(em(), { token: request.token, password: request.password }, useCaseDeps),

    joinWithPassword: async (request) => ({
      started: startedToProto(
        await joinWithPassword(
          em(),
          {
            organizationId: request.organizationId,
            inviteId: request.inviteId,
            email: request.email,
            password: request.password,
            displayName: request.displayName,
          },
          useCaseDeps,
        ),
      ),
    }),
  };
}
