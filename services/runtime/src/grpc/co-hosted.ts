import { AsyncLocalStorage } from "node:async_hooks";
import { EventEmitter } from "node:events";
import {
  Metadata,
  status as GrpcStatus,
  type MethodDefinition,
  type ServerUnaryCall,
  type ServiceDefinition,
  type ServiceError,
  type UntypedServiceImplementation,
} from "@grpc/grpc-js";
import { context, propagation, ROOT_CONTEXT, SpanKind, SpanStatusCode, trace, type Span } from "@opentelemetry/api";
import { READ_RETRY } from "./read-retry.js";
import { isIdempotentRpc } from "./keyed-calls.js";

/**
 * Calls between targets hosted in one process, without the network. Every service started with a
 * `CoHostedServices` registers there the handlers its gRPC server serves (adapted once by
 * adaptService, so a direct call runs exactly what a call over the socket runs: keyed calls,
 * error mapping, logging), under the address its callers are given. `openUpstream` then makes
 * direct clients for the services it finds there, and gRPC clients for every other.
 *
 * A direct call keeps the contract of a call over the wire: the request and the answer are encoded
 * and decoded with the method's own serializers (the callee shares no object with the caller, and
 * proto3 defaults come out as they do from the wire); the metadata is a copy; the deadline is the
 * handler's `call.getDeadline()` and fails the caller with deadline_exceeded (the handler's call is
 * then cancelled); the handler runs in the async context of its server, not the caller's (no
 * transaction, keyed call or other AsyncLocalStorage of the caller leaks into it), with the trace
 * context carried in the metadata, as a server sees it; client and server spans are made as the
 * gRPC instrumentation makes them; reads are retried on UNAVAILABLE as the client's service config
 * retries them (clientServiceConfig); a server stopping or stopped answers UNAVAILABLE, as a
 * closed socket does.
 *
 * One instance per hosting process, made by the host (hostTargets) and handed to the targets it
 * starts; nothing here is global.
 */
export class CoHostedServices {
  private readonly servers = new Map<string, CoHostedServer>();
  /** Calls made directly, by callee address (the proof, for operators and tests, that calls skipped the network). */
  private readonly counts = new Map<string, number>();

  /**
   * Registers the services a gRPC server serves, adapted (adaptService), under `address`, where
   * callers reach it (e.g. 127.0.0.1:50051). A later registration at the same address replaces it.
   */
  register(address: string, services: readonly { definition: ServiceDefinition; implementation: UntypedServiceImplementation }[]): CoHostedServer {
    const server = new CoHostedServer(address, services, () => this.counts.set(address, (this.counts.get(address) ?? 0) + 1));
    this.servers.set(address, server);
    return server;
  }

  /** The co-hosted server at `address` serving every method of `definition`, if there is one. */
  find(address: string, definition: ServiceDefinition): CoHostedServer | undefined {
    const server = this.servers.get(address);
    return server?.serves(definition) ? server : undefined;
  }

  /** Direct calls made so far, by callee address (each attempt of a retried read counts). */
  callCounts(): Record<string, number> {
    return Object.fromEntries(this.counts);
  }
}

/** What a direct call's handler answered: the encoded response, or the status a server would have sent. */
type Outcome = { response: Buffer } | { error: ServiceError };

type UnaryCallback = (error: { code?: GrpcStatus; details?: string; metadata?: Metadata } | null, value?: unknown) => void;
type AdaptedHandler = (call: ServerUnaryCall<unknown, unknown>, callback: UnaryCallback) => void;

interface Method {
  definition: MethodDefinition<unknown, unknown>;
  handler: AdaptedHandler;
}

/** A status as grpc-js hands it to a client: an Error with code, details and the trailers. */
function statusError(code: GrpcStatus, details: string, metadata = new Metadata()): ServiceError {
  return Object.assign(new Error(`${code} ${GrpcStatus[code]}: ${details}`), { code, details, metadata });
}

const tracer = trace.getTracer("@imprint/runtime");
const metadataSetter = { set: (carrier: Metadata, key: string, value: string) => carrier.set(key, value) };
const metadataGetter = {
  get: (carrier: Metadata, key: string) => carrier.get(key).map(String),
  keys: (carrier: Metadata) => Object.keys(carrier.getMap()),
};

