import type { ParameterizedContext } from "koa";
import type { Principal } from "./auth.js";

/** What the gateway's middleware leaves on `ctx.state` for later middleware and the access log. */
export interface GatewayState {
  requestId: string;
  principal?: Principal;
  /** The request's token being verified, once the rate limiter asked (the route pipeline awaits the same answer). */
  authentication?: Promise<Principal>;
  /** The message of the error the request was answered with (what the client read), for the access log. */
  failure?: string;
  /** The request's Idempotency-Key at work (see middleware/idempotency.ts); absent without the header. */
  idempotency?: RequestIdempotency;
}

/** What a route answers instead of running, for its Idempotency-Key: a replay, or why the key cannot be used. */
export interface IdempotentAnswer {
  status: number;
  headers: Record<string, string>;
  body: unknown;
}

/** A request's Idempotency-Key, as the route pipeline sees it. */
export interface RequestIdempotency {
  /** Once authenticated and its body read: undefined to run the request, else the answer to send instead. */
  begin(rawBody: Buffer): Promise<IdempotentAnswer | undefined>;
  /** Runs the route's work with the request's write keys in scope: each upstream write it makes carries its own (keyed-writes.ts). */
  run<T>(work: () => Promise<T>): Promise<T>;
}

export type GatewayContext = ParameterizedContext<GatewayState>;
