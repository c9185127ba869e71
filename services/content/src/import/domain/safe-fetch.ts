import { lookup } from "node:dns/promises";
import http, { type IncomingMessage } from "node:http";
import https from "node:https";
import type { LookupFunction } from "node:net";
import ipaddr from "ipaddr.js";

/**
 * Server-side HTTP(S) GET for URLs that users hand us (imports). Without care such a fetch lets a
 * caller reach the service's own network (cloud metadata endpoints, databases, admin ports), so:
 * - only http and https;
 * - the host is resolved here and *every* resolved address must be a public unicast address;
 * - the socket connects to the address that was checked (a fixed `lookup`), never to a second
 *   resolution, so a DNS answer that changes between check and connect (rebinding) cannot slip by;
 * - redirects are followed by hand and each hop is checked again;
 * - time per request and overall, and the body size, are bounded.
 */

export type SafeFetchFailure =
  | "invalid_url"
  | "private_address"
  | "unreachable"
  | "timeout"
  | "too_large"
  | "http_status"
  | "content_type"
  | "too_many_redirects";

/** A fetch that did not produce a usable body; `reason` is short, human-readable and safe to show to callers. */
export class SafeFetchError extends Error {
  override readonly name = "SafeFetchError";
  constructor(
    readonly failure: SafeFetchFailure,
    readonly reason: string,
    options?: { cause?: unknown },
  ) {
    super(reason, options);
  }
}

export interface SafeFetchPolicy {
  /**
   * Why a resolved address may not be connected to, or undefined when it may. Normally
   * {@link refusedAddressReason}; {@link ALLOW_ANY_ADDRESS} when IMPRINT_ALLOW_PRIVATE_FETCH=true
   * (tests serve sites from loopback).
   */
  addressRule: (address: string) => string | undefined;
  /** Bound on one request (connect, headers and body) in milliseconds. */
  requestTimeoutMs: number;
  /** Redirects followed before giving up. */
  maxRedirects: number;
  /** Bound on any one response body in bytes (callers may ask for less). */
  maxBodyBytes: number;
  userAgent: string;
}

export const DEFAULT_SAFE_FETCH_POLICY: SafeFetchPolicy = {
  addressRule: refusedAddressReason,
  requestTimeoutMs: 10_000,
  maxRedirects: 5,
  maxBodyBytes: 10 * 1024 * 1024,
  userAgent: "Imprint-Import/1.0 (+https://github.com/imprint)",
};

export interface SafeFetchOptions {
  /** Ends the fetch when the overall budget (e.g. a whole crawl's time limit) runs out. */
  signal?: AbortSignal | undefined;
  /** Content types (lower-case, without parameters) accepted; a response of another type fails with `content_type`. */
  accept: (mediaType: string) => boolean;
  /** Lower bound than the policy's for this one body (e.g. what is left of a crawl's byte budget). */
  maxBodyBytes?: number | undefined;
}

export interface FetchedResource {
  /** The URL that answered, after redirects. */
  url: URL;
  /** Media type without parameters, lower-case (e.g. `text/html`). */
  mediaType: string;
  /** The `charset` parameter of the content type, if any. */
  charset: string | undefined;
  body: Buffer;
}

/**
 * Why an address may not be fetched, or undefined when it may. Only globally routable unicast
 * addresses pass: loopback, private (RFC 1918, unique-local), link-local, multicast, broadcast,
 * unspecified, carrier-grade NAT, reserved/documentation ranges and the IPv6 transition ranges
 * that embed an IPv4 address are refused; IPv4-mapped IPv6 addresses are judged as the IPv4
 * address they carry.
 */
export function refusedAddressReason(address: string): string | undefined {
  if (!ipaddr.isValid(address)) return "not an IP address";
  let parsed = ipaddr.parse(address);
  if (parsed.kind() === "ipv6" && (parsed as ipaddr.IPv6).isIPv4MappedAddress()) {
    parsed = (parsed as ipaddr.IPv6).toIPv4Address();
  }
  const range = parsed.range();
  return range === "unicast" ? undefined : `${range} address`;
}

export const ALLOW_ANY_ADDRESS = (): undefined => undefined;

/** Why an address was refused, ending with the setting that lifts the rule (imports of a site on the same machine hit it first). */
const PRIVATE_TARGETS_REFUSED =
  "private and local targets are not fetched; set IMPRINT_ALLOW_PRIVATE_FETCH=true on the content service to allow them";

