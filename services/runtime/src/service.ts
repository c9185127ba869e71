import type { MikroORM, Options } from "@mikro-orm/postgresql";
import type { z } from "zod";
import { loadConfig, serviceConfigShape } from "./config.js";
import { migrateDatabase, openDatabase } from "./db/orm.js";
import { IdempotentCalls, pruneIdempotentCallsJob } from "./db/idempotent-calls.js";
import { createUnitOfWork, useTransactionClock, type UnitOfWork } from "./db/unit-of-work.js";
import { backoffDelay, connectNatsInBackground, ensureStream, type NatsLink, type StreamSettings } from "./events/nats.js";
import { pruneProcessedEventsJob } from "./events/prune-processed-events.js";
import { OutboxRelay } from "./events/outbox-relay.js";
import { startSubscription, type ConsumerStats, type SubscribeOptions, type Subscription } from "./events/subscribe.js";
import { startGrpcServer, type GrpcServerHandle, type ServiceRegistration } from "./grpc/server.js";
import type { CoHostedServices } from "./grpc/co-hosted.js";
import { closeUpstreams, openUpstreams, type OpenedUpstreams, type UpstreamSpec, type UpstreamSpecs } from "./grpc/upstreams.js";
import { JobRunner, type JobControl, type JobSpec } from "./jobs/job-runner.js";
import { createLogger, type Logger } from "./logger.js";
import { drainPeriod, runMain, runTask } from "./process.js";
import { ReadinessProbe, type ReadinessProbeOptions } from "./readiness.js";
import { serveMetrics, type MetricsListener } from "./metrics/endpoint.js";

export type Clock = () => Date;
export type ServiceConfig = z.infer<z.ZodObject<typeof serviceConfigShape>>;

/** What a service's transports and use cases are built from. */
export interface ServiceDeps {
  orm: MikroORM;
  /** NATS, which may not be reachable yet: a service starts and serves without it. */
  nats: NatsLink;
  logger: Logger;
  clock: Clock;
  relay: OutboxRelay;
  /** Runs a use case's transaction and wakes `relay` once it committed. */
  unitOfWork: UnitOfWork;
  /** Wakes the service's background jobs (the spec's `jobs`) when work for them was queued. */
  jobs: JobControl;
  config: ServiceConfig;
}

export type ConsumerSpec = Omit<SubscribeOptions, "nats" | "orm" | "logger">;

/**
 * How a service builds its own deps (what its use cases, handlers, consumers and jobs receive)
 * from the runtime's: once per started service, when the first hook asks for them (lazy,
 * memoized), so every hook shares one set (one cache, one client, one resumer). `close` runs at
 * stop, once gRPC, jobs and consumers have stopped and while the database and NATS are still open.
 */
export interface ServiceDepsBuilder<Deps, Upstreams = OpenedUpstreams<NoUpstreams>> {
  /** `upstreams`: the clients of the spec's declared upstreams, opened by the runtime. */
  build(runtime: ServiceDeps, upstreams: Upstreams): Deps;
  close?(deps: Deps): Promise<void> | void;
}

/** What a service's start function (startIdentityService, …) takes beside its config. */
export interface ServiceStartOptions {
  /** Its clock (tests set one); real time by default. */
  clock?: Clock;
  logger?: Logger;
  /** The services of the targets hosted in this process (hostTargets): its upstreams among them are called directly, and it joins them. */
  coHosted?: CoHostedServices;
}

/** A service that calls no other. */
export type NoUpstreams = Record<never, UpstreamSpec>;

/** A builder whose deps are the runtime's own (for a service without deps of its own). */
export const runtimeDeps: ServiceDepsBuilder<ServiceDeps> = { build: (runtime) => runtime };

export interface ServiceSpec<Deps = ServiceDeps, Upstreams extends UpstreamSpecs = NoUpstreams> {
  /** e.g. "identity" (logs, NATS connection name). */
  name: string;
  /** Bounded context: stream IMPRINT_<CONTEXT> on imprint.<context>.v1.> */
  context: string;
  entities: Options["entities"];
  /** Absolute path of the service's compiled migrations (dist/migrations). */
  migrationsPath: string;
  /**
   * The gRPC services it calls, by upstream (`{ identity: identityUpstream(config.IDENTITY_GRPC_ADDRESS), content: {...} }`):
   * the runtime opens their clients before the deps are built and closes them at stop, after the deps.
   */
  upstreams?: Upstreams;
  /** The service's deps, built once from the runtime's and the upstreams' clients; every hook below receives them, and the runtime's. */
  deps: ServiceDepsBuilder<Deps, OpenedUpstreams<Upstreams>>;
  grpc: (deps: Deps, runtime: ServiceDeps) => ServiceRegistration[];
  consumers?: (deps: Deps, runtime: ServiceDeps) => ConsumerSpec[];
  /**
   * Background jobs, each run by one replica at a time (see JobRunner); they start with the service.
   * The runtime adds its own to every service: pruning `processed_events` past PROCESSED_EVENTS_RETENTION_MS
   * and `idempotent_calls` past IDEMPOTENT_CALLS_RETENTION_MS (24 h).
   */
  jobs?: (deps: Deps, runtime: ServiceDeps) => JobSpec[];
  /** Runs after everything is up and before health turns SERVING (e.g. a first-run bootstrap). */
  onStarted?: (deps: Deps, runtime: ServiceDeps) => Promise<void>;
}

