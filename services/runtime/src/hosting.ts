import { ConfigError } from "./config.js";
import { CoHostedServices } from "./grpc/co-hosted.js";
import { createLogger, LOG_FORMATS, type LogFormat, type Logger, type LogLevel } from "./logger.js";

/**
 * Hosting several targets (the gateway and the services) in one process, or one each, from the same
 * code and the same variables: the process is given a list of targets (IMPRINT_TARGETS), starts them
 * in dependency order, passes each the gRPC addresses of the upstreams it hosts itself, and stops
 * them in reverse order. Every service keeps its own database, NATS connection, outbox relay and
 * gRPC server. A target calls the services hosted beside it directly (CoHostedServices: the same
 * handlers, deadlines, metadata, errors and encoded messages, no socket), unless
 * IMPRINT_DIRECT_CALLS=false, and every other over gRPC, so one process behaves as the split
 * hosting does.
 *
 * Settings: every target reads the process's environment, in which a per-target form
 * `<TARGET>_<SETTING>` (e.g. CONTENT_DATABASE_URL, IDENTITY_GRPC_PORT, GATEWAY_LOG_LEVEL) wins over
 * `<SETTING>` for that target alone. Settings that cannot be shared in one process (a service's
 * database, a fixed gRPC port) must then differ per target, which the host checks before starting
 * anything.
 */

export type TargetEnv = Record<string, string | undefined>;

/** A started target: services report the gRPC address they listen on, the gateway its URL. */
export interface RunningTarget {
  address?: string;
  url?: string;
  /** Readiness off, still serving, for its SHUTDOWN_DRAIN_MS or until `signal` aborts (see Drainable). */
  drain?(signal: AbortSignal): Promise<void>;
  stop(): Promise<void>;
}

/** What the host gives each target it starts, beyond its settings and logger. */
export interface TargetHost {
  /** The services of the targets hosted in this process, to call directly and to join; absent when direct calls are off. */
  coHosted?: CoHostedServices;
}

export interface HostableTarget<Config = unknown> {
  /** e.g. "content": the IMPRINT_TARGETS name and the prefix of its per-target settings (CONTENT_…). */
  name: string;
  /** Targets whose gRPC address it needs, as `<NAME>_GRPC_ADDRESS`; the ones hosted here are filled in. */
  upstreams: readonly string[];
  /** Whether it owns a database and a gRPC server (DATABASE_URL and GRPC_PORT must then be its own). */
  service: boolean;
  /** Reads and checks its settings (throws ConfigError listing every problem). */
  load(env: TargetEnv): Config;
  start(config: Config, logger: Logger, host: TargetHost): Promise<RunningTarget>;
}

export interface HostedTargets {
  /** Names of the hosted targets, in start order. */
  names: string[];
  /** gRPC address of each hosted service (e.g. { identity: "127.0.0.1:40123" }). */
  addresses: Record<string, string>;
  /** The services its targets call each other through directly (absent with IMPRINT_DIRECT_CALLS=false). */
  coHosted?: CoHostedServices;
  /** Drains every target at once (each unready, all still serving) until the longest drain is over or `signal` aborts. */
  drain(signal: AbortSignal): Promise<void>;
  /** Stops the targets in reverse dependency order (the gateway first); once. */
  stop(): Promise<void>;
}

/** The variable naming the targets of a process, and the word for all of them. */
export const TARGETS_SETTING = "IMPRINT_TARGETS";
export const ALL_TARGETS = "all";
/** The variable that turns direct calls between co-hosted targets off (`false`); on by default. */
export const DIRECT_CALLS_SETTING = "IMPRINT_DIRECT_CALLS";

/** IMPRINT_DIRECT_CALLS: true unless set to false (a problem for anything else). */
function directCallsSetting(env: TargetEnv): { enabled: boolean; problem?: string } {
  const value = (env[DIRECT_CALLS_SETTING] ?? "").trim().toLowerCase();
  if (value === "" || value === "true") return { enabled: true };
  if (value === "false") return { enabled: false };
  return { enabled: true, problem: `${DIRECT_CALLS_SETTING}: must be true or false (got "${env[DIRECT_CALLS_SETTING]}")` };
}

