import { checkHealth, type HealthStatus } from "@imprint/runtime/core";
import type { ErrorBody } from "../middleware/error-handler.js";
import { grpcServiceName, UPSTREAM_NAMES, type UpstreamAddresses } from "../upstreams.js";
import type { DirectRoute } from "./deps.js";

/**
 * Probes without authentication: /healthz says the process answers; /readyz says every upstream's
 * grpc.health.v1 reports SERVING, and names the ones that do not; while the process drains before
 * stopping (`isDraining`), it answers 503 whatever the upstreams say.
 */
export function healthRoutes(upstreams: UpstreamAddresses, isDraining: () => boolean = () => false): DirectRoute[] {
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
    handle: async (ctx) => {
      if (isDraining()) {
        const body: ErrorBody = { error: { code: 503, message: "Not ready: shutting down" } };
        ctx.status = 503;
        ctx.body = body;
        return;
      }
      const statuses = await Promise.all(
        UPSTREAM_NAMES.map(async (name): Promise<[string, HealthStatus]> => [
          name,
          await checkHealth(upstreams[name], grpcServiceName(name)),
        ]),
      );
      const unhealthy = statuses.filter(([, status]) => status !== "SERVING");
      if (unhealthy.length > 0) {
        // Names and states only, never addresses. Set directly: the error handler would replace a
        // 503 message with the generic one, and naming the culprits is the point of this probe.
        const body: ErrorBody = {
          error: { code: 503, message: `Not ready: ${unhealthy.map(([name, status]) => `${name} is ${status}`).join(", ")}` },
        };
        ctx.status = 503;
        ctx.body = body;
        return;
      }
      ctx.body = { status: "ok", upstreams: Object.fromEntries(statuses) };
    },
  };
  return [live, ready];
}