/** The default policy, with the address rule lifted when private fetches are allowed. */
export function safeFetchPolicy(options: { allowPrivateAddresses: boolean }, overrides: Partial<SafeFetchPolicy> = {}): SafeFetchPolicy {
  return {
    ...DEFAULT_SAFE_FETCH_POLICY,
    addressRule: options.allowPrivateAddresses ? ALLOW_ANY_ADDRESS : refusedAddressReason,
    ...overrides,
  };
}

/** The URL if it is an absolute http(s) URL without credentials. */
export function parseFetchableUrl(value: string): URL {
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    throw new SafeFetchError("invalid_url", "not a valid absolute URL");
  }
  if (url.protocol !== "http:" && url.protocol !== "https:") {
    throw new SafeFetchError("invalid_url", `scheme ${url.protocol.replace(/:$/, "")} is not allowed (only http and https)`);
  }
  if (url.username || url.password) throw new SafeFetchError("invalid_url", "URLs with credentials are not allowed");
  return url;
}

export interface CheckedTarget {
  address: string;
  family: 4 | 6;
}

/** Resolves the URL's host and checks every address; answers the one to connect to. */
export async function resolveTarget(url: URL, policy: SafeFetchPolicy): Promise<CheckedTarget> {
  // URL keeps IPv6 literals in brackets.
  const host = url.hostname.replace(/^\[(.*)\]$/, "$1");
  let addresses: { address: string; family: number }[];
  if (ipaddr.isValid(host)) {
    addresses = [{ address: ipaddr.parse(host).toString(), family: ipaddr.parse(host).kind() === "ipv6" ? 6 : 4 }];
  } else {
    try {
      addresses = await lookup(host, { all: true, verbatim: true });
    } catch (error) {
      throw new SafeFetchError("unreachable", `host ${host} could not be resolved`, { cause: error });
    }
  }
  const first = addresses[0];
  if (!first) throw new SafeFetchError("unreachable", `host ${host} could not be resolved`);
  // Every address must pass: a name answering one public and one private address is refused.
  for (const { address } of addresses) {
    const refused = policy.addressRule(address);
    if (refused) {
      const target = address === host ? address : `${host} (${address})`;
      throw new SafeFetchError("private_address", `${target} is a ${refused}; ${PRIVATE_TARGETS_REFUSED}`);
    }
  }
  return { address: first.address, family: first.family === 6 ? 6 : 4 };
}

/** A lookup that always answers the already checked address: the connection goes where the check looked. */
function pinnedLookup(target: CheckedTarget): LookupFunction {
  return (_hostname, options, callback) => {
    if (options.all) callback(null, [{ address: target.address, family: target.family }]);
    else callback(null, target.address, target.family);
  };
}

const NETWORK_REASONS: Record<string, string> = {
  ECONNREFUSED: "connection refused",
  ECONNRESET: "connection reset",
  EHOSTUNREACH: "host unreachable",
  ENETUNREACH: "network unreachable",
  ETIMEDOUT: "connection timed out",
  EPIPE: "connection closed",
  ENOTFOUND: "host not found",
  EAI_AGAIN: "host could not be resolved",
  HPE_INVALID_CONSTANT: "not an HTTP server",
};

function networkReason(error: unknown): string {
  const code = (error as { code?: unknown }).code;
  if (typeof code === "string") {
    if (NETWORK_REASONS[code]) return NETWORK_REASONS[code];
    if (code.startsWith("ERR_TLS") || code.includes("CERT") || code.startsWith("ERR_SSL")) return "TLS handshake failed";
    if (code.startsWith("HPE_")) return "invalid HTTP response";
  }
  return "network error";
}

interface Hop {
  response: IncomingMessage;
}

function requestOnce(url: URL, target: CheckedTarget, policy: SafeFetchPolicy, signal: AbortSignal): Promise<Hop> {
  const transport = url.protocol === "https:" ? https : http;
  return new Promise<Hop>((resolve, reject) => {
    const request = transport.request(url, {
      method: "GET",
      lookup: pinnedLookup(target),
      signal,
      headers: { "user-agent": policy.userAgent, accept: "text/html,application/xhtml+xml,image/*;q=0.8,*/*;q=0.5" },
      // One connection per request: a pooled socket might have been opened to another address.
      agent: false,
    });
    request.once("response", (response) => resolve({ response }));
    request.once("error", reject);
    request.end();
  });
}