/** The span attributes the gRPC instrumentation sets, for a path /package.Service/Method. */
function rpcAttributes(path: string) {
  const [service = "", method = ""] = path.replace(/^\//, "").split("/");
  return { "rpc.system": "grpc", "rpc.service": service, "rpc.method": method };
}

function endSpan(span: Span, code: GrpcStatus, error?: { details?: string }): void {
  span.setAttribute("rpc.grpc.status_code", code);
  if (code !== GrpcStatus.OK) span.setStatus({ code: SpanStatusCode.ERROR, ...(error?.details ? { message: error.details } : {}) });
  span.end();
}

/**
 * The server side of one direct call, as a handler sees a ServerUnaryCall: the request, a copy of
 * the caller's metadata, the deadline, and `cancelled` (with its event) once the caller gave up.
 */
class DirectServerCall extends EventEmitter {
  cancelled = false;
  constructor(
    readonly request: unknown,
    readonly metadata: Metadata,
    private readonly deadline: number,
    private readonly path: string,
  ) {
    super();
  }
  getDeadline(): number {
    return this.deadline;
  }
  getPath(): string {
    return this.path;
  }
  getPeer(): string {
    return "in-process";
  }
  sendMetadata(): void {}
  cancel(): void {
    if (this.cancelled) return;
    this.cancelled = true;
    this.emit("cancelled", "cancelled");
  }
}

/** One co-hosted gRPC server: its adapted handlers by path, and whether it still takes calls. */
export class CoHostedServer {
  private readonly methods = new Map<string, Method>();
  private state: "serving" | "stopping" | "stopped" = "serving";
  /** Calls under way: cancelled when the server is shut down before they finish. */
  private readonly running = new Set<() => void>();
  private idle: (() => void) | undefined;
  private drained: Promise<void> | undefined;
  /**
   * Runs a handler in the async context in which the server was registered (its service's start),
   * as grpc-js runs a handler in its server's: never in the caller's.
   */
  private readonly inServerContext = AsyncLocalStorage.snapshot();

  constructor(
    readonly address: string,
    services: readonly { definition: ServiceDefinition; implementation: UntypedServiceImplementation }[],
    private readonly counted: () => void,
  ) {
    for (const { definition, implementation } of services) {
      for (const [name, method] of Object.entries(definition)) {
        const handler = implementation[name];
        if (typeof handler === "function" && !method.requestStream && !method.responseStream) {
          this.methods.set(method.path, { definition: method as MethodDefinition<unknown, unknown>, handler: handler as AdaptedHandler });
        }
      }
    }
  }

  /** Whether every method of `definition` is served here (else its calls go over gRPC, which answers UNIMPLEMENTED). */
  serves(definition: ServiceDefinition): boolean {
    return Object.values(definition).every((method) => this.methods.has(method.path));
  }

  /** Stops taking calls (they answer UNAVAILABLE, as a server closing its socket does); resolves once the calls under way finished. */
  stopTakingCalls(): Promise<void> {
    if (this.state === "serving") this.state = "stopping";
    this.drained ??= this.running.size === 0 ? Promise.resolve() : new Promise((resolve) => (this.idle = resolve));
    return this.drained;
  }

  /** Cancels the calls still under way (a forced shutdown: their callers see CANCELLED, read as UNAVAILABLE) and takes no more. */
  stop(): void {
    this.state = "stopped";
    for (const cancel of [...this.running]) cancel();
  }

  /** Runs one attempt of a call: `request` is the encoded request, `metadata` the caller's (copied here). */
  call(path: string, request: Buffer, metadata: Metadata, deadline: number): Promise<Outcome> {
    if (this.state !== "serving") {
      return Promise.resolve({ error: statusError(GrpcStatus.UNAVAILABLE, `${this.address} is ${this.state === "stopping" ? "shutting down" : "stopped"}`) });
    }
    const method = this.methods.get(path);
    if (!method) return Promise.resolve({ error: statusError(GrpcStatus.UNIMPLEMENTED, `The server does not implement the method ${path}`) });
    if (Date.now() >= deadline) return Promise.resolve({ error: statusError(GrpcStatus.DEADLINE_EXCEEDED, "Deadline exceeded") });
    this.counted();
    return new Promise<Outcome>((resolve) => {
      const serverMetadata = metadata.clone();
      let settled = false;
      let call: DirectServerCall | undefined;
      // The caller's deadline: it is answered DEADLINE_EXCEEDED and the handler's call is cancelled, as a server's would be.
      const timer = setTimeout(
        () => settle({ error: statusError(GrpcStatus.DEADLINE_EXCEEDED, "Deadline exceeded") }, true),
        Math.min(deadline - Date.now(), 2 ** 31 - 1),
      );
      const settle = (outcome: Outcome, cancelCall: boolean) => {
        if (settled) return;
        settled = true;
        clearTimeout(timer);
        this.running.delete(cancel);
        if (cancelCall) call?.cancel();
        if (this.running.size === 0 && this.idle) {
          this.idle();
          this.idle = undefined;
        }
        resolve(outcome);
      };
      const cancel = () => settle({ error: statusError(GrpcStatus.CANCELLED, "Call cancelled") }, true);
      this.running.add(cancel);
      this.inServerContext(() => {
        // As the gRPC instrumentation does on a server: the trace context comes from the metadata alone.
        const extracted = propagation.extract(ROOT_CONTEXT, serverMetadata, metadataGetter);
        const span = tracer.startSpan(`grpc.${path.slice(1)}`, { kind: SpanKind.SERVER, attributes: rpcAttributes(path) }, extracted);
        context.with(trace.setSpan(extracted, span), () => {
          let decoded: unknown;
          try {
            decoded = method.definition.requestDeserialize(request);
          } catch (error) {
            endSpan(span, GrpcStatus.INTERNAL);
            settle({ error: statusError(GrpcStatus.INTERNAL, `Error deserializing request: ${(error as Error).message}`) }, false);
            return;
          }
          call = new DirectServerCall(decoded, serverMetadata, deadline, path);
          method.handler(call as unknown as ServerUnaryCall<unknown, unknown>, (error, value) => {
            if (error) {
              const code = error.code ?? GrpcStatus.UNKNOWN;
              endSpan(span, code, error);
              settle({ error: statusError(code, error.details ?? "", error.metadata ?? new Metadata()) }, false);
              return;
            }
            let response: Buffer;
            try {
              response = method.definition.responseSerialize(value);
            } catch (serializeError) {
              endSpan(span, GrpcStatus.INTERNAL);
              settle({ error: statusError(GrpcStatus.INTERNAL, `Error serializing response: ${(serializeError as Error).message}`) }, false);
              return;
            }
            endSpan(span, GrpcStatus.OK);
            settle({ response }, false);
          });
        });
      });
    });
  }
}

/** The longest pause before attempt `attempt + 1` of a read (jittered below it), as READ_RETRY gives gRPC clients. */
const retryBackoffMs = (attempt: number) => Math.min(READ_RETRY.initialBackoffMs * READ_RETRY.backoffMultiplier ** (attempt - 1), READ_RETRY.maxBackoffMs);
const RETRYABLE: ReadonlySet<GrpcStatus> = new Set(READ_RETRY.retryableStatuses);

/**
 * One unary call to a co-hosted server, as a gRPC client makes it: encoded at once (a change the
 * caller makes to its request afterwards is not seen), one client span over every attempt, the
 * metadata carrying the trace context, reads retried on UNAVAILABLE/CANCELLED within the deadline.
 * Answers the decoded response or throws the ServiceError a gRPC client would.
 */
export async function callCoHosted(
  server: CoHostedServer,
  method: MethodDefinition<unknown, unknown>,
  request: unknown,
  metadata: Metadata | undefined,
  deadline: number,
): Promise<unknown> {
  const span = tracer.startSpan(`grpc.${method.path.slice(1)}`, { kind: SpanKind.CLIENT, attributes: rpcAttributes(method.path) });
  const sent = metadata?.clone() ?? new Metadata();
  propagation.inject(trace.setSpan(context.active(), span), sent, metadataSetter);
  let encoded: Buffer;
  try {
    encoded = method.requestSerialize(request);
  } catch (error) {
    endSpan(span, GrpcStatus.INTERNAL);
    throw statusError(GrpcStatus.INTERNAL, `Request message serialization failure: ${(error as Error).message}`);
  }
  const attempts = isIdempotentRpc(method.path.slice(method.path.lastIndexOf("/") + 1)) ? READ_RETRY.maxAttempts : 1;
  for (let attempt = 1; ; attempt += 1) {
    const outcome = await server.call(method.path, encoded, sent, deadline);
    if ("response" in outcome) {
      let response: unknown;
      try {
        response = method.responseDeserialize(outcome.response);
      } catch (error) {
        endSpan(span, GrpcStatus.INTERNAL);
        throw statusError(GrpcStatus.INTERNAL, `Response message parsing error: ${(error as Error).message}`);
      }
      endSpan(span, GrpcStatus.OK);
      return response;
    }
    const pauseMs = Math.random() * retryBackoffMs(attempt);
    if (attempt >= attempts || !RETRYABLE.has(outcome.error.code) || Date.now() + pauseMs >= deadline) {
      endSpan(span, outcome.error.code, outcome.error);
      throw outcome.error;
    }
    await new Promise((resolve) => setTimeout(resolve, pauseMs));
  }
}
