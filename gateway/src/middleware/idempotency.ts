import { createHash } from "node:crypto";
import { Readable } from "node:stream";
import type { Logger } from "@imprint/runtime/core";
import { SESSION_COOKIE } from "../auth.js";
import type { Middleware } from "koa";
import type { GatewayContext, GatewayState, IdempotentAnswer, RequestIdempotency } from "../context.js";
import type { IdempotencyRecord, IdempotencyStore } from "../idempotency-store.js";
import { ChunkedBody } from "./chunked-body.js";
import type { WriteKeys } from "../keyed-writes.js";

/**
 * `Idempotency-Key` on POST, PUT, PATCH and DELETE (the IETF httpapi draft's header, as Stripe
 * uses it), so that a client, or anything between it and the gateway, can retry a write safely:
 * - the first request with a key runs, and its answer (status, body, Location, Content-Type...)
 *   is kept for IDEMPOTENCY_TTL_MS, scoped to the token (or session cookie), the method and the path;
 * - a retry with the key is answered that answer again, with `Idempotent-Replayed: true`, and
 *   runs nothing;
 * - the same key with another body (a SHA-256 of the raw bytes) is 422; while the first request
 *   is still running, 409 with Retry-After; the running request renews its record every few
 *   seconds, so a record nobody renewed for the abandon limit (its gateway stopped mid-request)
 *   is taken over by the retry, which runs;
 * - answers 5xx are not kept (a retry after an outage runs again), 4xx are; answers larger than
 *   MAX_KEPT_BODY_BYTES (or streamed) are not replayable: a retry is 409 saying so;
 * - a request refused before it ran (no valid token, a body too large or not JSON) keeps nothing.
 * Requests without the header, and GET, are unchanged.
 *
 * That replays finished requests. An answer lost on its way from a service (its copy killed after
 * the commit, the connection cut) is covered by the second layer: each write call the request makes
 * carries a key of its own, derived from this record's id and the body, which the service answers
 * at most once (keyed-writes.ts); so the gateway repeats such a call itself, and the retry after a
 * 5xx runs the request again without doing any of its writes twice.
 */

export const IDEMPOTENCY_KEY_HEADER = "Idempotency-Key";
export const REPLAYED_HEADER = "Idempotent-Replayed";
/** The largest answer body kept for replay (NATS messages are at most 1 MiB). */
export const MAX_KEPT_BODY_BYTES = 512 * 1024;
/**
 * How long after its last renewal a "running" record counts as abandoned (its gateway stopped
 * mid-request), so that a retry takes it over, beyond the upstream deadline: by then no call the
 * stopped gateway made can still be running upstream, so the retry cannot race it.
 */
export function abandonedAfterMs(upstreamTimeoutMs: number): number {
  return upstreamTimeoutMs + 5_000;
}

/** The lease of a running request: how long a record may go unrenewed, and how often it is renewed. */
export interface IdempotencyLease {
  abandonedAfterMs: number;
  renewEveryMs: number;
}

/** The lease for the gateway's default upstream deadline (UPSTREAM_TIMEOUT_MS, 10 s). */
export const DEFAULT_IDEMPOTENCY_LEASE: IdempotencyLease = leaseFor(10_000);

/** A lease renewed three times within its abandon limit: one lost renewal never frees a live request. */
export function leaseFor(upstreamTimeoutMs: number): IdempotencyLease {
  const abandoned = abandonedAfterMs(upstreamTimeoutMs);
  return { abandonedAfterMs: abandoned, renewEveryMs: Math.floor(abandoned / 3) };
}

/** The id of a key's record: a hash of token (the Authorization header), method, path and key (a valid NATS KV key). */
export function idempotencyRecordId(authorization: string, method: string, path: string, key: string): string {
  return sha256(JSON.stringify([sha256(authorization), method, path, key]));
}

/**
 * What scopes a request's keys: its Authorization header, else its session cookie (a browser's
 * requests carry no header), so two people's keys never meet.
 */
function requestCredential(ctx: GatewayContext): string {
  const authorization = ctx.get("Authorization");
  if (authorization) return authorization;
  const session = ctx.cookies.get(SESSION_COOKIE);
  return session ? `Session ${session}` : "";
}

