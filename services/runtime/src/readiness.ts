import pg from "pg";
import type { Logger } from "./logger.js";

export interface ReadinessProbeOptions {
  /** postgres:// URL of the service's database. */
  url: string;
  logger: Logger;
  /** How often the database is asked (default 1 s). */
  intervalMs: number;
  /** How long one `select 1` may take before it counts as a failure (default 1 s). */
  timeoutMs: number;
  /** Consecutive failures that make the process unready (default 2); one success makes it ready. */
  failuresToUnready: number;
  /** Called when readiness changes (not at start: the process starts ready). */
  onChange: (ready: boolean) => void;
}

/**
 * Readiness of a service process: whether its database answers. A cheap `select 1` every
 * `intervalMs`; `failuresToUnready` failures in a row turn it unready (the health service answers
 * NOT_SERVING, so callers and load balancers go elsewhere), the first success ready again. NATS is
 * deliberately not part of it: an outage there delays events, not requests.
 *
 * The probe has a connection of its own, not one of the ORM's pool: a pool busy with consumers and
 * requests is a loaded process, not one without its database, and must not turn it unready.
 */
export class ReadinessProbe {
  private readonly options: ReadinessProbeOptions;
  private timer: NodeJS.Timeout | undefined;
  private inFlight = false;
  private failures = 0;
  private ready = true;
  private client: pg.Client | undefined;

  constructor(options: Partial<ReadinessProbeOptions> & Pick<ReadinessProbeOptions, "url" | "logger" | "onChange">) {
    this.options = { intervalMs: 1_000, timeoutMs: 1_000, failuresToUnready: 2, ...options };
  }

  get isReady(): boolean {
    return this.ready;
  }

  start(): void {
    if (this.timer) return;
    this.timer = setInterval(() => void this.check(), this.options.intervalMs);
    this.timer.unref();
  }

  stop(): void {
    clearInterval(this.timer);
    this.timer = undefined;
    this.drop();
  }

  private drop(): void {
    const client = this.client;
    this.client = undefined;
    client?.end().catch(() => undefined);
  }

  private async selectOne(): Promise<void> {
    if (!this.client) {
      const client = new pg.Client({
        connectionString: this.options.url,
        application_name: "imprint-readiness",
        connectionTimeoutMillis: this.options.timeoutMs,
      });
      // A dropped connection is noticed by the next query; without a listener it would crash the process.
      client.on("error", () => undefined);
      this.client = client;
      await client.connect();
    }
    await this.client.query("select 1");
  }

  private async check(): Promise<void> {
    // A probe still waiting (a hung connection) already counts as a failure through its timeout.
    if (this.inFlight) return;
    this.inFlight = true;
    let timer: NodeJS.Timeout | undefined;
    try {
      await Promise.race([
        this.selectOne(),
        new Promise((_, reject) => {
          timer = setTimeout(() => reject(new Error(`no answer within ${this.options.timeoutMs} ms`)), this.options.timeoutMs);
        }),
      ]);
      this.failures = 0;
      if (!this.ready && this.timer) {
        this.ready = true;
        this.options.logger.info("database answers again; ready (health SERVING)");
        this.options.onChange(true);
      }
    } catch (error) {
      // Start over with a new connection: this one may be broken or still waiting.
      this.drop();
      this.failures += 1;
      if (this.ready && this.failures >= this.options.failuresToUnready && this.timer) {
        this.ready = false;
        this.options.logger.warn("database does not answer; not ready (health NOT_SERVING)", { err: error, failures: this.failures });
        this.options.onChange(false);
      }
    } finally {
      clearTimeout(timer);
      this.inFlight = false;
    }
  }
}
