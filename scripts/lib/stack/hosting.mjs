// What a stack is made of and how it is hosted: its services, the gateway and the reader, one
// process or one per target (IMPRINT_HOSTING), copies of each (IMPRINT_REPLICAS), and the names of
// their settings.
/**
 * Every backend service of the stack, one line each, in dependency order (scripts/lib/targets.mjs
 * has their modules). Environment names derive from `name`: `<NAME>_DATABASE_URL` (use an existing
 * database), `<NAME>_GRPC_PORT` (fixed port), `<NAME>_GRPC_ADDRESS` (where the others reach it).
 * `bootstrap` services receive the first-run token and owner; `dataDir` services IMPRINT_DATA_DIR
 * (content's files and signing key, integration's and identity's secrets keys). Every service gets IMPRINT_PUBLIC_URL,
 * the gateway's URL (content signs file URLs on it, integration's scripts call the API back there).
 */
export const SERVICES = [
  { name: "identity", database: "imprint_identity", bootstrap: true, dataDir: true },
  { name: "content", database: "imprint_content", dataDir: true },
  { name: "collaboration", database: "imprint_collaboration" },
  { name: "publishing", database: "imprint_publishing" },
  { name: "integration", database: "imprint_integration", dataDir: true },
];

export const GATEWAY = { name: "gateway" };
/** The reader: published sites as HTML, on its own port (READER_PORT); no database. */
export const READER = { name: "reader" };
/** The browser app: its shell and assets on a port of its own (APP_PORT), reached through the gateway (GATEWAY_APP_URL); no database. */
export const APP = { name: "app" };

/** What every process of the stack runs; IMPRINT_TARGETS says which targets it hosts. */
export const ENTRYPOINT = "scripts/entrypoint.mjs";

/**
 * `one-process` (the default): every service and the gateway in one Node process, named "imprint".
 * `split`: one process per target, as the Helm chart deploys them.
 */
export const HOSTINGS = ["one-process", "split"];
export const ONE_PROCESS_NAME = "imprint";

/** IMPRINT_HOSTING, checked: unset means one-process. */
export function resolveHosting(env = process.env) {
  const hosting = env.IMPRINT_HOSTING || HOSTINGS[0];
  if (!HOSTINGS.includes(hosting)) throw new Error(`IMPRINT_HOSTING must be ${HOSTINGS.join(" or ")}, got "${hosting}"`);
  return hosting;
}

/**
 * Copies of every target (IMPRINT_REPLICAS) need split hosting, and a port the copies of the gateway
 * (and of the reader) share: SO_REUSEPORT, which Node offers on Linux.
 */
export const SHARED_HTTP_PORTS = process.platform === "linux";

/**
 * Every rate limit of the gateway and the reader raised out of reach, for the stacks the bench and
 * chaos load with one token from one address (the limiter still counts: its cost stays measured).
 */
export const RATE_LIMITS_OUT_OF_REACH = Object.fromEntries(
  [
    "RATE_LIMIT_TOKEN_READS",
    "RATE_LIMIT_TOKEN_WRITES",
    "RATE_LIMIT_TOKEN_EXPENSIVE",
    "RATE_LIMIT_IP_READS",
    "RATE_LIMIT_IP_WRITES",
    "RATE_LIMIT_IP_EXPENSIVE",
    "READER_RATE_LIMIT_PER_IP",
  ].map((name) => [name, "1000000000"]),
);

/** IMPRINT_REPLICAS, checked against the hosting: how many copies of each target (unset: 1). */
export function resolveReplicas(env = process.env, hosting = resolveHosting(env)) {
  const value = env.IMPRINT_REPLICAS;
  if (value === undefined || value.trim() === "") return 1;
  if (!/^\s*[1-9]\d*\s*$/.test(value)) throw new Error(`IMPRINT_REPLICAS must be a whole number of copies of each target, 1 or more, got "${value}"`);
  return checkReplicas(Number(value), hosting);
}

/** `replicas` when the hosting can run that many copies of each target; throws the reason otherwise. */
export function checkReplicas(replicas, hosting) {
  if (!Number.isInteger(replicas) || replicas < 1)
    throw new Error(`IMPRINT_REPLICAS must be a whole number of copies of each target, 1 or more, got ${replicas}`);
  if (replicas === 1) return replicas;
  if (hosting !== "split") {
    throw new Error(
      `IMPRINT_REPLICAS=${replicas} needs IMPRINT_HOSTING=split: one process hosting every target cannot run twice (its services' gRPC ports would clash); run IMPRINT_HOSTING=split IMPRINT_REPLICAS=${replicas} npm start`,
    );
  }
  if (!SHARED_HTTP_PORTS)
    throw new Error(`IMPRINT_REPLICAS=${replicas} needs Linux: the copies of the gateway and of the reader share their port with SO_REUSEPORT`);
  return replicas;
}

/**
 * The drain of a copy of the gateway or the reader (SHUTDOWN_DRAIN_MS unless set) when there are
 * several: its answers close their connections meanwhile, so keep-alive clients move to another
 * copy before it stops listening. Services need none here: their callers move on at the stop itself
 * (GOAWAY), and one machine has no balancer that would watch their readiness.
 */
export const HTTP_COPY_DRAIN_MS = 1_000;

export const envName = (service, suffix) => `${service.name.toUpperCase()}_${suffix}`;
export const stackJsonKey = (service) => `${service.name}GrpcAddress`;
