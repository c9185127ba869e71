import { lookup, Resolver } from "node:dns/promises";
import http, { type IncomingMessage } from "node:http";
import https from "node:https";
import type { LookupFunction } from "node:net";
import ipaddr from "ipaddr.js";
import { AppError } from "./errors.js";

/**
 * Server-side HTTP(S) requests to URLs that users hand us (website imports, OpenAPI sources, an
 * integration's endpoint, a sandboxed script's fetch). Without care such a request lets a caller
 * reach the service's own network (cloud metadata endpoints, databases, admin ports), so:
 * - only http and https URLs without credentials, at most {@link MAX_FETCH_URL_LENGTH} characters;
 * - the host is resolved here (by the policy's resolver: the system's, or given DNS servers) and
 *   *every* resolved address must be a public unicast address;
 * - the socket connects to the address that was checked (a fixed `lookup`), never to a second
 *   resolution, so a DNS answer that changes between check and connect (rebinding) cannot slip by;
 * - redirects are followed by hand and each hop is checked again;
 * - time per request and overall, and the body size, are bounded.
 *
 * {@link safeRequest} is the one implementation (any method, every status answered);
 * {@link safeFetch} is the GET of a resource on top of it (2xx only, content type checked).
 */

export type SafeFetchFailure =
  | "invalid_url"
  | "invalid_request"
  | "private_address"
  | "unreachable"
  | "timeout"
  | "too_large"
  | "http_status"
  | "content_type"
  | "too_many_redirects";

/** A request that did not produce a usable answer; `reason` is short, human-readable and safe to show to callers. */
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

/** The addresses a host name resolves to; fails (any error) when it does not resolve. */
export type HostResolver = (host: string) => Promise<Array<{ address: string; family: number }>>;

/** The system resolver (getaddrinfo: /etc/hosts, then DNS), every address in the order it answers. */
export const systemResolver: HostResolver = (host) => lookup(host, { all: true, verbatim: true });

/**
 * A resolver asking the given DNS servers (`address` or `address:port`, IPv6 in brackets with a
 * port) for the name's A and AAAA records, without /etc/hosts: IMPRINT_FETCH_DNS_SERVERS.
 */
export function dnsServersResolver(servers: readonly string[]): HostResolver {
  const resolver = new Resolver({ timeout: 2_000, tries: 2 });
  resolver.setServers([...servers]);
  const records = async (family: 4 | 6, host: string) => {
    try {
      const addresses = family === 4 ? await resolver.resolve4(host) : await resolver.resolve6(host);
      return addresses.map((address) => ({ address, family }));
    } catch (error) {
      // The name exists without records of this family: the other family may still answer.
      if ((error as { code?: unknown }).code === "ENODATA") return [];
      throw error;
    }
  };
  return async (host) => {
    const [v4, v6] = await Promise.all([records(4, host), records(6, host)]);
    const all = [...v4, ...v6];
    if (all.length === 0) throw Object.assign(new Error(`${host} has no A or AAAA record`), { code: "ENODATA" });
    return all;
  };
}

export interface SafeFetchPolicy {
  /**
   * Why a resolved address may not be connected to, or undefined when it may. Normally
   * {@link refusedAddressReason}; {@link ALLOW_ANY_ADDRESS} when IMPRINT_ALLOW_PRIVATE_FETCH=true
   * (tests serve sites from loopback).
   */
  addressRule: (address: string) => string | undefined;
  /** The service applying the policy (e.g. "content"): a refused address names IMPRINT_ALLOW_PRIVATE_FETCH on it, the setting that lifts the rule. */
  service: string;
  /** Bound on one request (connect, headers and body) in milliseconds. */
  requestTimeoutMs: number;
  /** Redirects followed before giving up. */
  maxRedirects: number;
  /** Bound on any one response body in bytes (callers may ask for less). */
  maxBodyBytes: number;
  /** Sent unless the caller's request sets its own `user-agent`. */
  userAgent: string;
  /** Resolves host names before their addresses are checked; the connection goes to the address checked, never to a second resolution. */
  resolve: HostResolver;
}

