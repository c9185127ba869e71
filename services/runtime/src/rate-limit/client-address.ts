import { BlockList, isIP } from "node:net";

/**
 * The proxies whose X-Forwarded-For is believed (TRUSTED_PROXIES): addresses and CIDR ranges,
 * IPv4 or IPv6. Empty by default: then the client is the address the connection comes from.
 */
export class TrustedProxies {
  private readonly list = new BlockList();

  private constructor(readonly entries: readonly string[]) {
    for (const entry of entries) {
      const [address, prefix] = entry.split("/") as [string, string | undefined];
      const family = isIP(address) === 6 ? "ipv6" : "ipv4";
      if (prefix === undefined) this.list.addAddress(address, family);
      else this.list.addSubnet(address, Number(prefix), family);
    }
  }

  static readonly none = new TrustedProxies([]);

  /** Parses a comma-separated list; throws naming the first entry that is neither an address nor a CIDR range. */
  static parse(text: string): TrustedProxies {
    const entries = text
      .split(",")
      .map((entry) => entry.trim())
      .filter((entry) => entry !== "");
    for (const entry of entries) {
      const problem = trustedProxyProblem(entry);
      if (problem) throw new Error(problem);
    }
    return new TrustedProxies(entries);
  }

  trusts(address: string): boolean {
    const family = isIP(address);
    return family !== 0 && this.entries.length > 0 && this.list.check(address, family === 6 ? "ipv6" : "ipv4");
  }
}

/** Why an entry of TRUSTED_PROXIES is not an address or a CIDR range; undefined when it is one. */
export function trustedProxyProblem(entry: string): string | undefined {
  const [address, prefix, extra] = entry.split("/");
  const family = isIP(address ?? "");
  if (family === 0 || extra !== undefined) return `"${entry}" is not an IP address or a CIDR range`;
  if (prefix !== undefined && !(/^\d{1,3}$/.test(prefix) && Number(prefix) <= (family === 6 ? 128 : 32))) return `"${entry}" has an invalid prefix length`;
  return undefined;
}

/** `::ffff:10.0.0.1` (an IPv4 client on a dual-stack socket) is 10.0.0.1. */
function plainAddress(address: string): string {
  const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(address);
  return mapped ? mapped[1]! : address;
}

/** Longest forwarded entry kept as a caller's address (a misconfigured proxy cannot grow keys without bound). */
const MAX_ADDRESS_LENGTH = 64;

/**
 * The client's address, written once for every process that limits by it. The connection's peer,
 * unless it is a trusted proxy: then X-Forwarded-For is read from the right (each proxy appends the
 * address it received from), skipping trusted proxies, and the first address not trusted is the
 * client (what is left of it could be written by anyone). When every hop is trusted, the left-most.
 * Koa's `app.proxy` is not used for this: it believes the left-most entry, which a client writes.
 */
export function clientAddress(peer: string | undefined, forwardedFor: string | string[] | undefined, trusted: TrustedProxies): string {
  const remote = plainAddress(peer ?? "");
  if (!trusted.trusts(remote) || forwardedFor === undefined) return remote;
  const hops = (Array.isArray(forwardedFor) ? forwardedFor.join(",") : forwardedFor)
    .split(",")
    .map((hop) => plainAddress(hop.trim()))
    .filter((hop) => hop !== "");
  let client = remote;
  for (let index = hops.length - 1; index >= 0; index--) {
    client = hops[index]!.slice(0, MAX_ADDRESS_LENGTH);
    if (!trusted.trusts(client)) return client;
  }
  return client;
}
