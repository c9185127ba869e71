import { loadCollaborationConfig, startCollaborationService } from "@imprint/collaboration";
import { loadContentConfig, startContentService } from "@imprint/content";
import { loadIdentityConfig, startIdentityService } from "@imprint/identity";
import { loadIntegrationConfig, startIntegrationService } from "@imprint/integration";
import { loadPublishingConfig, startPublishingService } from "@imprint/publishing";
import { createLogger } from "@imprint/runtime/core";
import { getFreePort } from "@imprint/runtime/infrastructure";
import { patient, startServices, TestClock, testLogger, type LogLine, type ServiceClients } from "@imprint/runtime/testing";
import { loadGatewayConfig, startGateway } from "../../src/index.js";

/**
 * A real stack for end-to-end tests, through the test kit: each upstream service in-process on its
 * own fresh database, the shared PostgreSQL and this test file's nats-server, and the gateway in
 * front on a free port. One stack per test file (beforeAll/afterAll); tests create their own
 * organizations.
 *
 * Adding a service later: one target before the gateway's (its address reaches the gateway as
 * <NAME>_GRPC_ADDRESS), and its clients in the kit's ServiceClients if tests need them.
 */
export interface TestStack {
  /** Gateway base URL, e.g. http://127.0.0.1:43121 (paths start with /v1). */
  baseUrl: string;
  /** Admin client of the identity service, for test setup (CreateOrganization, IssueToken, ...). */
  identity: ServiceClients["identity"];
  /** Clients of every upstream, for test setup (the kit's factories take them). */
  clients: ServiceClients;
  /** The content service's gRPC address (for its internal APIs, e.g. editing, in test setup). */
  contentAddress: string;
  /** The publishing service's gRPC address (the reader's upstream). */
  publishingAddress: string;
  /** The integration service's gRPC address (the reader reports page views and reads sites' scripts there). */
  integrationAddress: string;
  /** The clock of content and collaboration (e.g. to reach the day after a deleted space's retention); identity's and the gateway's when asked. */
  clock: TestClock;
  /** The PostgreSQL URL of a service's database (for a state no API sets, e.g. a disabled member). */
  databaseUrl(name: "identity" | "content" | "collaboration" | "publishing" | "integration"): string;
  /** The gateway's environment naming its upstreams (<NAME>_GRPC_ADDRESS), to start more gateways on the stack. */
  upstreamEnv: Record<string, string>;
  /** Log lines written by the gateway, parsed. */
  gatewayLogs: LogLine[];
  /** Warnings and errors written by the content service, parsed. */
  contentLogs: LogLine[];
  /** Stops one upstream while the gateway keeps running (to test outages). */
  stopUpstream(name: "identity" | "content" | "collaboration" | "publishing" | "integration"): Promise<void>;
  stop(): Promise<void>;
}

/** Tests send many requests with one token, and all from 127.0.0.1: the limiter counts, out of reach (rate-limit tests set theirs). */
export const UNREACHED_RATE_LIMITS = Object.fromEntries(
  ["TOKEN_READS", "TOKEN_WRITES", "TOKEN_EXPENSIVE", "IP_READS", "IP_WRITES", "IP_EXPENSIVE"].map((name) => [`RATE_LIMIT_${name}`, "1000000000"]),
);

export async function startStack(
  options: {
    gatewayEnv?: Record<string, string>;
    contentEnv?: Record<string, string>;
    collaborationEnv?: Record<string, string>;
    integrationEnv?: Record<string, string>;
    identityEnv?: Record<string, string>;
    /** Identity runs on the stack's clock too (its sessions' and lockouts' times). */
    identityOnClock?: boolean;
    /** The gateway runs on the stack's clock too (its token cache's freshness and stale-if-error window). */
    gatewayOnClock?: boolean;
  } = {},
): Promise<TestStack> {
  const clock = new TestClock();
  // The gateway's port is chosen first: upstreams build public URLs (e.g. signed file URLs) on it.
  const port = await getFreePort();
  // Upstreams' errors are shown: they often explain a failing end-to-end test.
  const upstreamLogger = (name: string) => testLogger(name, { stderr: true });
  const gatewayLogger = testLogger("gateway", { level: "info", record: true });
  // Content's warnings are kept for the tests that check one; its errors are shown as the others'.
  const contentLogs: LogLine[] = [];
  const contentLogger = createLogger("content", {
    level: "warn",
    format: "json",
    write: (line) => {
      const parsed = JSON.parse(line) as LogLine;
      contentLogs.push(parsed);
      if (parsed.level === "error") process.stderr.write(`${line}\n`);
    },
  });
  const services = await startServices([
    {
      name: "identity",
      config: loadIdentityConfig,
      start: startIdentityService,
      logger: upstreamLogger("identity"),
      ...(options.identityOnClock ? { clock: clock.now } : {}),
      ...(options.identityEnv ? { env: options.identityEnv } : {}),
    },
    {
      name: "content",
      config: loadContentConfig,
      start: startContentService,
      clock: clock.now,
      logger: contentLogger,
      // Tests serve sites to import from loopback.
      env: { IMPRINT_PUBLIC_URL: `http://127.0.0.1:${port}`, IMPRINT_ALLOW_PRIVATE_FETCH: "true", ...options.contentEnv },
    },
    {
      name: "collaboration",
      config: loadCollaborationConfig,
      start: startCollaborationService,
      clock: clock.now,
      logger: upstreamLogger("collaboration"),
      ...(options.collaborationEnv ? { env: options.collaborationEnv } : {}),
    },
    { name: "publishing", config: loadPublishingConfig, start: startPublishingService, clock: clock.now, logger: upstreamLogger("publishing") },
    {
      name: "integration",
      config: loadIntegrationConfig,
      start: startIntegrationService,
      clock: clock.now,
      logger: upstreamLogger("integration"),
      // Tests run development tunnels and scripts' fetches on loopback.
      env: { IMPRINT_PUBLIC_URL: `http://127.0.0.1:${port}`, IMPRINT_ALLOW_PRIVATE_FETCH: "true", ...options.integrationEnv },
    },
    {
      name: "gateway",
      database: false,
      config: loadGatewayConfig,
      start: startGateway,
      logger: gatewayLogger,
      ...(options.gatewayOnClock ? { clock: clock.now } : {}),
      // Upstream deadlines scaled like every other wait of the tests: a busy CI machine is slow, not broken.
      env: {
        IMPRINT_HOST: "127.0.0.1",
        IMPRINT_PORT: String(port),
        UPSTREAM_TIMEOUT_MS: String(patient(10_000)),
        ...UNREACHED_RATE_LIMITS,
        ...options.gatewayEnv,
      },
    },
  ]);
  return {
    baseUrl: services.url("gateway"),
    identity: services.clients.identity,
    clients: services.clients,
    contentAddress: services.address("content"),
    publishingAddress: services.address("publishing"),
    integrationAddress: services.address("integration"),
    clock,
    databaseUrl: (name) => services.databaseUrl(name),
    upstreamEnv: Object.fromEntries(
      (["identity", "content", "collaboration", "publishing", "integration"] as const).map((name) => [
        `${name.toUpperCase()}_GRPC_ADDRESS`,
        services.address(name),
      ]),
    ),
    gatewayLogs: gatewayLogger.lines,
    contentLogs,
    stopUpstream: services.stopTarget,
    stop: services.stop,
  };
}
