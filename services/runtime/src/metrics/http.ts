import type { CounterChild, HistogramChild } from "./fast-metrics.js";
import { httpRequestDuration, httpRequests } from "./series.js";

/** The methods given a label of their own; any other is counted as "other" (labels stay bounded). */
const KNOWN_METHODS = new Set(["GET", "HEAD", "POST", "PUT", "PATCH", "DELETE", "OPTIONS"]);

interface RouteSeries {
  duration: HistogramChild;
  byStatus: Map<number, CounterChild>;
}

/**
 * The HTTP series of one server (gateway, reader): `observe` counts a request under its route
 * template, method and status and times it. Children are made once per (route, method, status) and
 * kept in maps, so a request costs two lookups, an increment and an observe.
 */
export class HttpRequestMetrics {
  private readonly routes = new Map<string, Map<string, RouteSeries>>();

  constructor(private readonly server: string) {}

  /** `route`: a template (`/v1/orgs/:organizationId`) or a bounded name, never the request's path. */
  observe(route: string, method: string, status: number, startedMs: number): void {
    const verb = KNOWN_METHODS.has(method) ? method : "other";
    let byMethod = this.routes.get(route);
    if (!byMethod) {
      byMethod = new Map();
      this.routes.set(route, byMethod);
    }
    let series = byMethod.get(verb);
    if (!series) {
      series = { duration: httpRequestDuration.child(this.server, route, verb), byStatus: new Map() };
      byMethod.set(verb, series);
    }
    series.duration.observeSince(startedMs);
    let requests = series.byStatus.get(status);
    if (!requests) {
      requests = httpRequests.child(this.server, route, verb, String(status));
      series.byStatus.set(status, requests);
    }
    requests.inc();
  }
}
