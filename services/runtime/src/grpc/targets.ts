import { lookup } from "node:dns/promises";
import { isIP } from "node:net";
import { experimental, status as GrpcStatus, type ChannelOptions } from "@grpc/grpc-js";

/**
 * The gRPC addresses our settings accept (`<SERVICE>_GRPC_ADDRESS`), and how they become grpc-js
 * targets. One address is `host:port` or `[v6]:port`; a setting holds one address, a
 * comma-separated list of them (every copy of a service, e.g. two on loopback), or a `dns:` target
 * (`dns:///imprint-content-headless:50051`: every A/AAAA record of the name is a copy, re-resolved
 * while the channel lives; the form a Kubernetes headless Service needs). `ipv4:`/`ipv6:` lists,
 * grpc-js's own syntax, pass through unchanged.
 */
const HOST_PORT = String.raw`(?:\[[0-9a-fA-F:.]+\]|[A-Za-z0-9.-]+):\d{1,5}`;
const ADDRESS_SETTING = new RegExp(String.raw`^(?:dns:(?://[^/]*/)?${HOST_PORT}|(?:ipv4:|ipv6:)?${HOST_PORT}(?:,${HOST_PORT})*)$`);

/** True when a setting is a gRPC address we accept (see ADDRESS_SETTING). */
export function isGrpcAddressSetting(value: string): boolean {
  return ADDRESS_SETTING.test(value);
}

/** The resolver scheme of a list of addresses some of which are names (grpc-js's ipv4:/ipv6: take literals only). */
const LIST_SCHEME = "imprint-list";

/** The grpc-js target of a setting: a list becomes one target whose every entry is a copy. */
export function grpcTarget(setting: string): string {
  if (!setting.includes(",") || /^(dns|ipv4|ipv6):/.test(setting)) return setting;
  registerListResolver();
  return `${LIST_SCHEME}:${setting}`;
}

/** Splits `host:port` or `[v6]:port`. */
function splitHostPort(entry: string): { host: string; port: number } {
  const match = /^(?:\[([^\]]+)\]|([^:]+)):(\d+)$/.exec(entry);
  if (!match) throw new Error(`not a host:port address: ${entry}`);
  return { host: match[1] ?? match[2]!, port: Number(match[3]) };
}

/**
 * The copies a setting names right now, as `host:port` each (what a readiness report checks one
 * by one): the entries of a list, or every address a `dns:` name resolves to.
 */
export async function resolveCopies(setting: string): Promise<string[]> {
  const scheme = /^(dns|ipv4|ipv6):/.exec(setting)?.[1];
  const rest = scheme ? setting.slice(scheme.length + 1) : setting;
  const entries = scheme === "dns" ? [rest.replace(/^\/\/[^/]*\//, "")] : rest.split(",");
  const copies = await Promise.all(entries.map((entry) => lookupEntry(entry)));
  return copies.flat().map(({ host, port }) => (isIP(host) === 6 ? `[${host}]:${port}` : `${host}:${port}`));
}

async function lookupEntry(entry: string): Promise<Array<{ host: string; port: number }>> {
  const { host, port } = splitHostPort(entry);
  if (isIP(host)) return [{ host, port }];
  const found = await lookup(host, { all: true });
  return found.map(({ address }) => ({ host: address, port }));
}

/**
 * A list of `host:port` entries, names resolved through the system's resolver (as grpc-js's own
 * default does), again each time the load balancer asks (a copy went away), at most once a second.
 */
class ListResolver implements experimental.Resolver {
  private readonly entries: string[];
  private lastResolvedAt = 0;
  private timer: NodeJS.Timeout | undefined;
  private pending = false;
  private destroyed = false;

  constructor(
    target: experimental.GrpcUri,
    private readonly listener: experimental.ResolverListener,
    _options: ChannelOptions,
  ) {
    this.entries = target.path.split(",");
  }

  updateResolution(): void {
    if (this.pending || this.timer) return;
    const wait = this.lastResolvedAt + 1_000 - Date.now();
    if (wait > 0) {
      this.timer = setTimeout(() => {
        this.timer = undefined;
        this.updateResolution();
      }, wait);
      this.timer.unref();
      return;
    }
    this.pending = true;
    this.lastResolvedAt = Date.now();
    void Promise.all(this.entries.map((entry) => lookupEntry(entry).catch(() => []))).then((found) => {
      this.pending = false;
      if (this.destroyed) return;
      const addresses = found.flat();
      this.listener(
        addresses.length > 0
          ? experimental.statusOrFromValue(addresses.map((address) => ({ addresses: [address] })))
          : experimental.statusOrFromError({ code: GrpcStatus.UNAVAILABLE, details: `no address of ${this.entries.join(",")} resolved` }),
        {},
        null,
        "",
      );
    });
  }

  destroy(): void {
    this.destroyed = true;
    clearTimeout(this.timer);
    this.timer = undefined;
  }

  static getDefaultAuthority(target: experimental.GrpcUri): string {
    return target.path.split(",")[0] ?? "";
  }
}

let registered = false;
function registerListResolver(): void {
  if (registered) return;
  registered = true;
  experimental.registerResolver(LIST_SCHEME, ListResolver);
}