/**
 * The targets named by `list` ("all", or names separated by commas), in the order of `known`
 * (dependency order), each once.
 */
export function parseTargetList(list: string, known: readonly string[], setting = TARGETS_SETTING): string[] {
  const names = list
    .split(",")
    .map((name) => name.trim())
    .filter(Boolean);
  if (names.length === 0)
    throw new ConfigError([`${setting}: must name the targets to run: ${ALL_TARGETS} or some of ${known.join(", ")} (separated by commas)`]);
  if (names.includes(ALL_TARGETS)) {
    if (names.length > 1) throw new ConfigError([`${setting}: "${ALL_TARGETS}" already names every target (got "${list}")`]);
    return [...known];
  }
  const unknown = names.filter((name) => !known.includes(name));
  if (unknown.length > 0) {
    throw new ConfigError([
      `${setting}: unknown target${unknown.length > 1 ? "s" : ""} ${unknown.map((name) => `"${name}"`).join(", ")} (known: ${known.join(", ")}, or ${ALL_TARGETS})`,
    ]);
  }
  return known.filter((name) => names.includes(name));
}

/** `<TARGET>_` for a target name, e.g. CONTENT_ (non-alphanumerics become _). */
export function targetPrefix(name: string): string {
  return `${name.toUpperCase().replace(/[^A-Z0-9]/g, "_")}_`;
}

/**
 * The environment one target reads: `env`, where each non-empty `<TARGET>_<SETTING>` sets
 * `<SETTING>` (the per-target form wins over the shared one).
 */
export function targetEnv(name: string, env: TargetEnv): TargetEnv {
  const prefix = targetPrefix(name);
  const resolved: TargetEnv = { ...env };
  for (const [key, value] of Object.entries(env)) {
    if (key.startsWith(prefix) && key.length > prefix.length && value !== undefined && value !== "") resolved[key.slice(prefix.length)] = value;
  }
  return resolved;
}

/** Where to dial a server listening on `address`: a wildcard listen address is reached on loopback. */
export function dialAddress(address: string): string {
  const match = /^(.*):(\d+)$/.exec(address);
  if (!match) return address;
  const [, host, port] = match;
  return host === "0.0.0.0" || host === "::" || host === "[::]" || host === "" ? `127.0.0.1:${port}` : address;
}

const addressVariable = (name: string) => `${targetPrefix(name)}GRPC_ADDRESS`;
// Stands for the address of an upstream hosted here while settings are checked, before it listens.
const PENDING_ADDRESS = "127.0.0.1:1";

/** Problems of settings several services of one process would share: their database, a fixed port. */
function sharedSettingProblems(targets: readonly HostableTarget[], envs: Map<string, TargetEnv>): string[] {
  const services = targets.filter((target) => target.service);
  if (services.length < 2) return [];
  const problems: string[] = [];
  const clash = (setting: string, value: (env: TargetEnv) => string | undefined, why: string) => {
    const byValue = new Map<string, string[]>();
    for (const target of services) {
      const found = value(envs.get(target.name) ?? {});
      if (found !== undefined) byValue.set(found, [...(byValue.get(found) ?? []), target.name]);
    }
    for (const names of byValue.values()) {
      if (names.length < 2) continue;
      problems.push(`${setting}: ${names.join(", ")} would ${why}: set ${names.map((name) => `${targetPrefix(name)}${setting}`).join(", ")} (one per service)`);
    }
  };
  clash("DATABASE_URL", (env) => env.DATABASE_URL || undefined, "share one database (each service owns its own)");
  clash(
    "GRPC_PORT",
    (env) => (env.GRPC_PORT && env.GRPC_PORT !== "0" ? `${env.GRPC_HOST ?? ""}:${env.GRPC_PORT}` : undefined),
    "listen on the same gRPC port (unset, each gets a free one)",
  );
  return problems;
}

