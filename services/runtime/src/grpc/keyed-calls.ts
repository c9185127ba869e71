import { AppError } from "../errors.js";

/**
 * Keyed calls: a write that carries this metadata (the gateway sends it for requests with an
 * Idempotency-Key, one key per write call of the request) is answered at most once by the service,
 * however often it is sent. The service remembers the key in its database (`idempotent_calls`):
 * claimed in the same transaction as the write (the unit of work does it), then the answer, kept
 * before it is sent. A repeat is answered the kept answer and runs nothing. Calls without the
 * metadata, and reads, cost nothing extra.
 */
export const IDEMPOTENCY_KEY_METADATA = "imprint-idempotency-key";

/**
 * RPCs that only read, by the shared vocabulary of names: a client retries these on UNAVAILABLE
 * (on another copy, when there is one), and a server never looks up a key for them. Writes are
 * never retried by the client's service config: a write the gateway repeats carries its key.
 */
const IDEMPOTENT_RPC = /^(Get|List|BatchGet|Search|Check|Count|Read|Authenticate|Verify)[A-Z]/;

export function isIdempotentRpc(methodName: string): boolean {
  return IDEMPOTENT_RPC.test(methodName);
}

/** Whether the RPC at `path` (/package.Service/Method) writes: the calls that carry a key. */
export function isWriteRpcPath(path: string): boolean {
  return !isIdempotentRpc(path.slice(path.lastIndexOf("/") + 1));
}

/** The longest key kept (the column's width). */
export const MAX_IDEMPOTENCY_KEY_LENGTH = 255;

/**
 * How long after its deadline a first run may still be between its commit and keeping its answer:
 * until then a repeat is told to retry (UNAVAILABLE), afterwards the answer is taken as lost.
 */
export const ANSWER_MARGIN_MS = 5_000;
/**
 * A keyed write that would commit this close to its deadline rolls back instead. The service's
 * deadline trails the caller's by the request's transit (grpc-timeout is relative: it starts when the
 * request arrives, later under load), so the caller may already have given up and been answered an
 * error while the service still sees time left; the commit and the answer's way back take time too.
 * The caller of a write that close to its deadline gets an error either way: this way the write is
 * not applied, and a repeat runs it.
 */
export const ABANDON_MARGIN_MS = 500;

/** The window of a call that came without a deadline. */
export const UNBOUNDED_CALL_WINDOW_MS = 60_000;

/** How long before its own deadline a repeat stops waiting for the first run's answer (so it can still say so). */
const WAIT_MARGIN_MS = 250;
/**
 * How long a repeat waits at most for the answer of a first run that claimed the key: a run that
 * committed keeps its answer within milliseconds, so a longer wait means it died in between.
 */
export const ANSWER_WAIT_MS = 2_000;

/**
 * A transaction of this call found the key claimed by another call of it, running at the same
 * time (a repeat sent while the first was still on its way, e.g. to a paused copy): this one waits
 * for that one's answer instead of running.
 */
export class ClaimedByAnotherCall extends AppError {
  constructor() {
    super("unavailable", "another call with this idempotency key ran first; retry to read its answer");
  }
}

/**
 * The caller of this keyed call gave up before its write committed (see KeyedCall.abandoned): the
 * write rolls back, so the error the caller was answered is the truth, and a repeat runs it.
 */
export class AbandonedByCaller extends AppError {
  constructor() {
    super("unavailable", "the caller gave up on this call before its write committed; nothing was applied");
  }
}

/**
 * A write call while its handler runs: what the unit of work claims in its transaction. A write
 * sent without a key claims nothing, but its first transaction still rolls back once its caller
 * gave up, as a keyed one's does: either way the error the caller was answered stays true.
 */
export interface KeyedCall {
  /** The idempotency key; absent for a write sent without one. */
  key: string | undefined;
  /** The RPC's path, e.g. /imprint.collaboration.v1.CommentService/PostComment. */
  method: string;
  /** Until when a repeat finding the claim without an answer waits for it (the call's deadline plus a margin). */
  answerDueBy: Date;
  /**
   * Set once a transaction of the call committed (claiming the key, if it has one): the write is
   * applied, so later transactions of the call claim nothing and finish it whatever the caller does.
   */
  claimed: boolean;
  /**
   * Whether the caller gave up on the call (cancelled it, or its deadline is less than
   * ABANDON_MARGIN_MS away): it was (or is about to be) answered an error, so the transaction that
   * would claim the key rolls back instead of committing.
   */
  abandoned(): boolean;
}

/** What a service remembers of a keyed call. */
export interface KeptCall {
  method: string;
  /** The answer's bytes (the method's serialized response); null while not (or never) kept. */
  response: Buffer | null;
  answerDueBy: Date;
}

/**
 * The service's record of keyed calls, as the gRPC server uses it (the database behind it is the
 * runtime's `IdempotentCalls`; the server itself stays free of the ORM).
 */
export interface KeyedCallLedger {
  /** The service's clock. */
  now(): Date;
  find(key: string): Promise<KeptCall | undefined>;
  /** Runs `work` with `call` in scope, so the units of work it runs claim the key. */
  within<T>(call: KeyedCall, work: () => Promise<T>): Promise<T>;
  /** Keeps the answer (the first kept answer stays). */
  keep(call: KeyedCall & { key: string }, response: Buffer): Promise<void>;
}

