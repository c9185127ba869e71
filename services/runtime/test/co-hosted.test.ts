import { AsyncLocalStorage } from "node:async_hooks";
import { randomUUID } from "node:crypto";
import { Metadata, type ServerUnaryCall } from "@grpc/grpc-js";
import type { MikroORM } from "@mikro-orm/postgresql";
import { context, propagation, SpanKind, trace } from "@opentelemetry/api";
import { AsyncLocalStorageContextManager } from "@opentelemetry/context-async-hooks";
import { W3CTraceContextPropagator } from "@opentelemetry/core";
import { InMemorySpanExporter, SimpleSpanProcessor, TracerProvider } from "@opentelemetry/sdk-trace";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { IdempotentCalls } from "../src/db/idempotent-calls.js";
import { openDatabase } from "../src/db/orm.js";
import { createUnitOfWork } from "../src/db/unit-of-work.js";
import { AppError } from "../src/errors.js";
import { createPromiseClient, type PromiseClient } from "../src/grpc/client.js";
import { CoHostedServices } from "../src/grpc/co-hosted.js";
import { IDEMPOTENCY_KEY_METADATA } from "../src/grpc/keyed-calls.js";
import { startGrpcServer, type GrpcServerHandle } from "../src/grpc/server.js";
import { openUpstream } from "../src/grpc/upstreams.js";
import { createLogger } from "../src/logger.js";
import { createTestDatabase, eventually, failure } from "../src/testing/index.js";
import { jsonMethod } from "./support/json-method.js";
import { Note } from "./support/notes-service.js";

/**
 * Direct calls between co-hosted services (CoHostedServices): every behaviour a caller sees is
 * checked on a gRPC client and on a direct client of the same server, which must agree; the
 * direct one must never touch the socket.
 */
interface Bag {
  items: string[];
  nested: { label: string };
}
const Service = {
  echo: jsonMethod<{ text: string; timeoutHint?: number }, { text: string }>("/test.Direct/Echo"),
  keep: jsonMethod<Bag, Bag>("/test.Direct/Keep"),
  inspect: jsonMethod<{ note: string }, { seen: string[]; deadlineInMs: number; store: string }>("/test.Direct/Inspect"),
  getFlaky: jsonMethod<{ failures: number; id: string }, { attempts: number }>("/test.Direct/GetFlaky"),
  putFlaky: jsonMethod<{ failures: number; id: string }, { attempts: number }>("/test.Direct/PutFlaky"),
} as const;

// A real SDK tracer provider in this worker, exporting to memory, stands in for the preload.
const exporter = new InMemorySpanExporter();
const provider = new TracerProvider({ spanProcessors: [new SimpleSpanProcessor({ exporter })] });
const contextManager = new AsyncLocalStorageContextManager().enable();
/** An AsyncLocalStorage of the caller's, as a transaction or a keyed call is: the handler must not see it. */
const callerStore = new AsyncLocalStorage<string>();

const lines: string[] = [];
const logger = createLogger("co-hosted-test", { write: (line) => lines.push(line) });
const attempts = new Map<string, number>();
/** What the handlers kept: the last request and response objects, and the last call. */
const kept: { request?: Bag; response?: Bag; call?: ServerUnaryCall<unknown, unknown> } = {};

