import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { AppError } from "../src/errors.js";
import { checkHealth, createPromiseClient } from "../src/grpc/client.js";
import { startGrpcServer, type GrpcServerHandle } from "../src/grpc/server.js";
import { createLogger } from "../src/logger.js";
import { eventually, patient } from "../src/testing/index.js";
import { jsonMethod } from "./support/json-method.js";

// A tiny hand-written service definition with JSON serialization, so the runtime is tested
// without depending on any context's generated code.
const EchoService = {
  echo: jsonMethod<{ text: string }, { text: string }>("/test.Echo/Echo"),
} as const;

describe("gRPC server and promise client", () => {
  let server: GrpcServerHandle;
  const lines: string[] = [];
  beforeAll(async () => {
    server = await startGrpcServer({
      host: "127.0.0.1",
      port: 0,
      logger: createLogger("test", { write: (line) => lines.push(line) }),
      services: [
        {
          name: "test.Echo",
          definition: EchoService,
          implementation: {
            echo: async ({ text }) => {
              if (text === "missing") throw AppError.notFound("Thing");
              if (text === "crash") throw new Error("secret database detail");
              if (text === "slow") await new Promise((r) => setTimeout(r, 500));
              return { text: text.toUpperCase() };
            },
          },
        },
      ],
    });
  });
  afterAll(() => server.shutdown(1_000));

  it("reports SERVING through grpc.health.v1 for the server and each service", async () => {
    expect(await checkHealth(server.address)).toBe("SERVING");
    expect(await checkHealth(server.address, "test.Echo")).toBe("SERVING");
    expect(await checkHealth(server.address, "nope")).toBe("SERVICE_UNKNOWN");
  });

  it("round-trips a call", async () => {
    const client = createPromiseClient(EchoService, server.address);
    await expect(client.echo({ text: "hi" })).resolves.toEqual({ text: "HI" });
    client.close();
  });

  it("carries the domain error code across the wire", async () => {
    const client = createPromiseClient(EchoService, server.address);
    const error = await client.echo({ text: "missing" }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(AppError);
    expect(error).toMatchObject({ code: "not_found", message: "Thing not found" });
    client.close();
  });

  it("hides unexpected errors behind internal and logs them", async () => {
    const client = createPromiseClient(EchoService, server.address);
    const error = (await client.echo({ text: "crash" }).catch((e: unknown) => e)) as AppError;
    expect(error.code).toBe("internal");
    expect(error.message).not.toContain("secret");
    expect(lines.some((l) => l.includes("secret database detail"))).toBe(true);
    client.close();
  });

  it("enforces the deadline", async () => {
    const client = createPromiseClient(EchoService, server.address, { defaultTimeoutMs: 100 });
    await expect(client.echo({ text: "slow" })).rejects.toMatchObject({ code: "deadline_exceeded" });
    client.close();
  });

  it("maps an unreachable server to unavailable", async () => {
    const client = createPromiseClient(EchoService, "127.0.0.1:1", { defaultTimeoutMs: 2_000 });
    await expect(client.echo({ text: "x" })).rejects.toMatchObject({ code: "unavailable" });
    expect(await checkHealth("127.0.0.1:1")).toBe("UNREACHABLE");
    client.close();
  });
});

describe("a peer that goes away and comes back", () => {
  const logger = createLogger("test", { write: () => {} });
  const serve = (port: number) =>
    startGrpcServer({
      host: "127.0.0.1",
      port,
      logger,
      services: [{ name: "test.Echo", definition: EchoService, implementation: { echo: async ({ text }) => ({ text: text.toUpperCase() }) } }],
    });

  it("is reached within a second or two of serving again after an outage, and calls meanwhile fail at once", async () => {
    let server = await serve(0);
    const port = server.port;
    // A deadline far beyond what the test allows: failing fast must come from the channel, not from it.
    const client = createPromiseClient(EchoService, server.address, { defaultTimeoutMs: 30_000 });
    try {
      await expect(client.echo({ text: "before" })).resolves.toEqual({ text: "BEFORE" });
      await server.shutdown(0);

      // Long enough for grpc-js's default backoff to grow past several seconds (1, 1.6, 2.6, 4.1,
      // 6.6 s...), with a caller trying all along, as the gateway would.
      const outageEnds = Date.now() + 12_000;
      while (Date.now() < outageEnds) {
        const started = Date.now();
        await expect(client.echo({ text: "during" })).rejects.toMatchObject({ code: "unavailable" });
        expect(Date.now() - started).toBeLessThan(patient(1_000));
        await new Promise((resolve) => setTimeout(resolve, 200));
      }

      server = await serve(port);
      const serving = Date.now();
      await eventually(async () => (await client.echo({ text: "after" }).catch(() => undefined)) !== undefined, 10_000, 50);
      expect(Date.now() - serving).toBeLessThan(patient(2_000));
      expect(await checkHealth(server.address)).toBe("SERVING");
    } finally {
      client.close();
      await server.shutdown(0);
    }
  }, 60_000);
});