export interface RunningService {
  name: string;
  address: string;
  port: number;
  orm: MikroORM;
  nats: NatsLink;
  relay: OutboxRelay;
  /** Where this service's process serves its metrics (METRICS_PORT), when it does. */
  metricsUrl?: string;
  /** Each durable consumer's counters in this process (retries, dead letters, ...), by name. */
  consumerStats(): Record<string, ConsumerStats>;
  /**
   * The first half of a graceful stop: readiness (health "" and every gRPC service's name) turns
   * NOT_SERVING at once, liveness stays SERVING, and every call, new ones included, is still
   * served for `ms` (default SHUTDOWN_DRAIN_MS) or until `signal` aborts. Then call `stop`.
   */
  drain(signal?: AbortSignal, ms?: number): Promise<void>;
  /** Stops taking calls, lets running ones finish (SHUTDOWN_GRACE_MS), then stops jobs (releasing their leases), consumers, relay, NATS, database. */
  stop(): Promise<void>;
}

/**
 * The health service name that answers liveness: SERVING as long as the process answers at all
 * (its event loop runs), whatever its database does. Readiness is the overall status ("") and
 * each gRPC service's own.
 */
export const LIVENESS_SERVICE = "liveness";

/** How long a start with NATS reachable waits for its stream and consumers before it goes on (they then start later). */
const NATS_START_WAIT_MS = 3_000;

function setHealth(grpc: GrpcServerHandle, services: ServiceRegistration[], status: "SERVING" | "NOT_SERVING"): void {
  grpc.health.setStatus("", status);
  for (const service of services) grpc.health.setStatus(service.name, status);
}

/**
 * Starts one service: database (with migrations), the outbox relay, the service's deps (built
 * once, see ServiceDepsBuilder), event consumers, the gRPC server, then its background jobs. Health reports SERVING only when all of that and `onStarted`
 * succeeded; from then on it follows the database (readiness, see ReadinessProbe). NATS is not
 * needed to start: the connection, the streams and the consumers come up in the background when
 * it is reachable (the outbox keeps events meanwhile). A failure on the way stops what was already
 * started.
 */