const implementation = {
  echo: async ({ text }: { text: string }) => {
    if (text === "missing") throw AppError.notFound("Thing");
    if (text === "crash") throw new Error("secret database detail");
    if (text === "database down") throw Object.assign(new Error("connect ECONNREFUSED 10.0.0.7:5432"), { code: "ECONNREFUSED" });
    if (text === "slow") await new Promise((resolve) => setTimeout(resolve, 600));
    return { text: text.toUpperCase() };
  },
  keep: async (request: Bag) => {
    kept.request = request;
    // The caller has its answer to this call's request by now: whatever it does to it after the call must not show here.
    await new Promise((resolve) => setTimeout(resolve, 20));
    const response = { items: [...request.items], nested: { label: request.nested.label } };
    kept.response = response;
    return response;
  },
  inspect: async ({ note }: { note: string }, call: ServerUnaryCall<unknown, unknown>) => {
    kept.call = call;
    const deadline = call.getDeadline();
    const active = trace.getSpan(context.active());
    if (note === "trace") expect(active?.spanContext().traceId).toBeDefined();
    if (note === "slow") await new Promise((resolve) => setTimeout(resolve, 600));
    return {
      seen: [...call.metadata.get("x-note").map(String), ...call.metadata.get(IDEMPOTENCY_KEY_METADATA).map(String)],
      deadlineInMs: (typeof deadline === "number" ? deadline : deadline.getTime()) - Date.now(),
      store: callerStore.getStore() ?? "none",
    };
  },
  getFlaky: async ({ failures, id }: { failures: number; id: string }) => {
    const count = (attempts.get(id) ?? 0) + 1;
    attempts.set(id, count);
    if (count <= failures) throw new AppError("unavailable", "not yet");
    return { attempts: count };
  },
  putFlaky: async ({ failures, id }: { failures: number; id: string }) => {
    const count = (attempts.get(id) ?? 0) + 1;
    attempts.set(id, count);
    if (count <= failures) throw new AppError("unavailable", "not yet");
    return { attempts: count };
  },
};

const coHosted = new CoHostedServices();
let server: GrpcServerHandle;
const directCalls = () => coHosted.callCounts()[server.address] ?? 0;

beforeAll(async () => {
  context.setGlobalContextManager(contextManager);
  trace.setGlobalTracerProvider(provider);
  propagation.setGlobalPropagator(new W3CTraceContextPropagator());
  server = await startGrpcServer({
    host: "127.0.0.1",
    port: 0,
    logger,
    coHosted,
    services: [{ name: "test.Direct", definition: Service, implementation }],
  });
});
afterAll(async () => {
  await server?.shutdown(1_000);
  await provider.shutdown();
  trace.disable();
  context.disable();
  propagation.disable();
});

const clientsByMode = {
  gRPC: (defaultTimeoutMs?: number): PromiseClient<typeof Service> => createPromiseClient(Service, server.address, { defaultTimeoutMs }),
  direct: (defaultTimeoutMs?: number): PromiseClient<typeof Service> =>
    openUpstream({ address: server.address, services: { direct: Service }, defaultTimeoutMs }, { coHosted }).direct,
};