export interface SafeRequestOptions {
  /** Ends the request when an overall budget (e.g. a whole crawl's time limit) runs out. */
  signal?: AbortSignal | undefined;
  /** The `timeout` failure's reason when `signal` ended the request (default "the caller's time limit was reached"). */
  signalReason?: string | undefined;
  /** Lower bound than the policy's for this one body (e.g. what is left of a crawl's byte budget). */
  maxBodyBytes?: number | undefined;
}

export interface SafeFetchOptions extends SafeRequestOptions {
  /** Content types (lower-case, without parameters) accepted; a response of another type fails with `content_type`. */
  accept: (mediaType: string) => boolean;
}

export interface SafeRequest {
  /** Any HTTP method but CONNECT, TRACE and TRACK; delete, get, head, options, post and put are upper-cased as fetch does. */
  method: string;
  /**
   * Request headers (repeated names kept in the array form). `host`, `connection`, `keep-alive`,
   * `transfer-encoding`, `content-length` (computed from the body), `upgrade`, `te`, `trailer`,
   * `expect` and `proxy-*` are dropped; without a `user-agent` the policy's is sent.
   */
  headers?: Record<string, string> | Array<[string, string]> | undefined;
  /** None for GET and HEAD. */
  body?: Uint8Array | null | undefined;
}

