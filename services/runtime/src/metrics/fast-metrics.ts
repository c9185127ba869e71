import type { Metric } from "prom-client";
import { metricsRegistry } from "./registry.js";

/**
 * Counters and histograms for the hot paths (every request, every RPC, every cache lookup). A
 * prom-client child builds a label object and a hash string at each increment or observe; these
 * children are made once per label set, kept by their callers, and count into plain fields: an
 * increment is an addition, an observe a search among a dozen bounds. prom-client renders them
 * through the registry like its own metrics (`get`).
 */

interface MetricValue {
  labels: Record<string, string | number>;
  value: number;
  metricName?: string;
}

export class CounterChild {
  value = 0;

  constructor(readonly labels: Record<string, string>) {}

  inc(by = 1): void {
    this.value += by;
  }
}

export class HistogramChild {
  /** Observations per bucket (not cumulative; the last one is +Inf). */
  readonly counts: Float64Array;
  sum = 0;
  count = 0;

  constructor(
    readonly labels: Record<string, string>,
    private readonly bounds: readonly number[],
  ) {
    this.counts = new Float64Array(bounds.length + 1);
  }

  observe(value: number): void {
    const bounds = this.bounds;
    let index = 0;
    while (index < bounds.length && value > bounds[index]!) index += 1;
    this.counts[index]! += 1;
    this.sum += value;
    this.count += 1;
  }

  /** Observes the seconds since `startedMs` (a performance.now() reading). */
  observeSince(startedMs: number): void {
    this.observe((performance.now() - startedMs) / 1_000);
  }
}

abstract class LabelledMetric<Child extends { labels: Record<string, string> }> {
  private readonly byKey = new Map<string, Child>();

  constructor(
    readonly name: string,
    readonly help: string,
    readonly labelNames: readonly string[],
  ) {
    metricsRegistry.registerMetric(this as unknown as Metric);
  }

  /** The child of these label values (in `labelNames` order), made at the first ask; keep it. */
  child(...values: string[]): Child {
    const key = values.join("\u0000");
    let child = this.byKey.get(key);
    if (!child) {
      if (values.length !== this.labelNames.length) throw new Error(`${this.name} takes labels ${this.labelNames.join(", ")}`);
      child = this.make(Object.fromEntries(this.labelNames.map((name, index) => [name, values[index]!])));
      this.byKey.set(key, child);
    }
    return child;
  }

  protected children(): IterableIterator<Child> {
    return this.byKey.values();
  }

  protected abstract make(labels: Record<string, string>): Child;
}

export class FastCounter extends LabelledMetric<CounterChild> {
  protected make(labels: Record<string, string>): CounterChild {
    return new CounterChild(labels);
  }

  /** Read by the registry at each scrape. */
  get(): { name: string; help: string; type: "counter"; aggregator: "sum"; values: MetricValue[] } {
    return {
      name: this.name,
      help: this.help,
      type: "counter",
      aggregator: "sum",
      values: [...this.children()].map((child) => ({ labels: child.labels, value: child.value })),
    };
  }
}

export class FastHistogram extends LabelledMetric<HistogramChild> {
  constructor(
    name: string,
    help: string,
    labelNames: readonly string[],
    private readonly bounds: readonly number[],
  ) {
    super(name, help, labelNames);
  }

  protected make(labels: Record<string, string>): HistogramChild {
    return new HistogramChild(labels, this.bounds);
  }

  /** Read by the registry at each scrape: cumulative buckets, then the sum and the count. */
  get(): { name: string; help: string; type: "histogram"; aggregator: "sum"; values: MetricValue[] } {
    const values: MetricValue[] = [];
    for (const child of this.children()) {
      let cumulative = 0;
      for (const [index, bound] of [...this.bounds, Number.POSITIVE_INFINITY].entries()) {
        cumulative += child.counts[index]!;
        values.push({
          metricName: `${this.name}_bucket`,
          labels: { ...child.labels, le: bound === Number.POSITIVE_INFINITY ? "+Inf" : bound },
          value: cumulative,
        });
      }
      values.push({ metricName: `${this.name}_sum`, labels: child.labels, value: child.sum });
      values.push({ metricName: `${this.name}_count`, labels: child.labels, value: child.count });
    }
    return { name: this.name, help: this.help, type: "histogram", aggregator: "sum", values };
  }
}
