import type { ServiceDefinition } from "@grpc/grpc-js";
import { IdentityServiceService } from "@imprint/proto/identity/v1";
import { createPromiseClient, type PromiseClient } from "@imprint/runtime/core";

/**
 * Every gRPC service the gateway talks to. Adding a bounded context to the public API is one line
 * here (plus its routes): the config variable, the client and the readiness check follow from it.
 */
export const UPSTREAMS = {
  identity: { addressVariable: "IDENTITY_GRPC_ADDRESS", definition: IdentityServiceService },
} as const satisfies Record<string, { addressVariable: string; definition: ServiceDefinition }>;

export type UpstreamName = keyof typeof UPSTREAMS;
export const UPSTREAM_NAMES = Object.keys(UPSTREAMS) as UpstreamName[];

export type UpstreamClients = { [K in UpstreamName]: PromiseClient<(typeof UPSTREAMS)[K]["definition"]> };
export type UpstreamAddresses = Record<UpstreamName, string>;

/** Fully qualified gRPC service name (e.g. imprint.identity.v1.IdentityService), as grpc.health.v1 knows it. */
export function grpcServiceName(name: UpstreamName): string {
  const firstMethod = Object.values(UPSTREAMS[name].definition)[0] as { path: string } | undefined;
  if (!firstMethod) throw new Error(`upstream ${name} has no methods`);
  return firstMethod.path.split("/")[1] ?? "";
}

/** One long-lived client (one HTTP/2 channel) per upstream, shared by every request. */
export function createUpstreamClients(addresses: UpstreamAddresses, timeoutMs: number): UpstreamClients {
  const clients: Partial<Record<UpstreamName, unknown>> = {};
  for (const name of UPSTREAM_NAMES) {
    clients[name] = createPromiseClient(UPSTREAMS[name].definition, addresses[name], { defaultTimeoutMs: timeoutMs });
  }
  return clients as UpstreamClients;
}

export function closeUpstreamClients(clients: UpstreamClients): void {
  for (const name of UPSTREAM_NAMES) clients[name].close();
}
