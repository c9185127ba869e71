/**
 * Whether this gateway process takes new requests. It is ready once it listens, whichever upstream
 * is down: a route whose upstream has no ready copy answers 503 with Retry-After on its own, and the
 * other routes still serve, so one service's outage never takes every gateway out of its load
 * balancer. Draining (on SIGTERM, before the listener closes) turns readiness off, so the load
 * balancer stops sending new requests while the process still serves those that arrive.
 */
export class GatewayReadiness {
  #draining = false;

  /** True once drain() was called: /readyz answers 503. */
  get draining(): boolean {
    return this.#draining;
  }

  /** Turns readiness off for good (the process is on its way out). */
  drain(): void {
    this.#draining = true;
  }
}
