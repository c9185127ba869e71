import type { Logger } from "@imprint/runtime/core";
import { followEvents, type EventWatch, type NatsLink } from "@imprint/runtime/watch";
import { identityEvents } from "@imprint/proto/identity/v1/event-contracts";
import type { TokenAuthenticator } from "./auth.js";

/**
 * Follows identity's events for the token cache: `token.revoked` refuses the token at once (even
 * while identity is unreachable), an event about a user (member added, removed, role changed, SSO
 * required, profile changed) has their principals verified again. While disconnected, and for
 * principals verified before a reconnect, nothing is used stale (an event may have been missed).
 */
export function followIdentityEvents(nc: NatsLink, authenticator: TokenAuthenticator, logger: Logger): EventWatch {
  return followEvents(nc, {
    events: identityEvents,
    onEvent: (event) => {
      if (event.type === "token.revoked") {
        if (event.payload.tokenId) authenticator.revokeToken(event.payload.tokenId);
      } else if ("userId" in event.payload && event.payload.userId) {
        authenticator.forgetUser(event.payload.userId);
      }
    },
    follower: authenticator,
    logger,
  });
}