/** How a keyed call's answer is turned into bytes and back (the method's own serializers). */
export interface AnswerCodec<Res> {
  serialize(response: Res): Buffer;
  deserialize(bytes: Buffer): Res;
}

/**
 * Answers one keyed call: the kept answer when there is one; UNAVAILABLE while a first run may
 * still answer; `conflict` when a first run committed but its answer was lost (it is never run
 * again); else runs `handler` with the key in scope and keeps its answer before it is sent. Two
 * runs at once with one key cannot both commit: the claim's primary key lets one through, the
 * other fails UNAVAILABLE (see IdempotentCalls.claim) and its retry finds the first's answer.
 */
export async function answerKeyedCall<Res>(
  ledger: KeyedCallLedger,
  call: { key: string; method: string; deadline: Date | number; cancelled?: () => boolean },
  codec: AnswerCodec<Res>,
  handler: () => Promise<Res>,
  onKeepFailed: (error: unknown) => void,
): Promise<Res> {
  if (call.key.length === 0 || call.key.length > MAX_IDEMPOTENCY_KEY_LENGTH) {
    throw AppError.invalidArgument(`${IDEMPOTENCY_KEY_METADATA}: must be 1 to ${MAX_IDEMPOTENCY_KEY_LENGTH} characters`);
  }
  // The deadline is in real time, the ledger on the service's clock (a test may move it).
  const deadline = typeof call.deadline === "number" ? call.deadline : call.deadline.getTime();
  const kept = await ledger.find(call.key);
  if (kept) return keptAnswer(ledger, call, codec, kept, deadline);
  const keyed = { ...writeCall(ledger, { ...call, deadline }), key: call.key };
  let response: Res;
  try {
    response = await ledger.within(keyed, handler);
  } catch (error) {
    if (!(error instanceof ClaimedByAnotherCall)) throw error;
    // The other call committed the write: its answer is kept a moment later.
    const claimed = await ledger.find(call.key);
    if (!claimed) throw error;
    return keptAnswer(ledger, call, codec, claimed, deadline);
  }
  try {
    await ledger.keep(keyed, codec.serialize(response));
  } catch (error) {
    // The write is done: its answer still goes out; only a repeat of it would miss it.
    onKeepFailed(error);
  }
  return response;
}

/**
 * Runs a write sent without a key (no record kept, no lookup) with its caller's patience in scope:
 * its first transaction rolls back if the caller gave up before it could commit.
 */
export function runWriteCall<Res>(
  ledger: KeyedCallLedger,
  call: { method: string; deadline: Date | number; cancelled?: () => boolean },
  handler: () => Promise<Res>,
): Promise<Res> {
  const deadline = typeof call.deadline === "number" ? call.deadline : call.deadline.getTime();
  return ledger.within(writeCall(ledger, { ...call, key: undefined, deadline }), handler);
}

function writeCall(ledger: KeyedCallLedger, call: { key: string | undefined; method: string; deadline: number; cancelled?: () => boolean }): KeyedCall {
  const windowMs = Number.isFinite(call.deadline) ? Math.max(0, call.deadline - Date.now()) : UNBOUNDED_CALL_WINDOW_MS;
  return {
    key: call.key,
    method: call.method,
    answerDueBy: new Date(ledger.now().getTime() + windowMs + ANSWER_MARGIN_MS),
    claimed: false,
    abandoned: () => Boolean(call.cancelled?.()) || Date.now() >= call.deadline - ABANDON_MARGIN_MS,
  };
}

/**
 * The answer to a repeat of a call the ledger knows: the kept answer, waited for while the first
 * run may still keep it (until this call's own deadline, less a margin to say so); UNAVAILABLE
 * when it did not come in time; `conflict` once a first run committed but its answer was lost (it
 * is never run again).
 */
async function keptAnswer<Res>(
  ledger: KeyedCallLedger,
  call: { key: string; method: string },
  codec: AnswerCodec<Res>,
  kept: KeptCall,
  deadline: number,
): Promise<Res> {
  const waitUntil = Math.min(Number.isFinite(deadline) ? deadline - WAIT_MARGIN_MS : Infinity, Date.now() + ANSWER_WAIT_MS);
  for (let pauseMs = 20; ; pauseMs = Math.min(pauseMs * 2, 200)) {
    if (kept.method !== call.method) {
      throw AppError.conflict(`this idempotency key was used for another call (${kept.method}); send a new key for a new request`);
    }
    if (kept.response) return codec.deserialize(kept.response);
    if (ledger.now() >= kept.answerDueBy) {
      throw AppError.conflict(
        "the write sent with this idempotency key was applied, but its answer was lost before it was kept; read the result instead of retrying",
      );
    }
    if (Date.now() + pauseMs > waitUntil) throw new AppError("unavailable", "the first call with this idempotency key is still answering; retry");
    await new Promise((resolve) => setTimeout(resolve, pauseMs));
    const again = await ledger.find(call.key);
    if (!again) throw new AppError("unavailable", "the first call with this idempotency key is still answering; retry");
    kept = again;
  }
}