describe.each(["gRPC", "direct"] as const)("a call from a %s client", (mode) => {
  let client: PromiseClient<typeof Service>;
  beforeAll(() => {
    client = clientsByMode[mode]();
  });
  afterAll(() => client?.close());

  it("round-trips, directly only for the direct client", async () => {
    const before = directCalls();
    await expect(client.echo({ text: "hi" })).resolves.toEqual({ text: "HI" });
    expect(directCalls() - before).toBe(mode === "direct" ? 1 : 0);
    expect(client.address).toBe(server.address);
  });

  it("carries an AppError's code and message", async () => {
    const error = await failure(client.echo({ text: "missing" }));
    expect(error).toBeInstanceOf(AppError);
    expect(error).toMatchObject({ code: "not_found", message: "Thing not found" });
  });

  it("answers anything else thrown as internal, with nothing of it but the server's log line", async () => {
    lines.length = 0;
    const error = await failure(client.echo({ text: "crash" }));
    expect(error).toMatchObject({ code: "internal", message: "Internal error" });
    expect(lines.join("\n")).toContain("unhandled error in gRPC handler");
    expect(lines.join("\n")).toContain("secret database detail");
    expect(error.message).not.toContain("secret");
  });

  it("answers a lost dependency as unavailable, logged as a warning", async () => {
    lines.length = 0;
    const error = await failure(client.echo({ text: "database down" }));
    expect(error).toMatchObject({ code: "unavailable", message: "Temporarily unavailable: a dependency (the database) cannot be reached" });
    expect(lines.join("\n")).toContain("dependency unavailable");
  });

  it("hands the handler a copy of the caller's metadata and the call's deadline", async () => {
    const metadata = new Metadata();
    metadata.set("x-note", "from the caller");
    metadata.set(IDEMPOTENCY_KEY_METADATA, "key-1");
    const answer = await client.inspect({ note: "metadata" }, { metadata, timeoutMs: 5_000 });
    expect(answer.seen).toEqual(["from the caller", "key-1"]);
    expect(answer.deadlineInMs).toBeGreaterThan(3_000);
    expect(answer.deadlineInMs).toBeLessThanOrEqual(5_000);
    // The caller's own metadata is as it was (the trace context went into the copy sent).
    expect(Object.keys(metadata.getMap()).sort()).toEqual(["imprint-idempotency-key", "x-note"]);
  });

  it("fails a call that outlives its deadline with deadline_exceeded, and cancels the handler's call", async () => {
    const error = await failure(client.inspect({ note: "slow" }, { timeoutMs: 150 }));
    expect(error.code).toBe("deadline_exceeded");
    const call = kept.call!;
    await eventually(async () => call.cancelled);
  });

  it("shares no object with the handler: the request is the one sent, the answer is the caller's own", async () => {
    const request: Bag = { items: ["a"], nested: { label: "before" } };
    const answering = client.keep(request);
    request.items.push("added after the call");
    request.nested.label = "changed after the call";
    const response = await answering;
    expect(response).toEqual({ items: ["a"], nested: { label: "before" } });
    expect(kept.request).toEqual({ items: ["a"], nested: { label: "before" } });
    expect(kept.request).not.toBe(request);
    response.items.push("changed by the caller");
    expect(kept.response).toEqual({ items: ["a"], nested: { label: "before" } });
    expect(kept.response).not.toBe(response);
  });

  it("runs the handler outside the caller's async context", async () => {
    const answer = await callerStore.run("the caller's transaction", () => client.inspect({ note: "context" }));
    expect(answer.store).toBe("none");
  });

  it("retries a read answered UNAVAILABLE (three attempts in all), never a write", async () => {
    const read = randomUUID();
    await expect(client.getFlaky({ failures: 2, id: read })).resolves.toEqual({ attempts: 3 });
    const write = randomUUID();
    expect((await failure(client.putFlaky({ failures: 1, id: write }))).code).toBe("unavailable");
    expect(attempts.get(write)).toBe(1);
  });
});

describe("a direct call's trace", () => {
  it("has a client span and a server span under it, named and described as the gRPC instrumentation names them", async () => {
    const client = clientsByMode.direct();
    exporter.reset();
    await trace.getTracer("test").startActiveSpan("request", async (parent) => {
      await client.inspect({ note: "trace" });
      parent.end();
    });
    const spans = exporter.getFinishedSpans();
    const request = spans.find((span) => span.name === "request")!;
    const clientSpan = spans.find((span) => span.kind === SpanKind.CLIENT)!;
    const serverSpan = spans.find((span) => span.kind === SpanKind.SERVER)!;
    expect(clientSpan.name).toBe("grpc.test.Direct/Inspect");
    expect(serverSpan.name).toBe("grpc.test.Direct/Inspect");
    expect(clientSpan.attributes).toMatchObject({ "rpc.system": "grpc", "rpc.service": "test.Direct", "rpc.method": "Inspect", "rpc.grpc.status_code": 0 });
    expect(clientSpan.parentSpanContext?.spanId).toBe(request.spanContext().spanId);
    expect(serverSpan.parentSpanContext?.spanId).toBe(clientSpan.spanContext().spanId);
    expect(serverSpan.spanContext().traceId).toBe(request.spanContext().traceId);
  });

  it("marks a failed call's spans with its status", async () => {
    const client = clientsByMode.direct();
    exporter.reset();
    await failure(client.echo({ text: "missing" }));
    const statuses = exporter.getFinishedSpans().map((span) => [span.kind, span.attributes["rpc.grpc.status_code"], span.status.code]);
    expect(statuses).toEqual(
      expect.arrayContaining([
        [SpanKind.SERVER, 5, 2],
        [SpanKind.CLIENT, 5, 2],
      ]),
    );
  });
});