const WRITE_METHODS = new Set(["POST", "PUT", "PATCH", "DELETE"]);
/** 1–255 printable ASCII characters (space to tilde). */
const VALID_KEY = /^[\x20-\x7e]{1,255}$/;
/** The answer headers a replay repeats. */
const KEPT_HEADERS = ["location", "content-type", "cache-control", "content-disposition"];

const sha256 = (data: string | Buffer) => createHash("sha256").update(data).digest("hex");

function errorAnswer(status: number, message: string): IdempotentAnswer {
  return { status, headers: {}, body: { error: { code: status, message } } };
}

/** 409 while the first request runs, with when to retry: once it may be answered, or taken over. */
function inProgress(retryInMs: number): IdempotentAnswer {
  const answer = errorAnswer(409, "a request with this Idempotency-Key is in progress");
  answer.headers["retry-after"] = String(Math.max(1, Math.ceil(retryInMs / 1000)));
  return answer;
}

function replayOf(record: IdempotencyRecord): IdempotentAnswer {
  const body = record.body === undefined ? null : "json" in record.body ? (JSON.parse(record.body.json) as unknown) : Buffer.from(record.body.base64, "base64");
  return { status: record.status ?? 200, headers: { ...record.headers, [REPLAYED_HEADER.toLowerCase()]: "true" }, body };
}

/** Writes an answer the route did not produce by running (a replay, or a refusal of the key). */
export function sendIdempotentAnswer(ctx: GatewayContext, answer: IdempotentAnswer): void {
  ctx.status = answer.status;
  ctx.body = answer.status === 204 || answer.status === 205 ? null : answer.body;
  for (const [name, value] of Object.entries(answer.headers)) ctx.set(name, value);
  if (answer.status >= 400) ctx.state.failure = (answer.body as { error?: { message?: string } }).error?.message ?? "";
}

/**
 * One request's use of its key: the route pipeline calls `begin` once the request is authenticated
 * and its body read; the middleware calls `finish` with the answer.
 */
export class IdempotencyGate implements RequestIdempotency {
  private began = false;
  private bodyHash = "";
  private renewal: NodeJS.Timeout | undefined;
  /** The renewal being written, awaited before the answer is kept (so it cannot overwrite it). */
  private renewing: Promise<void> = Promise.resolve();

  constructor(
    private readonly store: IdempotencyStore,
    /** The record's id (idempotencyRecordId). */
    private readonly id: string,
    private readonly logger: Logger,
    private readonly lease: IdempotencyLease = DEFAULT_IDEMPOTENCY_LEASE,
    private readonly now: () => number = Date.now,
    /** Where the request's write keys are put in scope (none: its upstream writes carry no key). */
    private readonly writeKeys?: WriteKeys,
  ) {}

  /**
   * The route's work, its upstream writes keyed by this record's id and the body's hash: the same
   * request sent again (after a 5xx, which keeps no record) makes the same keys, while another body
   * under the same key makes others, so it can never be answered a write of the first.
   */
  run<T>(work: () => Promise<T>): Promise<T> {
    if (!this.writeKeys) return work();
    return this.writeKeys.run(sha256(JSON.stringify([this.id, this.bodyHash])), work);
  }

  /**
   * Starts the request under its key (undefined: run it), or answers instead (replay, 409, 422).
   * Should the store fail, the request runs as without a key.
   */
  async begin(rawBody: Buffer): Promise<IdempotentAnswer | undefined> {
    try {
      return await this.start(rawBody);
    } catch (error) {
      this.logger.warn("could not look up an Idempotency-Key: the request runs without it", { err: error });
      this.began = false;
      return undefined;
    }
  }

