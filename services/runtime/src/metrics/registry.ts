import { collectDefaultMetrics, Registry } from "prom-client";

/**
 * The process's one Prometheus registry (prom-client), shared by every target it hosts: a process
 * hosting all of them is one set of series, served wherever /metrics is (the gateway's and the
 * reader's HTTP ports, a service's METRICS_PORT). Series about one service carry its name in a
 * `service` label, so targets sharing a process stay apart.
 */
export const metricsRegistry = new Registry();

let processMetricsStarted = false;

/**
 * Node's own series (heap, RSS, CPU, event loop lag from monitorEventLoopDelay, GC durations, open
 * handles), from the first place that serves metrics on: a process nobody scrapes pays nothing.
 */
export function startProcessMetrics(): void {
  if (processMetricsStarted) return;
  processMetricsStarted = true;
  collectDefaultMetrics({ register: metricsRegistry, eventLoopMonitoringPrecision: 10 });
}

/**
 * Something measured when Prometheus scrapes, never on the request path: a query (a consumer's
 * pending messages, the outbox backlog) or a pool's counts. It sets its gauges in `collect`, which
 * gets SCRAPE_SOURCE_TIMEOUT_MS (its series are left out of a scrape it does not finish in time).
 */
export interface ScrapeSource {
  collect(signal: AbortSignal): Promise<void> | void;
}

/** How long a scrape waits for a source's query: Prometheus's own scrape timeout is 10 s by default. */
export const SCRAPE_SOURCE_TIMEOUT_MS = 2_000;

const sources = new Set<ScrapeSource>();
/** Gauges only sources set: emptied before each collection, so a stopped source's values go with it. */
const sourcedGauges = new Set<{ reset(): void }>();

/** Adds a scrape-time source; the function returned removes it (at the owner's stop). */
export function addScrapeSource(source: ScrapeSource): () => void {
  sources.add(source);
  return () => sources.delete(source);
}

/** Marks gauges set only by scrape sources (reset before each collection). */
export function sourcedBy<G extends { reset(): void }>(gauge: G): G {
  sourcedGauges.add(gauge);
  return gauge;
}

async function collectSources(): Promise<void> {
  for (const gauge of sourcedGauges) gauge.reset();
  const controller = new AbortController();
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<void>((resolve) => {
    timer = setTimeout(() => {
      controller.abort();
      resolve();
    }, SCRAPE_SOURCE_TIMEOUT_MS);
  });
  const runs = [...sources].map(async (source) => {
    try {
      await source.collect(controller.signal);
    } catch {
      // A source that failed (its database or NATS unreachable) leaves its series out of this scrape.
    }
  });
  try {
    await Promise.race([Promise.all(runs), timeout]);
  } finally {
    clearTimeout(timer);
  }
}

let scraping: Promise<string> | undefined;

/** The whole registry in Prometheus's text format; scrapes at the same moment share one collection. */
export function metricsText(): Promise<string> {
  scraping ??= (async () => {
    try {
      await collectSources();
      return await metricsRegistry.metrics();
    } finally {
      scraping = undefined;
    }
  })();
  return scraping;
}

/** The Content-Type of `metricsText`'s answer. */
export const METRICS_CONTENT_TYPE = metricsRegistry.contentType;