describe.each(["gRPC", "direct"] as const)("a %s client of a server that stops", (mode) => {
  it("lets a call under way finish, then answers unavailable", async () => {
    const stopping = new CoHostedServices();
    let release!: () => void;
    const released = new Promise<void>((resolve) => (release = resolve));
    let entered!: () => void;
    const inside = new Promise<void>((resolve) => (entered = resolve));
    const own = await startGrpcServer({
      host: "127.0.0.1",
      port: 0,
      logger,
      coHosted: stopping,
      services: [
        {
          name: "test.Direct",
          definition: Service,
          implementation: {
            ...implementation,
            echo: async ({ text }) => {
              if (text === "hold") {
                entered();
                await released;
              }
              return { text };
            },
          },
        },
      ],
    });
    const client =
      mode === "gRPC"
        ? createPromiseClient(Service, own.address, { defaultTimeoutMs: 5_000 })
        : openUpstream({ address: own.address, services: { direct: Service }, defaultTimeoutMs: 5_000 }, { coHosted: stopping }).direct;
    try {
      await expect(client.echo({ text: "warm" })).resolves.toEqual({ text: "warm" });
      const underWay = client.echo({ text: "hold" });
      await inside;
      const shutdown = own.shutdown(5_000);
      // A new call while the server stops (its running call holds it) is refused.
      await eventually(async () => (await failure(client.echo({ text: "late" }))).code === "unavailable");
      release();
      await expect(underWay).resolves.toEqual({ text: "hold" });
      await shutdown;
      const after = await failure(client.echo({ text: "after" }));
      expect(after.code).toBe("unavailable");
      expect(after).toBeInstanceOf(AppError);
    } finally {
      release();
      client.close();
      await own.shutdown(100);
    }
  });
});

describe.each(["gRPC", "direct"] as const)("a keyed write from a %s client", (mode) => {
  let orm: MikroORM;
  let own: GrpcServerHandle;
  let client: PromiseClient<{ addNote: ReturnType<typeof jsonMethod<{ text: string }, { id: string }>> }>;
  const runs = new Map<string, number>();
  beforeAll(async () => {
    orm = await openDatabase({
      url: await createTestDatabase(inject("pgAdminUrl"), `co_hosted_${mode.toLowerCase()}`),
      entities: [Note],
      migrationsPath: "/nonexistent",
      runMigrations: false,
    });
    await orm.schema.create();
    const keyedCalls = new IdempotentCalls(orm, () => new Date());
    const unitOfWork = createUnitOfWork({ notify: () => {} }, keyedCalls);
    const Notes = { addNote: jsonMethod<{ text: string }, { id: string }>("/test.Notes/AddNote") };
    const keyedCoHosted = new CoHostedServices();
    own = await startGrpcServer({
      host: "127.0.0.1",
      port: 0,
      logger,
      keyedCalls,
      coHosted: keyedCoHosted,
      services: [
        {
          name: "test.Notes",
          definition: Notes,
          implementation: {
            addNote: ({ text }) =>
              unitOfWork.run(orm.em.fork(), async (tx) => {
                runs.set(text, (runs.get(text) ?? 0) + 1);
                const note = tx.create(Note, { id: randomUUID(), text, createdAt: new Date() });
                return { id: note.id };
              }),
          },
        },
      ],
    });
    client =
      mode === "gRPC"
        ? createPromiseClient(Notes, own.address)
        : openUpstream({ address: own.address, services: { notes: Notes } }, { coHosted: keyedCoHosted }).notes;
  });
  afterAll(async () => {
    client?.close();
    await own?.shutdown(1_000);
    await orm?.close(true);
  });

  it("runs once: a repeat with its key is answered the kept answer", async () => {
    const metadata = new Metadata();
    metadata.set(IDEMPOTENCY_KEY_METADATA, randomUUID());
    const first = await client.addNote({ text: "once" }, { metadata });
    const again = await client.addNote({ text: "once" }, { metadata });
    expect(again).toEqual(first);
    expect(runs.get("once")).toBe(1);
    expect(await orm.em.fork().count(Note, { text: "once" })).toBe(1);
  });
});