export async function startService<Deps, Upstreams extends UpstreamSpecs = NoUpstreams>(
  spec: ServiceSpec<Deps, Upstreams>,
  config: ServiceConfig,
  options: ServiceStartOptions & { readiness?: Partial<ReadinessProbeOptions> } = {},
): Promise<RunningService> {
  const logger = options.logger ?? createLogger(spec.name, { level: config.LOG_LEVEL, format: config.LOG_FORMAT });
  const clock = options.clock ?? (() => new Date());
  let orm: MikroORM | undefined;
  let nats: NatsLink | undefined;
  let relay: OutboxRelay | undefined;
  let jobs: JobRunner | undefined;
  let grpc: GrpcServerHandle | undefined;
  let metrics: MetricsListener | undefined;
  let readiness: ReadinessProbe | undefined;
  let streams: ReturnType<typeof keepStream> | undefined;
  let built: { deps: Deps } | undefined;
  let upstreams: OpenedUpstreams<Upstreams> | undefined;
  const subscriptions: Subscription[] = [];
  let services: ServiceRegistration[] = [];
  let draining: Promise<void> | undefined;
  const drain = (signal?: AbortSignal, ms = config.SHUTDOWN_DRAIN_MS) => {
    draining ??= (async () => {
      // The probe would turn health back to SERVING while the database answers.
      readiness?.stop();
      if (grpc) setHealth(grpc, services, "NOT_SERVING");
      logger.info("draining: unready, still serving", { drainMs: ms });
      await drainPeriod(ms, signal);
    })();
    return draining;
  };

  let stopping: Promise<void> | undefined;
  const stop = () => {
    stopping ??= (async () => {
      const step = async (what: string, action: () => Promise<unknown>) => {
        try {
          await action();
        } catch (error) {
          logger.error(`shutdown step failed: ${what}`, { err: error });
        }
      };
      readiness?.stop();
      // Health goes NOT_SERVING first, then running calls get the grace period to finish.
      if (grpc) await step("grpc", () => grpc!.shutdown(config.SHUTDOWN_GRACE_MS));
      if (metrics) await step("metrics", () => metrics!.close());
      // Before the relay stops, so the events of a job's last run are still published.
      if (jobs) await step("jobs", () => jobs!.stop());
      for (const subscription of subscriptions) await step("consumer", () => subscription.stop());
      if (built && spec.deps.close) await step("service deps", async () => spec.deps.close!(built!.deps));
      if (upstreams) await step("upstream clients", async () => closeUpstreams(upstreams!));
      if (relay) await step("outbox relay", () => relay!.stop());
      if (streams) await step("streams", () => streams!.stop());
      if (nats) await step("nats", () => nats!.close());
      if (orm) await step("database", () => orm!.close(true));
      logger.info("service stopped");
    })();
    return stopping;
  };

  try {
    orm = await openDatabase({
      url: config.DATABASE_URL,
      entities: [...(spec.entities ?? [])],
      migrationsPath: spec.migrationsPath,
      runMigrations: !config.SKIP_MIGRATIONS,
      logger,
      metricsService: spec.name,
    });
    // Transactions (and the events they record) take their time from the service's clock.
    useTransactionClock(orm, clock);
    nats = connectNatsInBackground(config.NATS_URL, spec.name, logger);
    streams = keepStream(
      nats,
      spec.context,
      { replicas: config.NATS_STREAM_REPLICAS, maxAgeMs: config.NATS_STREAM_MAX_AGE_MS, maxBytes: config.NATS_STREAM_MAX_BYTES },
      logger,
    );
    relay = new OutboxRelay({ orm, nats, context: spec.context, logger, clock, service: spec.name });
    relay.start();
    jobs = new JobRunner({ orm, logger, clock, service: spec.name });
    // Keyed writes: the gRPC server answers them from here, the unit of work claims their keys.
    const keyedCalls = new IdempotentCalls(orm, clock);
    const runtime: ServiceDeps = { orm, nats, logger, clock, relay, unitOfWork: createUnitOfWork(relay, keyedCalls), jobs, config };
    // Nothing connects before a first call: a service starts whichever of its upstreams are down.
    upstreams = openUpstreams((spec.upstreams ?? {}) as Upstreams, { coHosted: options.coHosted });
    const opened = upstreams;
    const deps = () => (built ??= { deps: spec.deps.build(runtime, opened) }).deps;
    const activeRelay = relay;
    for (const consumer of spec.consumers?.(deps(), runtime) ?? []) {
      subscriptions.push(
        startSubscription({
          clock,
          streamReplicas: config.NATS_STREAM_REPLICAS,
          concurrency: config.EVENT_CONCURRENCY,
          ...consumer,
          nats,
          orm,
          logger,
          afterCommit: () => {
            consumer.afterCommit?.();
            activeRelay.notify();
          },
        }),
      );
    }
    // With NATS up, start as before (stream and consumers in place); with NATS down, go on.
    const natsReady = Promise.all([streams.ready, ...subscriptions.map((subscription) => subscription.ready)]);
    const waited = (await nats.firstAttempt) && (await within(natsReady, NATS_START_WAIT_MS));
    if (!waited) logger.warn("NATS not ready yet; serving without it (events wait in the outbox, consumers start once it is reachable)");
    services = spec.grpc(deps(), runtime);
    grpc = await startGrpcServer({
      host: config.GRPC_HOST,
      port: config.GRPC_PORT,
      services,
      logger,
      keyedCalls,
      channelz: config.GRPC_CHANNELZ,
      coHosted: options.coHosted,
    });
    grpc.health.setStatus(LIVENESS_SERVICE, "SERVING");
    setHealth(grpc, services, "NOT_SERVING");
    if (config.METRICS_PORT !== undefined) {
      metrics = await serveMetrics({ host: config.METRICS_HOST, port: config.METRICS_PORT, token: config.METRICS_TOKEN, logger });
    }
    await spec.onStarted?.(deps(), runtime);
    const pruning = pruneProcessedEventsJob({ orm, logger, clock, retentionMs: config.PROCESSED_EVENTS_RETENTION_MS });
    const pruningKeyedCalls = pruneIdempotentCallsJob({ orm, logger, clock });
    jobs.start([...(spec.jobs?.(deps(), runtime) ?? []), pruning, pruningKeyedCalls]);
    setHealth(grpc, services, "SERVING");
    const activeGrpc = grpc;
    readiness = new ReadinessProbe({
      url: config.DATABASE_URL,
      logger,
      ...options.readiness,
      onChange: (ready) => {
        if (!draining) setHealth(activeGrpc, services, ready ? "SERVING" : "NOT_SERVING");
      },
    });
    readiness.start();
    logger.info("service started", { address: grpc.address, context: spec.context });
    const consumerStats = () => Object.fromEntries(subscriptions.map((subscription) => [subscription.consumer, subscription.stats]));
    return { name: spec.name, address: grpc.address, port: grpc.port, metricsUrl: metrics?.url, orm, nats, relay, consumerStats, drain, stop };
  } catch (error) {
    await stop();
    throw error;
  }
}