const LOG_LEVELS = new Set<string>(["debug", "info", "warn", "error"]);

/** The logger of one target, with its own `service` field and its per-target LOG_LEVEL/LOG_FORMAT. */
function targetLogger(name: string, env: TargetEnv): Logger {
  const level = LOG_LEVELS.has(env.LOG_LEVEL ?? "") ? (env.LOG_LEVEL as LogLevel) : undefined;
  const format = (LOG_FORMATS as readonly string[]).includes(env.LOG_FORMAT ?? "") ? (env.LOG_FORMAT as LogFormat) : undefined;
  return createLogger(name, { ...(level ? { level } : {}), ...(format ? { format } : {}) });
}

/**
 * Starts `targets` (in dependency order) in this process. Every target's settings are checked
 * first, so a broken environment is reported as one list of problems (prefixed with the target's
 * name when there are several). Then each starts in turn and the gRPC address of each service
 * goes to the targets after it as `<NAME>_GRPC_ADDRESS`. A failure stops what already started.
 */
export async function hostTargets(
  targets: readonly HostableTarget[],
  env: TargetEnv,
  options: { logger?: (name: string, env: TargetEnv) => Logger; log?: Logger } = {},
): Promise<HostedTargets> {
  const loggerFor = options.logger ?? targetLogger;
  const hosted = new Set(targets.map((target) => target.name));
  const envs = new Map(targets.map((target) => [target.name, targetEnv(target.name, env)]));
  const withAddresses = (target: HostableTarget, addresses: Record<string, string>): TargetEnv => {
    const own = { ...envs.get(target.name) };
    for (const upstream of target.upstreams) if (hosted.has(upstream)) own[addressVariable(upstream)] = addresses[upstream] ?? PENDING_ADDRESS;
    return own;
  };

  const problems: string[] = [];
  const prefix = (name: string) => (targets.length > 1 ? `${name}: ` : "");
  for (const target of targets) {
    try {
      target.load(withAddresses(target, {}));
    } catch (error) {
      if (!(error instanceof ConfigError)) throw error;
      problems.push(...error.problems.map((problem) => `${prefix(target.name)}${problem}`));
    }
  }
  problems.push(...sharedSettingProblems(targets, envs));
  const directCalls = directCallsSetting(env);
  if (directCalls.problem) problems.push(directCalls.problem);
  if (problems.length > 0) throw new ConfigError(problems);
  // Owned by this host: every target it starts joins it and calls the ones before it through it.
  const host: TargetHost = directCalls.enabled ? { coHosted: new CoHostedServices() } : {};

  const addresses: Record<string, string> = {};
  const running: { name: string; handle: RunningTarget }[] = [];
  let stopping: Promise<void> | undefined;
  const stop = () => {
    stopping ??= (async () => {
      for (const { name, handle } of running.toReversed()) {
        try {
          await handle.stop();
        } catch (error) {
          options.log?.error("stop failed", { target: name, err: error });
        }
      }
    })();
    return stopping;
  };
  try {
    for (const target of targets) {
      const targetEnvironment = withAddresses(target, addresses);
      const handle = await target.start(target.load(targetEnvironment), loggerFor(target.name, targetEnvironment), host);
      running.push({ name: target.name, handle });
      if (handle.address) addresses[target.name] = dialAddress(handle.address);
    }
  } catch (error) {
    await stop();
    throw error;
  }
  // Together, so the process's drain lasts its longest target's SHUTDOWN_DRAIN_MS, not their sum.
  const drain = async (signal: AbortSignal) => {
    await Promise.all(running.map(({ handle }) => handle.drain?.(signal) ?? Promise.resolve()));
  };
  return { names: targets.map((target) => target.name), addresses, coHosted: host.coHosted, drain, stop };
}
