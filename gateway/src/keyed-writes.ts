import { AsyncLocalStorage } from "node:async_hooks";
import { setTimeout as sleep } from "node:timers/promises";
import { Metadata, type ServiceDefinition } from "@grpc/grpc-js";
import { AppError, IDEMPOTENCY_KEY_METADATA, isWriteRpcPath, type RpcOptions } from "@imprint/runtime/core";

/**
 * The second layer of Idempotency-Key (the first is middleware/idempotency.ts, which replays a
 * finished request's answer): while a request with a key runs, every write call it makes upstream
 * carries `imprint-idempotency-key` = `<the request's key id>:<ordinal of the write in the request>`,
 * which the service answers at most once (runtime grpc/keyed-calls.ts). So an answer lost between
 * a service's commit and the gateway (the copy killed, the connection cut) is not a duplicate when
 * the call is sent again: the gateway sends it again itself (on UNAVAILABLE, another copy), and a
 * client's retry of the whole request finds each write's kept answer. Writes without a key, and
 * reads (which the channel's service config retries), are sent as before.
 */

/** How long the gateway keeps sending a keyed write that failed UNAVAILABLE (within the call's deadline). */
export const KEYED_WRITE_RETRY_MS = 1_000;
/** Pause before each repeat: 50, 100, then 200 ms. */
const FIRST_BACKOFF_MS = 50;
const MAX_BACKOFF_MS = 200;

interface KeyedRequest {
  /** The request's key id (token, method, path, key and body, hashed). */
  id: string;
  /** Write calls made so far. */
  writes: number;
}

/** The keys of the write calls of the request in scope (one instance per gateway, shared by the clients and the middleware). */
export class WriteKeys {
  private readonly scope = new AsyncLocalStorage<KeyedRequest>();

  /** Runs a request's route with its key id in scope. */
  run<T>(id: string, work: () => Promise<T>): Promise<T> {
    return this.scope.run({ id, writes: 0 }, work);
  }

  /** The key of the request's next write call; undefined outside a request with a key. */
  next(): string | undefined {
    const request = this.scope.getStore();
    if (!request) return undefined;
    request.writes += 1;
    return `${request.id}:${request.writes}`;
  }
}

/**
 * Sends a keyed write, and again while it fails UNAVAILABLE (a copy gone or shutting down, whose
 * CANCELLED the client reads as UNAVAILABLE; or a service telling a repeat to wait for the first
 * run's answer), with backoff, for at most `retryMs` and within `timeoutMs` overall. The channel's
 * round_robin sends each attempt to the next ready copy.
 */
export async function sendKeyedWrite<T>(attempt: (timeoutMs: number) => Promise<T>, timeoutMs: number, retryMs = KEYED_WRITE_RETRY_MS): Promise<T> {
  const started = Date.now();
  for (let repeat = 0; ; repeat += 1) {
    try {
      return await attempt(Math.max(1, timeoutMs - (Date.now() - started)));
    } catch (error) {
      if (!(error instanceof AppError) || error.code !== "unavailable") throw error;
      const backoff = Math.min(MAX_BACKOFF_MS, FIRST_BACKOFF_MS * 2 ** repeat);
      const elapsed = Date.now() - started + backoff;
      if (elapsed > retryMs || elapsed >= timeoutMs) throw error;
      await sleep(backoff);
    }
  }
}

type UnaryMethod = (request: unknown, options?: RpcOptions) => Promise<unknown>;

/**
 * `client` with each write method of `definition` sending the request's write key (when a request
 * with an Idempotency-Key is in scope) and repeating on UNAVAILABLE; everything else as it is.
 */
export function withWriteKeys<Client extends object>(client: Client, definition: ServiceDefinition, writeKeys: WriteKeys, defaultTimeoutMs: number): Client {
  const keyed: Record<string, unknown> = { ...(client as Record<string, unknown>) };
  for (const [name, method] of Object.entries(definition)) {
    if (!isWriteRpcPath(method.path)) continue;
    const send = (client as Record<string, UnaryMethod>)[name];
    if (!send) continue;
    keyed[name] = (request: unknown, options: RpcOptions = {}) => {
      const key = writeKeys.next();
      if (key === undefined) return send(request, options);
      const metadata = options.metadata?.clone() ?? new Metadata();
      metadata.set(IDEMPOTENCY_KEY_METADATA, key);
      return sendKeyedWrite((timeoutMs) => send(request, { ...options, metadata, timeoutMs }), options.timeoutMs ?? defaultTimeoutMs);
    };
  }
  return keyed as Client;
}
