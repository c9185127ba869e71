// The targets an Imprint process can host (IMPRINT_TARGETS), in dependency order: a target's
// upstreams come before it, so one process starts them in this order and stops them in reverse.
// Read by scripts/entrypoint.mjs (the container image and `npm start`'s processes) and by the local
// launcher (scripts/lib/stack.mjs). Modules are imported by path and only for the hosted targets, so
// a process hosting the gateway alone never loads MikroORM or NATS.
import { join } from "node:path";
import { pathToFileURL } from "node:url";

const ROOT = join(import.meta.dirname, "..", "..");

/**
 * @typedef {object} TargetEntry
 * @property {string} name  IMPRINT_TARGETS name; prefix of its per-target settings (CONTENT_DATABASE_URL, …)
 * @property {boolean} service  owns a database and a gRPC server (the gateway does not)
 * @property {string[]} upstreams  targets it calls over gRPC (`<NAME>_GRPC_ADDRESS`)
 * @property {string} module  its package's built entry, relative to the repository
 * @property {(module: any) => { migrationsPath?: string, load: (env: Record<string, string | undefined>) => unknown, start: (config: any, logger: any, host: { coHosted?: unknown }) => Promise<{ address?: string, url?: string, drain?(signal: AbortSignal): Promise<void>, stop(): Promise<void> }> }} bind
 */

/** @type {TargetEntry[]} */
export const TARGETS = [
  {
    name: "identity",
    service: true,
    upstreams: [],
    module: "services/identity/dist/index.js",
    bind: (m) => ({
      migrationsPath: m.IDENTITY_MIGRATIONS_PATH,
      load: (env) => m.loadIdentityConfig(env),
      start: (config, logger, host) => m.startIdentityService(config, { logger, coHosted: host.coHosted }),
    }),
  },
  {
    name: "content",
    service: true,
    upstreams: ["identity"],
    module: "services/content/dist/index.js",
    bind: (m) => ({
      migrationsPath: m.CONTENT_MIGRATIONS_PATH,
      load: (env) => m.loadContentConfig(env),
      start: (config, logger, host) => m.startContentService(config, { logger, coHosted: host.coHosted }),
    }),
  },
  {
    name: "collaboration",
    service: true,
    upstreams: ["identity", "content"],
    module: "services/collaboration/dist/index.js",
    bind: (m) => ({
      migrationsPath: m.COLLABORATION_MIGRATIONS_PATH,
      load: (env) => m.loadCollaborationConfig(env),
      start: (config, logger, host) => m.startCollaborationService(config, { logger, coHosted: host.coHosted }),
    }),
  },
  {
    name: "publishing",
    service: true,
    upstreams: ["identity", "content"],
    module: "services/publishing/dist/index.js",
    bind: (m) => ({
      migrationsPath: m.PUBLISHING_MIGRATIONS_PATH,
      load: (env) => m.loadPublishingConfig(env),
      start: (config, logger, host) => m.startPublishingService(config, { logger, coHosted: host.coHosted }),
    }),
  },
  {
    name: "integration",
    service: true,
    upstreams: ["identity", "content", "publishing"],
    module: "services/integration/dist/index.js",
    bind: (m) => ({
      migrationsPath: m.INTEGRATION_MIGRATIONS_PATH,
      load: (env) => m.loadIntegrationConfig(env),
      start: (config, logger, host) => m.startIntegrationService(config, { logger, coHosted: host.coHosted }),
    }),
  },
  {
    name: "reader",
    service: false,
    upstreams: ["content", "publishing", "integration"],
    module: "services/reader/dist/index.js",
    bind: (m) => ({
      load: (env) => m.loadReaderConfig(env),
      start: (config, logger, host) => m.startReader(config, { logger, coHosted: host.coHosted }),
    }),
  },
  {
    // The browser app: its shell and assets, which the gateway forwards its paths to (GATEWAY_APP_URL).
    name: "app",
    service: false,
    upstreams: [],
    module: "services/app/dist/index.js",
    bind: (m) => ({
      load: (env) => m.loadAppConfig(env),
      start: (config, logger) => m.startApp(config, { logger }),
    }),
  },
  {
    name: "gateway",
    service: false,
    upstreams: ["identity", "content", "collaboration", "publishing", "integration"],
    module: "gateway/dist/index.js",
    bind: (m) => ({
      load: (env) => m.loadGatewayConfig(env),
      start: (config, logger, host) => m.startGateway(config, { logger, coHosted: host.coHosted }),
    }),
  },
];

/** What a process of scripts/entrypoint.mjs sends its launcher over IPC once every target it hosts has started. */
export const READY_MESSAGE = "imprint:ready";

export const TARGET_NAMES = TARGETS.map((target) => target.name);
export const SERVICE_TARGET_NAMES = TARGETS.filter((target) => target.service).map((target) => target.name);

/** The named targets (known names, in TARGETS order) with their modules loaded, ready for the runtime's hostTargets. */
export async function loadTargets(names) {
  const loaded = [];
  for (const target of TARGETS.filter((entry) => names.includes(entry.name))) {
    const module = await import(pathToFileURL(join(ROOT, target.module)).href);
    loaded.push({ name: target.name, service: target.service, upstreams: target.upstreams, ...target.bind(module) });
  }
  return loaded;
}

/** The runtime's built module at `path` (e.g. "core.js"), by path like the targets. */
export function runtimeModule(path) {
  return import(pathToFileURL(join(ROOT, "services", "runtime", "dist", path)).href);
}