  private async start(rawBody: Buffer): Promise<IdempotentAnswer | undefined> {
    const bodyHash = sha256(rawBody);
    this.bodyHash = bodyHash;
    const running: IdempotencyRecord = { state: "running", bodyHash, startedAt: this.now() };
    for (let attempt = 0; attempt < 3; attempt++) {
      const created = await this.store.create(this.id, running);
      if (created.created) return this.hold(running);
      const { record, revision } = created.existing;
      if (record.bodyHash !== bodyHash) {
        return errorAnswer(422, `${IDEMPOTENCY_KEY_HEADER}: this key was used with another request body; use a new key for a new request`);
      }
      if (record.state === "done") {
        if (record.unkept)
          return errorAnswer(409, `${IDEMPOTENCY_KEY_HEADER}: the first answer to this key was too large to keep; read the result instead of retrying`);
        return replayOf(record);
      }
      const abandonsAt = (record.renewedAt ?? record.startedAt) + this.lease.abandonedAfterMs;
      if (this.now() < abandonsAt) return inProgress(abandonsAt - this.now());
      // Abandoned by a gateway that stopped mid-request: this one takes it over (once, by revision).
      if (await this.store.replace(this.id, running, revision)) return this.hold(running);
    }
    return inProgress(this.lease.renewEveryMs);
  }

  /** The request runs under its record, renewed until it is answered. */
  private hold(running: IdempotencyRecord): undefined {
    this.began = true;
    this.renewal = setInterval(() => {
      this.renewing = this.renewing
        .then(() => this.store.put(this.id, { ...running, renewedAt: this.now() }))
        .catch((error: unknown) => this.logger.warn("could not renew a running Idempotency-Key record", { err: error }));
    }, this.lease.renewEveryMs);
    this.renewal.unref();
    return undefined;
  }

  /** Keeps the answer of a request that began (unless it is 5xx, which frees the key for a retry). */
  async finish(ctx: GatewayContext): Promise<void> {
    if (!this.began) return;
    clearInterval(this.renewal);
    await this.renewing;
    const startedAt = this.now();
    // 5xx: not kept, so that a retry after an outage runs again.
    if (ctx.status >= 500) {
      await this.store.delete(this.id);
      return;
    }
    const headers: Record<string, string> = {};
    for (const name of KEPT_HEADERS) {
      const value = ctx.response.get(name);
      if (value) headers[name] = value;
    }
    const done: IdempotencyRecord = { state: "done", bodyHash: "", startedAt, status: ctx.status, headers };
    const body: unknown = ctx.body;
    if (body instanceof Readable || body instanceof ChunkedBody) done.unkept = true;
    else if (Buffer.isBuffer(body)) done.body = { base64: body.toString("base64") };
    else if (typeof body === "string") done.body = { json: JSON.stringify(body) };
    else if (body !== null && body !== undefined) done.body = { json: JSON.stringify(body) };
    const size = done.body === undefined ? 0 : Buffer.byteLength("json" in done.body ? done.body.json : done.body.base64);
    if (size > MAX_KEPT_BODY_BYTES) {
      delete done.body;
      done.unkept = true;
    }
    done.bodyHash = this.bodyHash;
    await this.store.put(this.id, done);
  }
}

/**
 * The middleware (before the error handler, so that it sees the answer a client reads): validates
 * the key (400), leaves a gate on `ctx.state.idempotency` for the route, and keeps the answer.
 * A failure of the store is logged, never answered: the request then behaves as without a key.
 */
export function idempotency(
  store: IdempotencyStore,
  logger: Logger,
  options: { lease?: IdempotencyLease; writeKeys?: WriteKeys } = {},
): Middleware<GatewayState> {
  const lease = options.lease ?? DEFAULT_IDEMPOTENCY_LEASE;
  return async (ctx, next) => {
    const key = ctx.request.headers[IDEMPOTENCY_KEY_HEADER.toLowerCase()];
    if (!WRITE_METHODS.has(ctx.method) || key === undefined) {
      await next();
      return;
    }
    if (typeof key !== "string" || !VALID_KEY.test(key)) {
      sendIdempotentAnswer(ctx, errorAnswer(400, `${IDEMPOTENCY_KEY_HEADER}: must be 1 to 255 printable ASCII characters`));
      return;
    }
    const gate = new IdempotencyGate(
      store,
      idempotencyRecordId(requestCredential(ctx), ctx.method, ctx.path, key),
      logger.child({ request_id: ctx.state.requestId }),
      lease,
      Date.now,
      options.writeKeys,
    );
    ctx.state.idempotency = gate;
    try {
      await next();
    } finally {
      try {
        await gate.finish(ctx);
      } catch (error) {
        logger.warn("could not keep the answer of a request with an Idempotency-Key", { request_id: ctx.state.requestId, err: error });
      }
    }
  };
}
