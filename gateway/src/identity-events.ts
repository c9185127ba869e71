import type { Logger } from "@imprint/runtime/core";
import { followEvents, type EventWatch, type NatsLink } from "@imprint/runtime/watch";
import type { TokenAuthenticator } from "./auth.js";

/**
 * Follows identity's events for the token cache: `token.revoked` refuses the token at once (even
 * while identity is unreachable), an event about a user (member added, removed, role changed, SSO
 * required, profile changed) has their principals verified again. While disconnected, and for
 * principals verified before a reconnect, nothing is used stale (an event may have been missed).
 */
export function followIdentityEvents(nc: NatsLink, authenticator: TokenAuthenticator, logger: Logger): EventWatch {
  return followEvents(nc, {
    contexts: ["identity"],
    onEvent: (envelope, subject) => {
      const { tokenId, userId } = envelope.payload;
      if (subject.endsWith(".token.revoked")) {
        if (typeof tokenId === "string") authenticator.revokeToken(tokenId);
      } else if (typeof userId === "string") {
        authenticator.forgetUser(userId);
      }
    },
    follower: authenticator,
    logger,
  });
}
