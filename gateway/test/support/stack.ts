import { loadIdentityConfig, startIdentityService } from "@imprint/identity";
import { IdentityServiceService } from "@imprint/proto/identity/v1";
import { createLogger, createPromiseClient, type Logger, type PromiseClient } from "@imprint/runtime";
import { createTestDatabase } from "@imprint/runtime/testing";
import { inject } from "vitest";
import { loadGatewayConfig, startGateway, type GatewayHandle } from "../../src/index.js";

declare module "vitest" {
  // Provided by the runtime's global setup (services/runtime/src/testing/global-setup.ts).
  export interface ProvidedContext {
    pgAdminUrl: string;
    natsUrl: string;
  }
}

/**
 * A real stack for end-to-end tests: each upstream service in-process on its own fresh database,
 * the shared PostgreSQL and nats-server from the global setup, and the gateway in front on a free
 * port. One stack per test file (beforeAll/afterAll); tests create their own organizations.
 *
 * Adding a service later: one entry in UPSTREAM_STARTERS (its start function and the gateway
 * variable that receives its address), plus its admin client below if tests need one.
 */
interface RunningUpstream {
  address: string;
  stop(): Promise<void>;
}

const UPSTREAM_STARTERS: Record<string, { addressVariable: string; start: (logger: Logger) => Promise<RunningUpstream> }> = {
  identity: {
    addressVariable: "IDENTITY_GRPC_ADDRESS",
    start: async (logger) => {
      const databaseUrl = await createTestDatabase(inject("pgAdminUrl"), "identity");
      const config = loadIdentityConfig({ GRPC_HOST: "127.0.0.1", GRPC_PORT: "0", DATABASE_URL: databaseUrl, NATS_URL: inject("natsUrl") });
      return startIdentityService(config, { logger });
    },
  },
};

export interface TestStack {
  /** Gateway base URL, e.g. http://127.0.0.1:43121 (paths start with /v1). */
  baseUrl: string;
  /** Admin client of the identity service, for test setup (CreateOrganization, IssueToken, ...). */
  identity: PromiseClient<typeof IdentityServiceService>;
  /** Log lines written by the gateway, parsed. */
  gatewayLogs: Record<string, unknown>[];
  /** Stops one upstream while the gateway keeps running (to test outages). */
  stopUpstream(name: keyof typeof UPSTREAM_STARTERS): Promise<void>;
  stop(): Promise<void>;
}

function captureLogger(service: string, sink?: Record<string, unknown>[]): Logger {
  return createLogger(service, {
    level: sink ? "info" : "error",
    write: (line) => {
      if (sink) sink.push(JSON.parse(line) as Record<string, unknown>);
      else process.stderr.write(line + "\n");
    },
  });
}

export async function startStack(options: { gatewayEnv?: Record<string, string> } = {}): Promise<TestStack> {
  const upstreams = new Map<string, RunningUpstream>();
  let gateway: GatewayHandle | undefined;
  const gatewayLogs: Record<string, unknown>[] = [];
  const stopAll = async () => {
    await gateway?.stop();
    await Promise.allSettled([...upstreams.values()].map((u) => u.stop()));
    upstreams.clear();
  };
  try {
    const env: Record<string, string> = { IMPRINT_HOST: "127.0.0.1", IMPRINT_PORT: "0", SHUTDOWN_GRACE_MS: "1000" };
    for (const [name, starter] of Object.entries(UPSTREAM_STARTERS)) {
      const running = await starter.start(captureLogger(name));
      upstreams.set(name, running);
      env[starter.addressVariable] = running.address;
    }
    gateway = await startGateway(loadGatewayConfig({ ...env, ...options.gatewayEnv }), {
      logger: captureLogger("gateway", gatewayLogs),
    });
  } catch (error) {
    await stopAll();
    throw error;
  }
  const identity = createPromiseClient(IdentityServiceService, upstreams.get("identity")!.address);
  return {
    baseUrl: gateway.url,
    identity,
    gatewayLogs,
    stopUpstream: async (name) => {
      await upstreams.get(name)?.stop();
      upstreams.delete(name);
    },
    stop: async () => {
      identity.close();
      await stopAll();
    },
  };
}
