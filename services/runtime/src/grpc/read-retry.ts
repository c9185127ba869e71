import { status as GrpcStatus } from "@grpc/grpc-js";

/**
 * How reads are retried, over gRPC (the service config below) and between co-hosted targets
 * (callCoHosted) alike: the pause before attempt n+1 is at most initial × multiplier^(n-1), capped.
 * A copy shut down under a call (forceShutdown) resets its streams with CANCEL, which reaches the
 * caller as CANCELLED; our own cancellations never retry (the call is over).
 */
export const READ_RETRY = {
  maxAttempts: 3,
  initialBackoffMs: 50,
  maxBackoffMs: 200,
  backoffMultiplier: 2,
  retryableStatuses: [GrpcStatus.UNAVAILABLE, GrpcStatus.CANCELLED],
} as const;
