import { Gauge } from "prom-client";
import { FastCounter, FastHistogram } from "./fast-metrics.js";
import { metricsRegistry, sourcedBy } from "./registry.js";

/**
 * Every series of Imprint's own, in the process's one registry. Names carry their unit (`_seconds`,
 * `_bytes`), counters end in `_total`; labels are bounded: route templates, RPC method names,
 * consumer, job, cache and service names, status codes; never an id. The hot paths (a request, an
 * RPC, a cache lookup) use FastCounter and FastHistogram children made once and kept by their
 * callers: an observe and an increment, no label object built per call. Gauges read at scrape time
 * are prom-client's.
 */

/** A gauge in the registry that only scrape sources set (see sourcedBy): reset before each collection. */
function scrapedGauge<Label extends string>(name: string, help: string, labelNames: readonly Label[]): Gauge<Label> {
  return sourcedBy(new Gauge({ name, help, labelNames, registers: [metricsRegistry] }));
}

/** Latencies from a millisecond (a kept page, a cached read) to 10 s (a deadline). */
const LATENCY_BUCKETS = [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10];
/** Background work: from 10 ms to 5 minutes. */
const WORK_BUCKETS = [0.01, 0.05, 0.1, 0.5, 1, 5, 10, 30, 60, 300];

export const httpRequests = new FastCounter(
  "imprint_http_requests_total",
  "HTTP requests answered, by server (gateway, reader), route template, method and status code.",
  ["server", "route", "method", "status"],
);
export const httpRequestDuration = new FastHistogram(
  "imprint_http_request_duration_seconds",
  "Time to answer an HTTP request, by server, route template and method.",
  ["server", "route", "method"],
  LATENCY_BUCKETS,
);

export const rpcHandled = new FastCounter(
  "imprint_grpc_server_handled_total",
  "RPCs answered by this process's services (over gRPC or called directly by a co-hosted target), by gRPC service, method and status code.",
  ["grpc_service", "grpc_method", "grpc_code"],
);
export const rpcDuration = new FastHistogram(
  "imprint_grpc_server_handling_seconds",
  "Time to answer an RPC, by gRPC service and method.",
  ["grpc_service", "grpc_method"],
  LATENCY_BUCKETS,
);

export const consumerPending = scrapedGauge(
  "imprint_consumer_pending_messages",
  "Events of a durable consumer not handled yet (undelivered and delivered but not acknowledged), asked of JetStream at scrape time.",
  ["consumer"],
);
export const consumerOldestAge = scrapedGauge(
  "imprint_consumer_oldest_pending_age_seconds",
  "Age of the oldest event a durable consumer has not handled yet (0 when none waits), at scrape time.",
  ["consumer"],
);
export const consumerHandled = new FastCounter("imprint_consumer_events_handled_total", "Events a consumer's handler committed in this process.", ["consumer"]);
export const consumerRedeliveries = new FastCounter(
  "imprint_consumer_redeliveries_total",
  "Events a consumer failed transiently and asked to be redelivered after a backoff.",
  ["consumer"],
);
export const consumerDeadLetters = new FastCounter(
  "imprint_consumer_dead_letters_total",
  "Events a consumer sent to its dead-letter stream (poison: they never succeed).",
  ["consumer"],
);

export const outboxBacklog = scrapedGauge(
  "imprint_outbox_backlog_events",
  "Committed events of a service's outbox not published to NATS yet, at scrape time.",
  ["service"],
);
export const outboxOldestAge = scrapedGauge(
  "imprint_outbox_oldest_event_age_seconds",
  "Age of the oldest event waiting in a service's outbox (0 when none waits), at scrape time.",
  ["service"],
);
export const outboxRelayLatency = new FastHistogram(
  "imprint_outbox_relay_latency_seconds",
  "Time from an event's commit to JetStream's acknowledgement of it, by service.",
  ["service"],
  LATENCY_BUCKETS,
);
export const outboxPublished = new FastCounter(
  "imprint_outbox_published_events_total",
  "Events the outbox relay published (JetStream stored them, or already had them).",
  ["service"],
);

export const jobRuns = new FastCounter("imprint_job_runs_total", "Runs of a background job on this process, by service and job.", ["service", "job"]);
export const jobFailures = new FastCounter("imprint_job_failures_total", "Runs of a background job that failed (it runs again after its interval).", [
  "service",
  "job",
]);
export const jobRunDuration = new FastHistogram("imprint_job_run_duration_seconds", "Time of one run of a background job.", ["service", "job"], WORK_BUCKETS);
export const jobLeaseTakeovers = new FastCounter(
  "imprint_job_lease_takeovers_total",
  "Times this process took a job's lease it did not hold (at start, or from a replica that stopped or stalled).",
  ["service", "job"],
);
export const jobLeasesLost = new FastCounter(
  "imprint_job_leases_lost_total",
  "Times this process lost a job's lease to another replica (it stalled past the lease).",
  ["service", "job"],
);

export const dbPoolInUse = scrapedGauge(
  "imprint_db_pool_connections_in_use",
  "Connections of a service's database pool checked out by a query or transaction.",
  ["service"],
);
export const dbPoolIdle = scrapedGauge("imprint_db_pool_connections_idle", "Open connections of a service's database pool waiting for work.", ["service"]);
export const dbPoolWaiting = scrapedGauge(
  "imprint_db_pool_waiting_requests",
  "Queries or transactions waiting for a connection of a service's database pool (all in use).",
  ["service"],
);
export const dbPoolMax = scrapedGauge("imprint_db_pool_connections_max", "Most connections a service's database pool opens.", ["service"]);

export const cacheHits = new FastCounter(
  "imprint_cache_hits_total",
  "Lookups that found an entry, by cache (all the process's caches of that name together).",
  ["cache"],
);
export const cacheMisses = new FastCounter("imprint_cache_misses_total", "Lookups that found no entry, by cache.", ["cache"]);
export const cacheSize = scrapedGauge(
  "imprint_cache_size_bytes",
  "What a cache holds, in bytes (caches bounded in bytes: the gateway's, the reader's pages, content's revisions).",
  ["cache"],
);
export const cacheEntries = scrapedGauge("imprint_cache_entries", "Entries a cache holds.", ["cache"]);

export const readerPagesServed = new FastCounter(
  "imprint_reader_pages_served_total",
  "Pages the reader answered (HTML and markdown, 200 or 304), by where the answer came from: kept (replayed whole) or rendered.",
  ["source"],
);
export const readerKeptLookups = new FastCounter(
  "imprint_reader_kept_answer_lookups_total",
  "Requests the reader could answer from a kept answer, by result (hit or miss).",
  ["result"],
);

export const sandboxRuns = new FastCounter(
  "imprint_sandbox_runs_total",
  "Integration scripts run in the sandbox, by outcome (ok, or the failure: cpu_limit, wall_limit, memory_limit, output_limit, script_error, bad_response).",
  ["outcome"],
);
export const sandboxRunDuration = new FastHistogram(
  "imprint_sandbox_run_duration_seconds",
  "Time of one sandboxed script run.",
  [],
  [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30],
);
export const sandboxKills = new FastCounter(
  "imprint_sandbox_kills_total",
  "Sandboxed scripts stopped at a limit (cpu_limit, wall_limit, memory_limit, output_limit) and workers replaced because they stopped answering (worker_stuck), by reason.",
  ["reason"],
);