/** True when `promise` settled within `ms` (its outcome is left to its owner). */
async function within(promise: Promise<unknown>, ms: number): Promise<boolean> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<false>((resolve) => {
    timer = setTimeout(() => resolve(false), ms);
  });
  try {
    return await Promise.race([
      promise.then(
        () => true,
        () => true,
      ),
      timeout,
    ]);
  } finally {
    clearTimeout(timer);
  }
}

/**
 * Creates the service's own stream once NATS is reachable, and again after every reconnect (a
 * NATS restarted without its store lost it), so the outbox relay can publish.
 */
function keepStream(link: NatsLink, context: string, settings: StreamSettings, logger: Logger): { ready: Promise<void>; stop(): Promise<void> } {
  let stopped = false;
  let wake: (() => void) | undefined;
  let signalStopped!: () => void;
  const stoppedSignal = new Promise<undefined>((resolve) => {
    signalStopped = () => resolve(undefined);
  });
  const ensure = async (nc: Awaited<NatsLink["connected"]> | undefined) => {
    if (!nc) return;
    for (let attempt = 1; !stopped && !nc.isClosed(); attempt += 1) {
      try {
        await ensureStream(nc, context, settings);
        return;
      } catch (error) {
        const delay = backoffDelay(attempt, 5_000);
        logger.warn("could not create the event stream; retrying", { attempt, nextDelayMs: delay, err: error });
        await new Promise<void>((resolve) => {
          const timer = setTimeout(resolve, delay);
          wake = () => {
            clearTimeout(timer);
            resolve();
          };
        });
      }
    }
  };
  const ready = Promise.race([link.connected, stoppedSignal]).then(ensure, () => undefined);
  const following = ready.then(async () => {
    const nc = link.current;
    if (!nc) return;
    for await (const status of nc.status()) {
      if (stopped) return;
      if (status.type === "reconnect") await ensure(nc);
    }
  });
  return {
    ready,
    stop: async () => {
      stopped = true;
      signalStopped();
      wake?.();
      await ready;
      // `following` ends with the connection, which closes after this.
      void following;
    },
  };
}

/** Settings of a service's migrate mode: its database only (no NATS, gRPC or upstreams). */
export const migrateConfigShape = {
  DATABASE_URL: serviceConfigShape.DATABASE_URL,
  LOG_LEVEL: serviceConfigShape.LOG_LEVEL,
  LOG_FORMAT: serviceConfigShape.LOG_FORMAT,
};

/** Applies a service's pending migrations under the migration lock; returns the names applied. */
export async function migrateService(
  spec: Pick<ServiceSpec<unknown>, "name" | "migrationsPath">,
  env: Record<string, string | undefined>,
  logger: Logger,
): Promise<string[]> {
  // An empty variable is treated as unset, as the services' own configs do.
  const config = loadConfig(migrateConfigShape, Object.fromEntries(Object.entries(env).filter(([, value]) => value !== "")));
  const applied = await migrateDatabase({ url: config.DATABASE_URL, migrationsPath: spec.migrationsPath, logger });
  if (applied.length === 0) logger.info("database schema is up to date", { service: spec.name });
  return applied;
}

/**
 * Entry point of a service process: `main.js` serves until SIGTERM; `main.js migrate` applies the
 * pending migrations and exits (the image's `migrate <service>`, which the chart's migration Jobs
 * run before the Deployments start with SKIP_MIGRATIONS=true).
 */
export function runServiceMain(options: {
  name: string;
  migrationsPath: string;
  start: () => Promise<{ stop(): Promise<void> }>;
  logger: Logger;
  argv?: readonly string[];
  env?: Record<string, string | undefined>;
}): void {
  const [mode, ...extra] = (options.argv ?? process.argv).slice(2);
  if (mode === undefined) {
    runMain(options.start, options.logger);
  } else if (mode === "migrate" && extra.length === 0) {
    runTask(() => migrateService(options, options.env ?? process.env, options.logger), options.logger);
  } else {
    process.stderr.write(`usage: ${options.name} [migrate]\n`);
    process.exitCode = 2;
  }
}