export interface SafeResponse {
  /** The URL that answered, after redirects. */
  url: URL;
  status: number;
  /** As received: names lower-case, in order, repeated names kept (e.g. `set-cookie`). */
  headers: Array<[string, string]>;
  body: Buffer;
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

/** An IPv4 address some IPv6 forms carry, and the form's name (for the reason). */
interface EmbeddedIPv4 {
  ipv4: ipaddr.IPv4;
  form: string;
}

/**
 * IPv6 text with a dotted IPv4 tail ("::127.0.0.1") as plain hex words ("::7f00:1"): ipaddr.js
 * reads "::a.b.c.d" as IPv4-mapped, which is another address than the IPv4-compatible one meant.
 */
function hexTail(address: string): string {
  const tail = /^(.*:)(\d{1,3}(?:\.\d{1,3}){3})$/.exec(address);
  if (!tail || !ipaddr.IPv4.isValidFourPartDecimal(tail[2]!)) return address;
  const [a, b, c, d] = ipaddr.IPv4.parse(tail[2]!).octets as [number, number, number, number];
  return `${tail[1]}${((a << 8) | b).toString(16)}:${((c << 8) | d).toString(16)}`;
}

const ipv4Of = (high: number, low: number) => new ipaddr.IPv4([high >> 8, high & 0xff, low >> 8, low & 0xff]);

/**
 * The IPv4 addresses an IPv6 address embeds, by form: IPv4-mapped (::ffff:0:0/96), IPv4-translated
 * (::ffff:0:0:0/96), IPv4-compatible (::/96, deprecated), NAT64 (64:ff9b::/96; the local-use
 * 64:ff9b:1::/48 read at the /96 position), 6to4 (2002::/16), Teredo (2001::/32: server and
 * client) and ISATAP interface identifiers (…:0:5efe:a.b.c.d, …:200:5efe:a.b.c.d).
 */
function embeddedIPv4(address: ipaddr.IPv6): EmbeddedIPv4[] {
  const words = address.parts;
  const zero = (from: number, to: number) => words.slice(from, to).every((word) => word === 0);
  const [w0, w1, w2, w3, w4, w5, w6, w7] = words as [number, number, number, number, number, number, number, number];
  if (zero(0, 5) && w5 === 0xffff) return [{ ipv4: ipv4Of(w6, w7), form: "IPv4-mapped" }];
  if (zero(0, 4) && w4 === 0xffff && w5 === 0) return [{ ipv4: ipv4Of(w6, w7), form: "IPv4-translated" }];
  // ::/96 but :: and ::1 themselves (unspecified and loopback: judged as IPv6).
  if (zero(0, 6) && !(w6 === 0 && w7 <= 1)) return [{ ipv4: ipv4Of(w6, w7), form: "IPv4-compatible" }];
  if (w0 === 0x64 && w1 === 0xff9b && zero(2, 6)) return [{ ipv4: ipv4Of(w6, w7), form: "NAT64" }];
  // Local-use NAT64 prefixes may place the address elsewhere: the range stays refused whatever it embeds.
  if (w0 === 0x64 && w1 === 0xff9b && w2 === 1) return [{ ipv4: ipv4Of(w6, w7), form: "local-use NAT64" }];
  if (w0 === 0x2002) return [{ ipv4: ipv4Of(w1, w2), form: "6to4" }];
  if (w0 === 0x2001 && w1 === 0) {
    return [
      { ipv4: ipv4Of(w2, w3), form: "Teredo (server)" },
      { ipv4: ipv4Of(~w6 & 0xffff, ~w7 & 0xffff), form: "Teredo (client)" },
    ];
  }
  if ((w4 === 0 || w4 === 0x200) && w5 === 0x5efe) return [{ ipv4: ipv4Of(w6, w7), form: "ISATAP" }];
  return [];
}

/** Forms that reach the IPv4 address they carry (or nothing): judged by that address alone. */
const JUDGED_BY_EMBEDDED = new Set(["IPv4-mapped", "IPv4-translated", "IPv4-compatible", "NAT64"]);

function ipv4Reason(address: ipaddr.IPv4): string | undefined {
  const range = address.range();
  return range === "unicast" ? undefined : `${range} address`;
}

/**
 * Why an address may not be fetched, or undefined when it may. Only globally routable unicast
 * addresses pass: loopback, private (RFC 1918, unique-local), link-local, multicast, broadcast,
 * unspecified, carrier-grade NAT and reserved/documentation ranges are refused. An IPv6 address
 * that embeds an IPv4 address (IPv4-mapped, -translated or -compatible, NAT64, 6to4, Teredo,
 * ISATAP) is refused when the embedded address would be; mapped, translated, compatible and NAT64
 * ones are otherwise judged as that address, the other transition ranges stay refused. IPv4 in
 * decimal, octal or hex (2130706433, 0177.0.0.1, 0x7f.1) is read as the address it names.
 */
export function refusedAddressReason(address: string): string | undefined {
  if (!ipaddr.isValid(address)) return "not an IP address";
  const parsed = ipaddr.parse(address.includes(":") ? hexTail(address) : address);
  if (parsed.kind() === "ipv4") return ipv4Reason(parsed as ipaddr.IPv4);
  const ipv6 = parsed as ipaddr.IPv6;
  const embedded = embeddedIPv4(ipv6);
  for (const { ipv4, form } of embedded) {
    const refused = ipv4Reason(ipv4);
    if (refused) return `${refused} (${ipv4.toString()} in ${form} form)`;
  }
  if (embedded.length > 0 && embedded.every(({ form }) => JUDGED_BY_EMBEDDED.has(form))) return undefined;
  const range = ipv6.range();
  return range === "unicast" ? undefined : `${range} address`;
}

export const ALLOW_ANY_ADDRESS = (): undefined => undefined;

/**
 * The default policy of a service (10 s per request, 5 redirects, 10 MiB bodies), with the address
 * rule lifted when private fetches are allowed (IMPRINT_ALLOW_PRIVATE_FETCH) and names resolved by
 * the given DNS servers when there are any (IMPRINT_FETCH_DNS_SERVERS), else by the system.
 */
export function safeFetchPolicy(
  options: { allowPrivateAddresses: boolean; service: string; dnsServers?: readonly string[] | undefined },
  overrides: Partial<SafeFetchPolicy> = {},
): SafeFetchPolicy {
  return {
    resolve: options.dnsServers && options.dnsServers.length > 0 ? dnsServersResolver(options.dnsServers) : systemResolver,
    addressRule: options.allowPrivateAddresses ? ALLOW_ANY_ADDRESS : refusedAddressReason,
    service: options.service,
    requestTimeoutMs: 10_000,
    maxRedirects: 5,
    maxBodyBytes: 10 * 1024 * 1024,
    userAgent: "Imprint/1.0 (+https://github.com/imprint)",
    ...overrides,
  };
}

/** Longest URL fetched (as given, and after redirects): longer ones are refused before anything is resolved. */
export const MAX_FETCH_URL_LENGTH = 8192;

/** The URL if it is an absolute http(s) URL without credentials, at most {@link MAX_FETCH_URL_LENGTH} characters. */
export function parseFetchableUrl(value: string): URL {
  if (value.length > MAX_FETCH_URL_LENGTH) throw new SafeFetchError("invalid_url", `URLs longer than ${MAX_FETCH_URL_LENGTH} characters are not fetched`);
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
  // Normalising may lengthen it (percent-encoding, punycode).
  if (url.href.length > MAX_FETCH_URL_LENGTH) throw new SafeFetchError("invalid_url", `URLs longer than ${MAX_FETCH_URL_LENGTH} characters are not fetched`);
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
      addresses = await policy.resolve(host);
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
      throw new SafeFetchError(
        "private_address",
        `${target} is a ${refused}; private and local targets are not fetched; set IMPRINT_ALLOW_PRIVATE_FETCH=true on the ${policy.service} service to allow them`,
      );
    }
  }
  return { address: first.address, family: first.family === 6 ? 6 : 4 };
}

