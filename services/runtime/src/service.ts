import type { MikroORM, Options } from "@mikro-orm/postgresql";
import type { NatsConnection } from "@nats-io/transport-node";
import type { z } from "zod";
import type { serviceConfigShape } from "./config.js";
import { openDatabase } from "./db/orm.js";
import { connectNats, ensureStream } from "./events/nats.js";
import { OutboxRelay } from "./events/outbox-relay.js";
import { subscribe, type SubscribeOptions, type Subscription } from "./events/subscribe.js";
import { startGrpcServer, type GrpcServerHandle, type ServiceRegistration } from "./grpc/server.js";
import { createLogger, type Logger } from "./logger.js";

export type Clock = () => Date;
export type ServiceConfig = z.infer<z.ZodObject<typeof serviceConfigShape>>;

/** What a service's transports and use cases are built from. */
export interface ServiceDeps {
  orm: MikroORM;
  nats: NatsConnection;
  logger: Logger;
  clock: Clock;
  relay: OutboxRelay;
  config: ServiceConfig;
}

export type ConsumerSpec = Omit<SubscribeOptions, "nats" | "orm" | "logger">;

export interface ServiceSpec {
  /** e.g. "identity" (logs, NATS connection name). */
  name: string;
  /** Bounded context: stream IMPRINT_<CONTEXT> on imprint.<context>.v1.> */
  context: string;
  entities: Options["entities"];
  /** Absolute path of the service's compiled migrations (dist/migrations). */
  migrationsPath: string;
  grpc: (deps: ServiceDeps) => ServiceRegistration[];
  consumers?: (deps: ServiceDeps) => ConsumerSpec[];
  /** Runs after everything is up and before health turns SERVING (e.g. a first-run bootstrap). */
  onStarted?: (deps: ServiceDeps) => Promise<void>;
}

export interface RunningService {
  name: string;
  address: string;
  port: number;
  orm: MikroORM;
  nats: NatsConnection;
  relay: OutboxRelay;
  stop(): Promise<void>;
}

function setHealth(grpc: GrpcServerHandle, services: ServiceRegistration[], status: "SERVING" | "NOT_SERVING"): void {
  grpc.health.setStatus("", status);
  for (const service of services) grpc.health.setStatus(service.name, status);
}

/**
 * Starts one service: database (with migrations), NATS and its stream, the outbox relay, event
 * consumers, then the gRPC server. Health reports SERVING only when all of that and `onStarted`
 * succeeded. A failure on the way stops what was already started.
 */
export async function startService(
  spec: ServiceSpec,
  config: ServiceConfig,
  options: { clock?: Clock; logger?: Logger } = {},
): Promise<RunningService> {
  const logger = options.logger ?? createLogger(spec.name, { level: config.LOG_LEVEL });
  const clock = options.clock ?? (() => new Date());
  let orm: MikroORM | undefined;
  let nats: NatsConnection | undefined;
  let relay: OutboxRelay | undefined;
  let grpc: GrpcServerHandle | undefined;
  const subscriptions: Subscription[] = [];

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
      // Health goes NOT_SERVING first, then running calls get the grace period to finish.
      if (grpc) await step("grpc", () => grpc!.shutdown(config.SHUTDOWN_GRACE_MS));
      for (const subscription of subscriptions) await step("consumer", () => subscription.stop());
      if (relay) await step("outbox relay", () => relay!.stop());
      if (nats) await step("nats", () => nats!.drain());
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
    });
    nats = await connectNats(config.NATS_URL, spec.name);
    await ensureStream(nats, spec.context);
    relay = new OutboxRelay({ orm, nats, context: spec.context, logger, clock });
    relay.start();
    const deps: ServiceDeps = { orm, nats, logger, clock, relay, config };
    const activeRelay = relay;
    for (const consumer of spec.consumers?.(deps) ?? []) {
      subscriptions.push(
        await subscribe({
          clock,
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
    const services = spec.grpc(deps);
    grpc = await startGrpcServer({ host: config.GRPC_HOST, port: config.GRPC_PORT, services, logger });
    setHealth(grpc, services, "NOT_SERVING");
    await spec.onStarted?.(deps);
    setHealth(grpc, services, "SERVING");
    logger.info("service started", { address: grpc.address, context: spec.context });
    return { name: spec.name, address: grpc.address, port: grpc.port, orm, nats, relay, stop };
  } catch (error) {
    await stop();
    throw error;
  }
}
