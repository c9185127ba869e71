export {
  addScrapeSource,
  metricsRegistry,
  metricsText,
  METRICS_CONTENT_TYPE,
  SCRAPE_SOURCE_TIMEOUT_MS,
  startProcessMetrics,
  type ScrapeSource,
} from "./registry.js";
export { answerMetrics, isMetricsRequest, METRICS_PATH, serveMetrics, type MetricsListener } from "./endpoint.js";
export { CounterChild, FastCounter, FastHistogram, HistogramChild } from "./fast-metrics.js";
export * from "./series.js";
export { HttpRequestMetrics } from "./http.js";