/**
 * Checks a URL a caller hands over for a later fetch (a job's, or each call's), when the request
 * is made: its shape, then its host's addresses under the policy, so a private target is refused
 * at once rather than failing in the background. A host that does not resolve now passes (DNS
 * may answer later; the fetch checks again). Fails with {@link SafeFetchError} (`invalid_url`,
 * `private_address`).
 */
export async function checkFetchTarget(value: string, policy: SafeFetchPolicy): Promise<URL> {
  const url = parseFetchableUrl(value);
  // Nothing to refuse by address: no resolution (and its delay) where private fetches are allowed.
  if (policy.addressRule === ALLOW_ANY_ADDRESS) return url;
  try {
    await resolveTarget(url, policy);
  } catch (error) {
    if (error instanceof SafeFetchError && error.failure === "unreachable") return url;
    throw error;
  }
  return url;
}

/**
 * {@link checkFetchTarget} for a use case: a refused URL is invalid_argument naming `field` and
 * the reason (and, for a private address, the setting that lifts the rule).
 */
export async function requireFetchTarget(value: string, policy: SafeFetchPolicy, field: string): Promise<URL> {
  try {
    return await checkFetchTarget(value, policy);
  } catch (error) {
    if (error instanceof SafeFetchError) throw AppError.invalidArgument(`${field}: ${error.reason}`);
    throw error;
  }
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

const METHOD_TOKEN = /^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/;
/** Refused as fetch refuses them: CONNECT opens a tunnel, TRACE and TRACK echo the request (and its credentials) back. */
const FORBIDDEN_METHODS = new Set(["CONNECT", "TRACE", "TRACK"]);
/** The methods fetch upper-cases (any other keeps its case: HTTP methods are case-sensitive). */
const NORMALIZED_METHODS = new Set(["DELETE", "GET", "HEAD", "OPTIONS", "POST", "PUT"]);
/** Methods sent with `content-length: 0` when they carry no body, as fetch does. */
const BODY_METHODS = new Set(["POST", "PUT", "PATCH"]);

function requestMethod(method: string): string {
  if (typeof method !== "string" || !METHOD_TOKEN.test(method)) throw new SafeFetchError("invalid_request", "the method is not a valid HTTP method");
  const upper = method.toUpperCase();
  if (FORBIDDEN_METHODS.has(upper)) throw new SafeFetchError("invalid_request", `method ${upper} is not allowed`);
  return NORMALIZED_METHODS.has(upper) ? upper : method;
}

/** Headers that address the connection or frame the body: the guard sets them (or none), never the caller. */
const DROPPED_HEADERS = new Set(["host", "connection", "keep-alive", "transfer-encoding", "content-length", "upgrade", "te", "trailer", "expect"]);
/** Dropped when a 303 turns the request into a GET without body. */
const BODY_HEADERS = new Set(["content-type", "content-encoding", "content-language", "content-location"]);
/** Dropped when a redirect leaves the origin, as fetch does. */
const CREDENTIAL_HEADERS = new Set(["authorization", "cookie"]);

/** The caller's headers, names lower-case, without the dropped ones, with the policy's user agent unless one is set. */
function requestHeaders(headers: SafeRequest["headers"], policy: SafeFetchPolicy): Array<[string, string]> {
  const given: Array<[string, string]> = headers === undefined ? [] : Array.isArray(headers) ? headers : Object.entries(headers);
  const kept: Array<[string, string]> = [];
  for (const [givenName, value] of given) {
    let name: string;
    try {
      name = String(givenName).toLowerCase();
      http.validateHeaderName(name);
    } catch {
      throw new SafeFetchError("invalid_request", `${JSON.stringify(String(givenName)).slice(0, 80)} is not a valid header name`);
    }
    try {
      http.validateHeaderValue(name, value);
      if (typeof value !== "string") throw new TypeError("not a string");
    } catch {
      throw new SafeFetchError("invalid_request", `header ${name} has an invalid value`);
    }
    if (DROPPED_HEADERS.has(name) || name.startsWith("proxy-")) continue;
    kept.push([name, value]);
  }
  if (!kept.some(([name]) => name === "user-agent")) kept.unshift(["user-agent", policy.userAgent]);
  return kept;
}

function send(
  url: URL,
  target: CheckedTarget,
  method: string,
  headers: Array<[string, string]>,
  body: Uint8Array | null,
  signal: AbortSignal,
): Promise<IncomingMessage> {
  const transport = url.protocol === "https:" ? https : http;
  const length = body !== null ? body.byteLength : BODY_METHODS.has(method) ? 0 : undefined;
  // An object (repeated names as arrays), not Node's flat array form: instrumentation that wraps
  // http.request (OpenTelemetry's) reads headers as an object and would turn a flat array's entries
  // into headers named "0", "1", …, losing Authorization among them.
  const framed: Record<string, string | string[]> = { host: url.host };
  for (const [name, value] of headers) {
    const present = framed[name];
    framed[name] = present === undefined ? value : [...(Array.isArray(present) ? present : [present]), value];
  }
  if (length !== undefined) framed["content-length"] = String(length);
  return new Promise<IncomingMessage>((resolve, reject) => {
    const request = transport.request(url, {
      method,
      lookup: pinnedLookup(target),
      signal,
      headers: framed,
      // One connection per request: a pooled socket might have been opened to another address.
      agent: false,
    });
    request.once("response", resolve);
    // Errors after the answer (an abort once the body was read, a server that closed early) land here too.
    request.on("error", reject);
    if (body !== null) request.end(body);
    else request.end();
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

const REDIRECT_STATUSES = new Set([301, 302, 303, 307, 308]);

/** The answer of the last hop, its body not read yet. */
interface Exchange {
  url: URL;
  response: IncomingMessage;
  /** Reads the body within `maxBytes` (and the hop's time); fails with {@link SafeFetchError} only. */
  read(maxBytes: number): Promise<Buffer>;
}

/**
 * Sends the request under the policy and follows redirects (each hop checked like the first URL)
 * for GET and HEAD, and 303 for any method (turned into a GET without body); answers the first
 * response that is not followed, whatever its status.
 */
async function exchange(input: string | URL, request: SafeRequest, policy: SafeFetchPolicy, options: SafeRequestOptions): Promise<Exchange> {
  let url = parseFetchableUrl(input.toString());
  let method = requestMethod(request.method);
  let headers = requestHeaders(request.headers, policy);
  let body = request.body ?? null;
  if (body !== null && (method === "GET" || method === "HEAD")) throw new SafeFetchError("invalid_request", `a ${method} request has no body`);
  for (let redirects = 0; ; redirects += 1) {
    const target = await resolveTarget(url, policy);
    const hopTimeout = AbortSignal.timeout(policy.requestTimeoutMs);
    const signal = options.signal ? AbortSignal.any([options.signal, hopTimeout]) : hopTimeout;
    const timedOut = () =>
      options.signal?.aborted
        ? new SafeFetchError("timeout", options.signalReason ?? "the caller's time limit was reached")
        : new SafeFetchError("timeout", `no complete answer within ${policy.requestTimeoutMs} ms`);

    let response: IncomingMessage;
    try {
      response = await send(url, target, method, headers, body, signal);
    } catch (error) {
      if (signal.aborted) throw timedOut();
      throw new SafeFetchError("unreachable", networkReason(error), { cause: error });
    }
    const status = response.statusCode ?? 0;
    const location = response.headers.location;
    if (!location || !REDIRECT_STATUSES.has(status) || !(method === "GET" || method === "HEAD" || status === 303)) {
      const bodiless = method === "HEAD" || status === 204 || status === 304;
      return { url, response, read: (maxBytes) => readWithin(response, bodiless, maxBytes, signal, timedOut) };
    }

    response.resume();
    if (redirects >= policy.maxRedirects) throw new SafeFetchError("too_many_redirects", `more than ${policy.maxRedirects} redirects`);
    let next: URL;
    try {
      next = new URL(location, url);
    } catch {
      throw new SafeFetchError("invalid_url", `redirect to an invalid URL`);
    }
    next = parseFetchableUrl(next.toString());
    if (status === 303 && method !== "GET" && method !== "HEAD") {
      method = "GET";
      body = null;
      headers = headers.filter(([name]) => !BODY_HEADERS.has(name));
    }
    if (next.origin !== url.origin) headers = headers.filter(([name]) => !CREDENTIAL_HEADERS.has(name));
    url = next;
  }
}

async function readWithin(
  response: IncomingMessage,
  bodiless: boolean,
  maxBytes: number,
  signal: AbortSignal,
  timedOut: () => SafeFetchError,
): Promise<Buffer> {
  const declaredLength = Number(response.headers["content-length"]);
  if (!bodiless && Number.isFinite(declaredLength) && declaredLength > maxBytes) {
    response.destroy();
    throw new SafeFetchError("too_large", `response is larger than ${maxBytes} bytes`);
  }
  try {
    return await readBody(response, maxBytes);
  } catch (error) {
    if (error instanceof SafeFetchError && error.failure === "too_large") throw error;
    if (signal.aborted) throw timedOut();
    if (error instanceof SafeFetchError) throw error;
    throw new SafeFetchError("unreachable", networkReason(error), { cause: error });
  }
}

const maxBodyBytesOf = (policy: SafeFetchPolicy, options: SafeRequestOptions) =>
  Math.min(policy.maxBodyBytes, options.maxBodyBytes ?? Number.POSITIVE_INFINITY);

/**
 * Any request under the policy: follows redirects for GET and HEAD (and a 303 for any method,
 * which turns into a GET without body, as fetch does), each hop checked like the first URL; a
 * redirect leaving the origin drops `authorization` and `cookie`. Answers every status (a 3xx not
 * followed included). Fails with {@link SafeFetchError}; never with another error type.
 */
export async function safeRequest(input: string | URL, request: SafeRequest, policy: SafeFetchPolicy, options: SafeRequestOptions = {}): Promise<SafeResponse> {
  const answer = await exchange(input, request, policy, options);
  const body = await answer.read(maxBodyBytesOf(policy, options));
  const raw = answer.response.rawHeaders;
  const headers: Array<[string, string]> = [];
  for (let i = 0; i + 1 < raw.length; i += 2) headers.push([raw[i]!.toLowerCase(), raw[i + 1]!]);
  return { url: answer.url, status: answer.response.statusCode ?? 0, headers, body };
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

/**
 * GETs a resource under the policy, following up to `maxRedirects` redirects (each checked like
 * the first URL); anything but a 2xx of an accepted content type fails. Fails with
 * {@link SafeFetchError}; never with another error type.
 */
export async function safeFetch(input: string | URL, policy: SafeFetchPolicy, options: SafeFetchOptions): Promise<FetchedResource> {
  const answer = await exchange(input, { method: "GET", headers: { accept: "text/html,application/xhtml+xml,image/*;q=0.8,*/*;q=0.5" } }, policy, options);
  const { response } = answer;
  const status = response.statusCode ?? 0;
  if (status < 200 || status > 299) {
    response.resume();
    // A GET follows every redirect that has somewhere to go.
    throw new SafeFetchError("http_status", REDIRECT_STATUSES.has(status) ? `HTTP ${status} without a Location header` : `HTTP ${status}`);
  }
  const { mediaType, charset } = parseContentType(response.headers["content-type"]);
  if (!options.accept(mediaType)) {
    response.destroy();
    throw new SafeFetchError("content_type", `unsupported content type ${mediaType || "(none)"}`);
  }
  const body = await answer.read(maxBodyBytesOf(policy, options));
  return { url: answer.url, mediaType, charset, body };
}
