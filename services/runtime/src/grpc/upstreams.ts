import type { ServiceDefinition } from "@grpc/grpc-js";
import { createPromiseClient, type PromiseClient } from "./client.js";

/**
 * One upstream: the gRPC services a caller uses at one address (a setting such as
 * CONTENT_GRPC_ADDRESS: one address, a list, or a `dns:` target), by the names it calls them
 * (`content.spaces.getSpace`). Its clients share one connection per copy of the upstream.
 */
export interface UpstreamSpec<Services extends Record<string, ServiceDefinition> = Record<string, ServiceDefinition>> {
  address: string;
  services: Services;
  /** Deadline of a call that names none (default 10 s). */
  defaultTimeoutMs?: number;
  /** A longer or shorter default for some of the services (e.g. a merge's long commits). */
  timeoutsMs?: Partial<Record<keyof Services, number>>;
}

/** The clients of one upstream, one per service, and `close()` for all of them. */
export type UpstreamClients<Services extends Record<string, ServiceDefinition>> = {
  readonly [Name in keyof Services]: PromiseClient<Services[Name]>;
} & { close(): void };

/** What `wrap` may do to each client as it is made (the gateway adds its keyed writes). */
export type ClientWrapper = <Def extends ServiceDefinition>(client: PromiseClient<Def>, definition: Def) => PromiseClient<Def>;

/** Opens the clients of one upstream; nothing connects before the first call. */
export function openUpstream<Services extends Record<string, ServiceDefinition>>(
  spec: UpstreamSpec<Services>,
  wrap?: ClientWrapper,
): UpstreamClients<Services> {
  // One service config naming every service: equal channel options, so grpc-js gives them one connection per copy.
  const channelDefinitions = Object.values(spec.services);
  const clients: Record<string, PromiseClient<ServiceDefinition>> = {};
  for (const [name, definition] of Object.entries(spec.services)) {
    const client = createPromiseClient(definition, spec.address, {
      defaultTimeoutMs: spec.timeoutsMs?.[name] ?? spec.defaultTimeoutMs ?? 10_000,
      channelDefinitions,
    });
    clients[name] = wrap ? wrap(client, definition) : client;
  }
  return { ...clients, close: () => Object.values(clients).forEach((client) => client.close()) } as UpstreamClients<Services>;
}

/** Every upstream a process calls, by name; an absent one (an optional upstream not configured) stays undefined. */
export type UpstreamSpecs = Record<string, UpstreamSpec | undefined>;

/** The clients of one declared upstream, or undefined where the spec may be absent (distributes over `| undefined`). */
type ClientsOfSpec<Spec> = Spec extends UpstreamSpec<infer Services> ? UpstreamClients<Services> : undefined;

export type OpenedUpstreams<Specs extends UpstreamSpecs> = { readonly [Name in keyof Specs]: ClientsOfSpec<Specs[Name]> };

/** Opens every declared upstream; `closeUpstreams` closes them. */
export function openUpstreams<Specs extends UpstreamSpecs>(specs: Specs, wrap?: ClientWrapper): OpenedUpstreams<Specs> {
  const opened: Record<string, UpstreamClients<Record<string, ServiceDefinition>> | undefined> = {};
  for (const [name, spec] of Object.entries(specs)) opened[name] = spec ? openUpstream(spec, wrap) : undefined;
  return opened as OpenedUpstreams<Specs>;
}

export function closeUpstreams(upstreams: Record<string, { close(): void } | undefined>): void {
  for (const upstream of Object.values(upstreams)) upstream?.close();
}
