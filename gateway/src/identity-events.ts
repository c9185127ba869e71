import type { Logger } from "@imprint/runtime/core";
import { connectNats, followEvents, type EventWatch, type NatsConnection } from "@imprint/runtime/watch";
import type { TokenAuthenticator } from "./auth.js";

/** How often the first connection to NATS is tried again while it fails. */
const CONNECT_RETRY_MS = 1_000;

/**
 * The gateway's NATS connection, made in the background so the gateway starts and serves while
 * NATS is down; tried again every second until it succeeds or the gateway stops. Resolves to the
 * connection (undefined when stopped first).
 */
export function connectGatewayNats(url: string, logger: Logger, signal: AbortSignal): Promise<NatsConnection | undefined> {
  return (async () => {
    for (let attempt = 1; !signal.aborted; attempt++) {
      try {
        return await connectNats(url, "imprint-gateway");
      } catch (error) {
        if (attempt === 1) logger.warn("cannot connect to NATS yet, trying again every second", { setting: "NATS_URL", err: error });
        await new Promise<void>((resolve) => {
          const timer = setTimeout(resolve, CONNECT_RETRY_MS);
          signal.addEventListener("abort", () => (clearTimeout(timer), resolve()), { once: true });
        });
      }
    }
    return undefined;
  })();
}

/**
 * Follows identity's events for the token cache: `token.revoked` refuses the token at once (even
 * while identity is unreachable), an event about a user (member added, removed, role changed, SSO
 * required, profile changed) has their principals verified again. While disconnected, and for
 * principals verified before a reconnect, nothing is used stale (an event may have been missed).
 */
export function followIdentityEvents(nc: NatsConnection, authenticator: TokenAuthenticator, logger: Logger): EventWatch {
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
