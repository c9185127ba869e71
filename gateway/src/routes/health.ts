import { checkCopiesHealth, type HealthStatus } from "@imprint/runtime/core";
import type { ErrorBody } from "../middleware/error-handler.js";
import type { GatewayReadiness } from "../readiness.js";
import { UPSTREAM_NAMES, type UpstreamAddresses } from "../upstreams.js";
import type { DirectRoute } from "./deps.js";

/** One upstream as /healthz/upstreams reports it: counts only, never addresses (the route is public). */
export interface UpstreamHealth {
  /** SERVING when at least one copy serves; otherwise the best state a copy reported. */
  status: HealthStatus;
  /** Copies its address names now (list entries, or the addresses a dns: name resolves to). */
  copies: number;
  /** Copies whose grpc.health.v1 answers SERVING. */
  serving: number;
}

const STATUS_ORDER: HealthStatus[] = ["SERVING", "NOT_SERVING", "UNKNOWN", "SERVICE_UNKNOWN", "UNREACHABLE"];

/** Each copy's overall health (every upstream serves several gRPC services: the server's status covers them). */
async function upstreamHealth(address: string): Promise<UpstreamHealth> {
  const statuses = Object.values(await checkCopiesHealth(address, ""));
  const status = STATUS_ORDER.find((candidate) => statuses.includes(candidate)) ?? "UNREACHABLE";
  return { status, copies: statuses.length, serving: statuses.filter((s) => s === "SERVING").length };
}

/**
 * Probes without authentication. /healthz (liveness): the process answers. /readyz (readiness):
 * this process takes requests, i.e. it listens and is not draining, whichever upstreams are down
 * (their routes answer 503 on their own). /healthz/upstreams, for operators and monitors: every
 * upstream's copies and how many serve; 503 naming those without a serving copy.
 */
export function healthRoutes(upstreams: UpstreamAddresses, readiness: GatewayReadiness): DirectRoute[] {
  const live: DirectRoute = {
    method: "GET",
    path: "/healthz",
    handle: (ctx) => {
      ctx.body = { status: "ok" };
    },
  };
  const ready: DirectRoute = {
    method: "GET",
    path: "/readyz",
    handle: (ctx) => {
      if (readiness.draining) {
        // Set directly: the error handler would replace a 503 message with the generic one.
        const body: ErrorBody = { error: { code: 503, message: "Not ready: draining" } };
        ctx.status = 503;
        ctx.body = body;
        return;
      }
      ctx.body = { status: "ok" };
    },
  };
  const upstreamReport: DirectRoute = {
    method: "GET",
    path: "/healthz/upstreams",
    handle: async (ctx) => {
      const report = Object.fromEntries(await Promise.all(UPSTREAM_NAMES.map(async (name) => [name, await upstreamHealth(upstreams[name])] as const)));
      const down = Object.entries(report).filter(([, health]) => health.status !== "SERVING");
      if (down.length > 0) {
        // The error shape every 5xx has; names, states and counts only, never addresses. Set
        // directly: the error handler would replace a 503 message with the generic one.
        const describe = ([name, health]: [string, UpstreamHealth]) => `${name} is ${health.status} (${health.serving} of ${health.copies} copies serving)`;
        const body: ErrorBody = { error: { code: 503, message: `Upstreams without a serving copy: ${down.map(describe).join(", ")}` } };
        ctx.status = 503;
        ctx.body = body;
        return;
      }
      ctx.body = { status: "ok", upstreams: report };
    },
  };
  return [live, ready, upstreamReport];
}