function readBody(response: IncomingMessage, maxBytes: number): Promise<Buffer> {
  return new Promise<Buffer>((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    response.on("data", (chunk: Buffer) => {
      size += chunk.length;
      if (size > maxBytes) {
        response.destroy();
        reject(new SafeFetchError("too_large", `response is larger than ${maxBytes} bytes`));
        return;
      }
      chunks.push(chunk);
    });
    response.once("end", () => resolve(Buffer.concat(chunks)));
    response.once("error", reject);
    // A body cut short ends with "close" and no "end" (a later reject is a no-op after resolve).
    response.once("close", () => {
      if (!response.complete) reject(new SafeFetchError("unreachable", "connection closed before the response ended"));
    });
  });
}

function parseContentType(header: string | undefined): { mediaType: string; charset: string | undefined } {
  const [type = "", ...parameters] = (header ?? "").split(";");
  const charset = parameters
    .map((parameter) => parameter.trim().split("="))
    .find(([name]) => name?.trim().toLowerCase() === "charset")?.[1]
    ?.trim()
    .replace(/^"(.*)"$/, "$1");
  return { mediaType: type.trim().toLowerCase(), charset };
}

const REDIRECT_STATUSES = new Set([301, 302, 303, 307, 308]);

/**
 * GETs `input` under the policy, following up to `maxRedirects` redirects (each checked like the
 * first URL). Fails with {@link SafeFetchError}; never with another error type.
 */
export async function safeFetch(input: string | URL, policy: SafeFetchPolicy, options: SafeFetchOptions): Promise<FetchedResource> {
  let url = parseFetchableUrl(input.toString());
  const maxBodyBytes = Math.min(policy.maxBodyBytes, options.maxBodyBytes ?? Number.POSITIVE_INFINITY);
  for (let redirects = 0; ; redirects += 1) {
    const target = await resolveTarget(url, policy);
    const hopTimeout = AbortSignal.timeout(policy.requestTimeoutMs);
    const signal = options.signal ? AbortSignal.any([options.signal, hopTimeout]) : hopTimeout;
    const timedOut = () =>
      options.signal?.aborted
        ? new SafeFetchError("timeout", "the import's time limit was reached")
        : new SafeFetchError("timeout", `no complete answer within ${policy.requestTimeoutMs} ms`);

    let hop: Hop;
    try {
      hop = await requestOnce(url, target, policy, signal);
    } catch (error) {
      if (signal.aborted) throw timedOut();
      throw new SafeFetchError("unreachable", networkReason(error), { cause: error });
    }
    const { response } = hop;
    const status = response.statusCode ?? 0;

    if (REDIRECT_STATUSES.has(status)) {
      response.resume();
      const location = response.headers.location;
      if (!location) throw new SafeFetchError("http_status", `HTTP ${status} without a Location header`);
      if (redirects >= policy.maxRedirects) throw new SafeFetchError("too_many_redirects", `more than ${policy.maxRedirects} redirects`);
      let next: URL;
      try {
        next = new URL(location, url);
      } catch {
        throw new SafeFetchError("invalid_url", `redirect to an invalid URL`);
      }
      url = parseFetchableUrl(next.toString());
      continue;
    }
    if (status < 200 || status > 299) {
      response.resume();
      throw new SafeFetchError("http_status", `HTTP ${status}`);
    }
    const { mediaType, charset } = parseContentType(response.headers["content-type"]);
    if (!options.accept(mediaType)) {
      response.destroy();
      throw new SafeFetchError("content_type", `unsupported content type ${mediaType || "(none)"}`);
    }
    const declaredLength = Number(response.headers["content-length"]);
    if (Number.isFinite(declaredLength) && declaredLength > maxBodyBytes) {
      response.destroy();
      throw new SafeFetchError("too_large", `response is larger than ${maxBodyBytes} bytes`);
    }
    try {
      const body = await readBody(response, maxBodyBytes);
      return { url, mediaType, charset, body };
    } catch (error) {
      if (error instanceof SafeFetchError && error.failure === "too_large") throw error;
      if (signal.aborted) throw timedOut();
      if (error instanceof SafeFetchError) throw error;
      throw new SafeFetchError("unreachable", networkReason(error), { cause: error });
    }
  }
}
