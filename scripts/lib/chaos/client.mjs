// The chaos loops' REST client: every attempt recorded (route, status or 0 for no answer, when, what
// was down), writes sent with an Idempotency-Key and retried with the same key until they get an
// answer that is neither a 5xx nor "in progress", so each write ends committed or not, and the audit can tell which.
import { randomUUID } from "node:crypto";

/** How long past its budget a write whose key is "in progress" is still asked for its answer. */
const IN_PROGRESS_GRACE_MS = 30_000;

const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

export class ChaosClient {
  /**
   * `baseUrl` the gateway; `token` its bearer token; `context()` what is going on now (recorded
   * with every attempt: {experiment, down: [names]}); `timeoutMs` per attempt.
   */
  constructor({ baseUrl, token, context = () => ({}), timeoutMs = 10_000 }) {
    this.baseUrl = baseUrl;
    this.token = token;
    this.context = context;
    this.timeoutMs = timeoutMs;
    /** Every attempt: {route, method, status, startedAt, endedAt, experiment, down, write}. */
    this.requests = [];
    /** Every write: {kind, route, marker, attempts, succeeded, status, body}. */
    this.writes = [];
  }

  /**
   * One attempt; resolves {status (0: no answer), body, headers}. `path` is under the API's /v1;
   * `url` instead is any page (a published site on the reader), asked without the token.
   */
  async send({ route, method, path, url, body, headers = {}, write = false }) {
    const context = this.context();
    const record = { route, method, status: 0, startedAt: Date.now(), endedAt: 0, experiment: context.experiment ?? null, down: context.down ?? [], write };
    this.requests.push(record);
    try {
      const response = await fetch(url ?? `${this.baseUrl}/v1${path}`, {
        method,
        headers: {
          ...(url ? {} : { authorization: `Bearer ${this.token}` }),
          ...(body === undefined ? {} : { "content-type": "application/json" }),
          ...headers,
        },
        ...(body === undefined ? {} : { body: JSON.stringify(body) }),
        signal: AbortSignal.timeout(this.timeoutMs),
      });
      const text = await response.text();
      record.status = response.status;
      let parsed = null;
      try {
        parsed = text ? JSON.parse(text) : null;
      } catch {
        parsed = text;
      }
      record.endedAt = Date.now();
      return {
        status: response.status,
        body: parsed,
        headers: response.headers,
        startedAt: record.startedAt,
        endedAt: record.endedAt,
        experiment: record.experiment,
      };
    } catch (error) {
      // Why there was no answer: the socket's error (ECONNRESET, UND_ERR_SOCKET…) or a timeout.
      record.error = error?.cause?.code ?? (error instanceof Error ? error.name : "error");
      record.endedAt = Date.now();
      return {
        status: 0,
        error: record.error,
        body: null,
        headers: new Headers(),
        startedAt: record.startedAt,
        endedAt: record.endedAt,
        experiment: record.experiment,
      };
    }
  }

  get(route, path) {
    return this.send({ route, method: "GET", path });
  }

  /**
   * A write, retried with one Idempotency-Key until it is answered below 500 (other than "in
   * progress") or `deadline` (epoch ms) passes (30 s later for a key still in progress). `marker` names what it creates, for the audit (null when there is nothing to find).
   */
  async write({ kind, route, method, path, body, marker = null, deadline }) {
    const key = randomUUID();
    const write = { kind, route, marker, attempts: [], succeeded: false, status: 0, body: null };
    this.writes.push(write);
    for (let attempt = 0; ; attempt++) {
      const answer = await this.send({ route, method, path, body, headers: { "idempotency-key": key }, write: true });
      const message = answer.status >= 500 ? answer.body?.error?.message : undefined;
      write.attempts.push({
        status: answer.status,
        ...(answer.error ? { error: answer.error } : {}),
        // Which upstream failed, and how (the gateway's message): what a report of the attempt needs.
        ...(typeof message === "string" ? { message: message.slice(0, 160) } : {}),
        startedAt: answer.startedAt,
        endedAt: answer.endedAt,
        experiment: answer.experiment,
      });
      write.status = answer.status;
      write.body = answer.body;
      // 409 with Retry-After: the key's first request is still running (or its gateway stopped
      // mid-request, and the key is taken over once its lease lapses): ask again, as told.
      const inProgress = answer.status === 409 && answer.headers.has("retry-after");
      if (answer.status !== 0 && answer.status < 500 && !inProgress) {
        write.succeeded = answer.status < 400;
        return write;
      }
      // Past the budget, a key still "in progress" is a write in flight, not a failure: its answer
      // comes once that request ends or its lease lapses (upstream timeout + 5 s), so keep asking
      // for it a while longer rather than leave a committed write unanswered.
      if (Date.now() >= (inProgress ? deadline + IN_PROGRESS_GRACE_MS : deadline)) return write;
      const retryAfter = Number(answer.headers.get("retry-after"));
      await sleep(Math.min(2_000, Number.isFinite(retryAfter) && retryAfter > 0 ? retryAfter * 1000 : 250 * 2 ** Math.min(attempt, 3)));
    }
  }
}
