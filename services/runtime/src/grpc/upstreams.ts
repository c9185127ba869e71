import type { MethodDefinition, ServiceDefinition, ServiceError } from "@grpc/grpc-js";
import { createPromiseClient, toAppError, type PromiseClient, type RpcOptions } from "./client.js";
import { callCoHosted, type CoHostedServer, type CoHostedServices } from "./co-hosted.js";

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

/** How upstreams are opened: `wrap` each client as it is made, and call co-hosted services directly. */
export interface OpenUpstreamOptions {
  wrap?: ClientWrapper;
  /**
   * The services of the targets hosted in this process (hostTargets): a service found there at the
   * upstream's address gets a direct client (no socket, same contract), any other a gRPC client.
   */
  coHosted?: CoHostedServices;
}

/** Opens the clients of one upstream; nothing connects before the first call. */
export function openUpstream<Services extends Record<string, ServiceDefinition>>(
  spec: UpstreamSpec<Services>,
  options: OpenUpstreamOptions = {},
): UpstreamClients<Services> {
  // One service config naming every service: equal channel options, so grpc-js gives them one connection per copy.
  const channelDefinitions = Object.values(spec.services);
  const clients: Record<string, PromiseClient<ServiceDefinition>> = {};
  for (const [name, definition] of Object.entries(spec.services)) {
    const defaultTimeoutMs = spec.timeoutsMs?.[name] ?? spec.defaultTimeoutMs ?? 10_000;
    const coHosted = options.coHosted?.find(spec.address, definition);
    const client = coHosted
      ? createDirectClient(definition, coHosted, { address: spec.address, defaultTimeoutMs })
      : createPromiseClient(definition, spec.address, { defaultTimeoutMs, channelDefinitions });
    clients[name] = options.wrap ? options.wrap(client, definition) : client;
  }
  return { ...clients, close: () => Object.values(clients).forEach((client) => client.close()) } as UpstreamClients<Services>;
}

/** Every upstream a process calls, by name; an absent one (an optional upstream not configured) stays undefined. */
export type UpstreamSpecs = Record<string, UpstreamSpec | undefined>;

/** The clients of one declared upstream, or undefined where the spec may be absent (distributes over `| undefined`). */
type ClientsOfSpec<Spec> = Spec extends UpstreamSpec<infer Services> ? UpstreamClients<Services> : undefined;

export type OpenedUpstreams<Specs extends UpstreamSpecs> = { readonly [Name in keyof Specs]: ClientsOfSpec<Specs[Name]> };

/** Opens every declared upstream; `closeUpstreams` closes them. */
export function openUpstreams<Specs extends UpstreamSpecs>(specs: Specs, options: OpenUpstreamOptions = {}): OpenedUpstreams<Specs> {
  const opened: Record<string, UpstreamClients<Record<string, ServiceDefinition>> | undefined> = {};
  for (const [name, spec] of Object.entries(specs)) opened[name] = spec ? openUpstream(spec, options) : undefined;
  return opened as OpenedUpstreams<Specs>;
}

export function closeUpstreams(upstreams: Record<string, { close(): void } | undefined>): void {
  for (const upstream of Object.values(upstreams)) upstream?.close();
}

/**
 * A promise client (the type createPromiseClient answers) whose calls go to a co-hosted server:
 * same deadlines (`timeoutMs`, else the client's default), same metadata, same errors (toAppError
 * of the status a gRPC client would have received).
 */
export function createDirectClient<Def extends ServiceDefinition>(
  definition: Def,
  server: CoHostedServer,
  options: { address: string; defaultTimeoutMs?: number },
): PromiseClient<Def> {
  const defaultTimeoutMs = options.defaultTimeoutMs ?? 10_000;
  const methods: Record<string, unknown> = {};
  for (const [name, method] of Object.entries(definition)) {
    const unary = method as MethodDefinition<unknown, unknown>;
    methods[name] = (request: unknown, rpc: RpcOptions = {}) =>
      callCoHosted(server, unary, request, rpc.metadata, Date.now() + (rpc.timeoutMs ?? defaultTimeoutMs)).catch((error: unknown) => {
        throw toAppError(error as ServiceError);
      });
  }
  // Nothing to close: the server belongs to its own service, which stops it.
  return Object.assign(methods, { close: () => {}, address: options.address }) as PromiseClient<Def>;
}
