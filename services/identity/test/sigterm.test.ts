import { spawn, type ChildProcess } from "node:child_process";
import { join } from "node:path";
import { afterAll, describe, expect, inject, it } from "vitest";
import { checkHealth, LIVENESS_SERVICE } from "@imprint/runtime";
import { createTestDatabase, errorCode, eventually, patient, testClient, testNatsUrl } from "@imprint/runtime/testing";
import { TokenServiceService } from "@imprint/proto/identity/v1/tokens";

// The service's own process (dist/main.js) under real signals: SIGTERM drains (unready, still
// serving), a second SIGTERM ends the drain, and the process stops and exits 0.

const MAIN = join(import.meta.dirname, "..", "dist", "main.js");
let child: ChildProcess | undefined;
afterAll(() => {
  if (child && child.exitCode === null && child.signalCode === null) child.kill("SIGKILL");
});

describe("identity's process on SIGTERM", () => {
  it("turns readiness off but keeps serving new calls while it drains; a second SIGTERM ends the drain and it exits 0", async () => {
    const lines: Record<string, unknown>[] = [];
    child = spawn(process.execPath, [MAIN], {
      env: {
        PATH: process.env.PATH,
        DATABASE_URL: await createTestDatabase(inject("pgAdminUrl"), "identity_sigterm"),
        NATS_URL: await testNatsUrl(),
        GRPC_HOST: "127.0.0.1",
        GRPC_PORT: "0",
        LOG_LEVEL: "info",
        LOG_FORMAT: "json",
        // Far longer than the test: only the second signal ends it.
        SHUTDOWN_DRAIN_MS: "600000",
        SHUTDOWN_GRACE_MS: "1000",
      },
      stdio: ["ignore", "pipe", "pipe"],
    });
    let buffered = "";
    child.stdout!.on("data", (chunk: Buffer) => {
      buffered += chunk.toString();
      const complete = buffered.split("\n");
      buffered = complete.pop()!;
      for (const line of complete) if (line.startsWith("{")) lines.push(JSON.parse(line) as Record<string, unknown>);
    });
    const exited = new Promise<number | null>((resolve) => child!.once("exit", (code) => resolve(code)));
    const logged = (message: string) => lines.find((line) => line.msg === message);

    const started = await eventually(async () => logged("service started"), patient(30_000));
    const address = String(started.address);
    expect(await checkHealth(address)).toBe("SERVING");

    child.kill("SIGTERM");
    await eventually(async () => (await checkHealth(address)) === "NOT_SERVING");
    expect(await checkHealth(address, "imprint.identity.v1.TokenService")).toBe("NOT_SERVING");
    expect(await checkHealth(address, LIVENESS_SERVICE)).toBe("SERVING");
    // A new caller during the drain is answered by the service itself (an unknown token), not refused.
    const client = testClient(TokenServiceService, address);
    try {
      expect(await errorCode(client.authenticateToken({ token: "imp_unknown_token_during_the_drain_01" }))).toBe("unauthenticated");
    } finally {
      client.close();
    }
    expect(child.exitCode).toBeNull();

    child.kill("SIGTERM");
    expect(await exited).toBe(0);
    expect(logged("second signal; ending the drain")).toBeDefined();
    expect(logged("service stopped")).toBeDefined();
    expect(await checkHealth(address)).toBe("UNREACHABLE");
  });
});
