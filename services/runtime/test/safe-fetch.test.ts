import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { z } from "zod";
import { env } from "../src/config.js";
import {
  ALLOW_ANY_ADDRESS,
  checkFetchTarget,
  MAX_FETCH_URL_LENGTH,
  refusedAddressReason,
  safeFetch,
  SafeFetchError,
  safeFetchPolicy,
  safeRequest,
  type SafeFetchPolicy,
} from "../src/safe-fetch.js";
import { startTestDnsServer, type TestDnsServer } from "../src/testing/dns-server.js";
import { patient } from "../src/testing/time.js";

type Handler = (request: IncomingMessage, body: Buffer, response: ServerResponse) => void;

interface Received {
  method: string;
  path: string;
  /** Raw header pairs as the server saw them, names lower-case. */
  headers: Array<[string, string]>;
  body: Buffer;
}

interface Site {
  /** e.g. http://127.0.0.1:40123 */
  origin: string;
  /** Paths requested so far, in order. */
  requests: string[];
  received: Received[];
  close(): Promise<void>;
}

const PAGE = "<!doctype html><title>Acme</title><p>Welcome to Acme</p>";

/** A loopback HTTP server: `routes` (exact path → handler), `/page` (a small HTML page), else 404. */
async function serve(routes: Record<string, Handler> = {}, host = "127.0.0.1"): Promise<Site> {
  const requests: string[] = [];
  const received: Received[] = [];
  const server = createServer((request, response) => {
    const path = new URL(request.url ?? "/", "http://site").pathname;
    requests.push(path);
    const chunks: Buffer[] = [];
    request.on("data", (chunk: Buffer) => chunks.push(chunk));
    request.on("end", () => {
      const raw = request.rawHeaders;
      const headers: Array<[string, string]> = [];
      for (let i = 0; i < raw.length; i += 2) headers.push([raw[i]!.toLowerCase(), raw[i + 1]!]);
      const body = Buffer.concat(chunks);
      received.push({ method: request.method ?? "", path, headers, body });
      const route = routes[path];
      if (route) route(request, body, response);
      else if (path === "/page") {
        response.writeHead(200, { "content-type": "text/html; charset=utf-8" });
        response.end(PAGE);
      } else {
        response.writeHead(404, { "content-type": "text/plain" });
        response.end("not found");
      }
    });
  });
  await new Promise<void>((resolve) => server.listen(0, host, resolve));
  const { port } = server.address() as AddressInfo;
  return {
    origin: `http://${host}:${port}`,
    requests,
    received,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

const redirectTo =
  (location: string, status = 302): Handler =>
  (_request, _body, response) => {
    response.writeHead(status, { location });
    response.end();
  };

const anyType = () => true;
const htmlOnly = (type: string) => type === "text/html";

async function failure(promise: Promise<unknown>): Promise<SafeFetchError> {
  try {
    await promise;
  } catch (error) {
    if (error instanceof SafeFetchError) return error;
    throw error;
  }
  throw new Error("the request succeeded");
}

describe("address rule", () => {
  it.each([
    ["127.0.0.1", "loopback"],
    ["127.8.9.10", "loopback"],
    ["10.1.2.3", "private"],
    ["172.16.0.1", "private"],
    ["172.31.255.254", "private"],
    ["192.168.1.1", "private"],
    ["169.254.169.254", "linkLocal"],
    ["0.0.0.0", "unspecified"],
    ["224.0.0.1", "multicast"],
    ["255.255.255.255", "broadcast"],
    ["100.64.0.1", "carrierGradeNat"],
    ["192.0.2.10", "reserved"],
    ["::1", "loopback"],
    ["::", "unspecified"],
    ["fe80::1", "linkLocal"],
    ["fc00::1", "uniqueLocal"],
    ["fd12:3456::1", "uniqueLocal"],
    ["ff02::1", "multicast"],
    ["fec0::1", "deprecatedSiteLocal"],
    ["100::1", "discard"],
    // IPv4 in decimal, octal and hex, as inet_aton (and so curl) reads it.
    ["2130706433", "loopback"],
    ["0177.0.0.1", "loopback"],
    ["0x7f.1", "loopback"],
    ["127.1", "loopback"],
    ["0x0a.0.0.1", "private"],
    // Transition ranges whose embedded address is public stay refused.
    ["2002:808:808::1", "6to4"],
    ["2001:0:4136:e378:8000:63bf:f7f7:f7f7", "teredo"],
    ["64:ff9b:1::808:808", "rfc6052"],
  ])("refuses %s (%s)", (address, range) => {
    expect(refusedAddressReason(address)).toBe(`${range} address`);
  });

  // IPv6 forms that embed an IPv4 address are judged by it (ipaddr.js alone read "::127.0.0.1" as
  // "::7f00:1", a unicast address, and let it through).
  it.each([
    ["::127.0.0.1", "loopback", "127.0.0.1", "IPv4-compatible"],
    ["::7f00:1", "loopback", "127.0.0.1", "IPv4-compatible"],
    ["::a00:1", "private", "10.0.0.1", "IPv4-compatible"],
    ["::169.254.169.254", "linkLocal", "169.254.169.254", "IPv4-compatible"],
    ["::ffff:127.0.0.1", "loopback", "127.0.0.1", "IPv4-mapped"],
    ["::ffff:7f00:1", "loopback", "127.0.0.1", "IPv4-mapped"],
    ["::ffff:10.0.0.1", "private", "10.0.0.1", "IPv4-mapped"],
    ["::ffff:169.254.169.254", "linkLocal", "169.254.169.254", "IPv4-mapped"],
    ["::ffff:0:7f00:1", "loopback", "127.0.0.1", "IPv4-translated"],
    ["64:ff9b::7f00:1", "loopback", "127.0.0.1", "NAT64"],
    ["64:ff9b::a00:1", "private", "10.0.0.1", "NAT64"],
    ["64:ff9b::169.254.169.254", "linkLocal", "169.254.169.254", "NAT64"],
    ["64:ff9b:1::a9fe:a9fe", "linkLocal", "169.254.169.254", "local-use NAT64"],
    ["2002:7f00:1::", "loopback", "127.0.0.1", "6to4"],
    ["2002:a00:1::", "private", "10.0.0.1", "6to4"],
    ["2002:a9fe:a9fe::1", "linkLocal", "169.254.169.254", "6to4"],
    ["2001:0:4136:e378:8000:63bf:80ff:fffe", "loopback", "127.0.0.1", "Teredo (client)"],
    ["2001:0:a00:1::", "private", "10.0.0.1", "Teredo (server)"],
    ["fe80::200:5efe:a00:1", "private", "10.0.0.1", "ISATAP"],
    ["2001:4860::5efe:7f00:1", "loopback", "127.0.0.1", "ISATAP"],
  ])("refuses %s: %s (%s in %s form)", (address, range, ipv4, form) => {
    expect(refusedAddressReason(address)).toBe(`${range} address (${ipv4} in ${form} form)`);
  });

  it.each(["8.8.8.8", "93.184.216.34", "172.32.0.1", "2001:4860:4860::8888", "::ffff:8.8.8.8", "::8.8.8.8", "64:ff9b::8.8.8.8", "::ffff:0:808:808"])(
    "allows the public address %s",
    (address) => {
      expect(refusedAddressReason(address)).toBeUndefined();
    },
  );

  it("refuses what is not an address", () => {
    expect(refusedAddressReason("example.com")).toBe("not an IP address");
  });
});

describe("without IMPRINT_ALLOW_PRIVATE_FETCH", () => {
  let site: Site;
  beforeAll(async () => {
    site = await serve();
  });
  afterAll(() => site.close());

  const policy = safeFetchPolicy({ allowPrivateAddresses: false, service: "content" });

  it("refuses a loopback IP literal without connecting, naming the setting on the policy's service", async () => {
    const error = await failure(safeFetch(`${site.origin}/page`, policy, { accept: anyType }));
    expect(error.failure).toBe("private_address");
    expect(error.reason).toBe(
      "127.0.0.1 is a loopback address; private and local targets are not fetched; set IMPRINT_ALLOW_PRIVATE_FETCH=true on the content service to allow them",
    );
    const post = await failure(
      safeRequest(
        `${site.origin}/hook`,
        { method: "POST", body: Buffer.from("{}") },
        safeFetchPolicy({ allowPrivateAddresses: false, service: "integration" }),
      ),
    );
    expect(post.failure).toBe("private_address");
    expect(post.reason).toMatch(/set IMPRINT_ALLOW_PRIVATE_FETCH=true on the integration service to allow them$/);
    expect(site.requests).toEqual([]);
  });

  it("refuses a host name that resolves to loopback (checked on the resolved address)", async () => {
    const port = new URL(site.origin).port;
    const error = await failure(safeFetch(`http://localhost:${port}/page`, policy, { accept: anyType }));
    expect(error.failure).toBe("private_address");
    expect(error.reason).toBe(
      "localhost (127.0.0.1) is a loopback address; private and local targets are not fetched; set IMPRINT_ALLOW_PRIVATE_FETCH=true on the content service to allow them",
    );
    expect(site.requests).toEqual([]);
  });

  it("refuses IPv6 and IPv4-mapped loopback literals", async () => {
    const port = new URL(site.origin).port;
    expect((await failure(safeFetch(`http://[::1]:${port}/`, policy, { accept: anyType }))).failure).toBe("private_address");
    expect((await failure(safeRequest(`http://[::ffff:127.0.0.1]:${port}/`, { method: "GET" }, policy))).failure).toBe("private_address");
  });

  it("refuses loopback in every IPv6 form that embeds it and in every IPv4 notation, before connecting", async () => {
    const port = new URL(site.origin).port;
    const hosts = [
      "[::127.0.0.1]",
      "[::7f00:1]",
      "[::ffff:7f00:1]",
      "[::ffff:0:127.0.0.1]",
      "[64:ff9b::127.0.0.1]",
      "[2002:7f00:1::1]",
      "[2001:0:4136:e378:8000:63bf:80ff:fffe]",
      "[fe80::5efe:127.0.0.1]",
      "2130706433",
      "0177.0.0.1",
      "0x7f.1",
      "127.1",
      "0x7f000001",
    ];
    for (const host of hosts) {
      const error = await failure(safeFetch(`http://${host}:${port}/page`, policy, { accept: anyType }));
      expect([host, error.failure, error.reason]).toEqual([
        host,
        "private_address",
        expect.stringMatching(/is a (loopback|linkLocal) address.*IMPRINT_ALLOW_PRIVATE_FETCH/),
      ]);
    }
    expect(site.requests).toEqual([]);
  });

  it("accepts http and https URLs without credentials only", async () => {
    for (const url of ["file:///etc/passwd", "ftp://example.com/x", "gopher://example.com/", "javascript:alert(1)"]) {
      const error = await failure(safeFetch(url, policy, { accept: anyType }));
      expect(error.failure).toBe("invalid_url");
      expect(error.reason).toMatch(/only http and https/);
      expect((await failure(safeRequest(url, { method: "POST", body: Buffer.from("x") }, policy))).failure).toBe("invalid_url");
    }
    expect((await failure(safeFetch("not a url", policy, { accept: anyType }))).reason).toBe("not a valid absolute URL");
    expect((await failure(safeFetch("http://user:secret@example.com/", policy, { accept: anyType }))).reason).toBe("URLs with credentials are not allowed");
    const credentials = await failure(safeRequest("https://user:secret@example.com/", { method: "POST" }, policy));
    expect([credentials.failure, credentials.reason]).toEqual(["invalid_url", "URLs with credentials are not allowed"]);
  });
});

describe("redirects are checked hop by hop", () => {
  let allowed: Site;
  let forbidden: Site;
  beforeAll(async () => {
    // Two loopback servers; the address rule below treats 127.0.0.1 as "public" and every other
    // address as private, so the second server (on 127.0.0.2) plays the internal target.
    forbidden = await serve({}, "127.0.0.2");
    allowed = await serve({
      "/to-internal": redirectTo(`${forbidden.origin}/page`),
      "/to-internal-by-name": redirectTo(`http://localhost:${new URL(forbidden.origin).port}/page`, 307),
      "/to-file": redirectTo("file:///etc/passwd", 301),
      "/post-to-internal": redirectTo(`${forbidden.origin}/page`, 303),
    });
  });
  afterAll(async () => {
    await allowed.close();
    await forbidden.close();
  });

  const onlyFirstLoopbackIsPublic: SafeFetchPolicy = safeFetchPolicy(
    { allowPrivateAddresses: false, service: "content" },
    { addressRule: (address) => (address === "127.0.0.1" ? undefined : refusedAddressReason(address)) },
  );

  it("fetches from the allowed host", async () => {
    const fetched = await safeFetch(`${allowed.origin}/page`, onlyFirstLoopbackIsPublic, { accept: htmlOnly });
    expect(fetched.mediaType).toBe("text/html");
    expect(fetched.charset).toBe("utf-8");
    expect(fetched.body.toString()).toContain("Welcome to Acme");
  });

  it("refuses a redirect from an allowed host to a private address, before connecting to it", async () => {
    const error = await failure(safeFetch(`${allowed.origin}/to-internal`, onlyFirstLoopbackIsPublic, { accept: anyType }));
    expect(error.failure).toBe("private_address");
    expect(error.reason).toMatch(/^127\.0\.0\.2 is a loopback address/);
    const viaRequest = await failure(safeRequest(`${allowed.origin}/to-internal`, { method: "GET" }, onlyFirstLoopbackIsPublic));
    expect(viaRequest.failure).toBe("private_address");
    // A 303 after a POST turns into a GET, checked the same way.
    const afterPost = await failure(safeRequest(`${allowed.origin}/post-to-internal`, { method: "POST", body: Buffer.from("x") }, onlyFirstLoopbackIsPublic));
    expect(afterPost.failure).toBe("private_address");
    expect(allowed.requests).toEqual(expect.arrayContaining(["/to-internal", "/post-to-internal"]));
    expect(forbidden.requests).toEqual([]);
  });

  it("refuses a redirect to a host name resolving to a private address", async () => {
    // The rule lets the first hop through and applies the real rule afterwards: the redirect
    // target's name is resolved again and its address judged before any connection.
    let hops = 0;
    const firstHopOnly = safeFetchPolicy(
      { allowPrivateAddresses: false, service: "content" },
      { addressRule: (address) => (hops++ === 0 ? undefined : refusedAddressReason(address)) },
    );
    const error = await failure(safeFetch(`${allowed.origin}/to-internal-by-name`, firstHopOnly, { accept: anyType }));
    expect(error.reason).toMatch(/^localhost \(127\.0\.0\.1\) is a loopback address/);
    expect(forbidden.requests).toEqual([]);
  });

  it("refuses a redirect to another scheme", async () => {
    const error = await failure(safeFetch(`${allowed.origin}/to-file`, onlyFirstLoopbackIsPublic, { accept: anyType }));
    expect(error.failure).toBe("invalid_url");
  });
});

/**
 * The SSRF sweep: every way of naming a loopback, private, link-local or metadata target (IPv4 in
 * any notation, IPv6 forms, names a resolver answers with such addresses, redirects to them, other
 * schemes, credentials, over-long URLs) is refused by both entry points, and no payload reaches a
 * socket: the listener the payloads name sees no connection. 127.0.0.2 plays the public internet
 * (the rule below lets it through): a redirector there sends the redirect payloads on.
 */
describe("SSRF sweep", () => {
  /** Listens (IPv4 and IPv6) on the port every payload names: must never see a connection. */
  let target: Server;
  let port: number;
  let connections = 0;
  /** The "public" site on 127.0.0.2: redirects to `?to=` (303 for POSTs). */
  let redirector: Site;
  let dns: TestDnsServer;
  let policy: SafeFetchPolicy;

  beforeAll(async () => {
    target = createServer((_request, response) => response.end("reached"));
    target.on("connection", () => connections++);
    await new Promise<void>((resolve) => target.listen(0, "::", resolve));
    port = (target.address() as AddressInfo).port;
    redirector = await serve(
      {
        "/to": (request, _body, response) => {
          response.writeHead(request.method === "POST" ? 303 : 302, { location: new URL(request.url ?? "", "http://site").searchParams.get("to")! });
          response.end();
        },
      },
      "127.0.0.2",
    );
    const names: Record<string, string[]> = {
      localhost: ["127.0.0.1", "::1"],
      "internal.test": ["127.0.0.1"],
      "private.test": ["10.1.2.3"],
      "metadata.test": ["169.254.169.254"],
      "ec2-v6.test": ["fd00:ec2::254"],
      "link-local.test": ["fe80::1"],
      "zero.test": ["0.0.0.0"],
      "mapped.test": ["::ffff:127.0.0.1"],
      "nat64.test": ["64:ff9b::a9fe:a9fe"],
      "loopback-v6.test": ["::1"],
      "cgnat.test": ["100.64.0.1"],
      // One public answer does not carry a private one through.
      "mixed.test": ["127.0.0.2", "10.0.0.1"],
      "public.test": ["127.0.0.2"],
    };
    dns = await startTestDnsServer((name) => names[name] ?? []);
    policy = safeFetchPolicy(
      { allowPrivateAddresses: false, service: "content", dnsServers: [dns.address] },
      { addressRule: (address) => (address === "127.0.0.2" ? undefined : refusedAddressReason(address)) },
    );
  });
  afterAll(async () => {
    await redirector.close();
    await dns.close();
    target.closeAllConnections();
    await new Promise<void>((resolve) => target.close(() => resolve()));
  });

  const at = (host: string, path = "/") => `http://${host}:${port}${path}`;
  const via = (to: string) => `${redirector.origin}/to?to=${encodeURIComponent(to)}`;

  /** [payload, the failure expected]; builders, since the ports are known only once the servers listen. */
  const payloads: Array<[string, () => string, "private_address" | "invalid_url"]> = [
    // IPv4: dotted, decimal, octal, hex, short and mixed forms.
    ["loopback", () => at("127.0.0.1"), "private_address"],
    ["loopback elsewhere in 127/8", () => at("127.8.9.10"), "private_address"],
    ["decimal", () => at("2130706433"), "private_address"],
    ["octal", () => at("0177.0.0.1"), "private_address"],
    ["octal, zero-padded", () => at("0000177.0.0.01"), "private_address"],
    ["octal, one number", () => at("017700000001"), "private_address"],
    ["hex, short", () => at("0x7f.1"), "private_address"],
    ["hex, one number", () => at("0x7f000001"), "private_address"],
    ["hex, dotted", () => at("0x7f.0x0.0x0.0x1"), "private_address"],
    ["short form a.b", () => at("127.1"), "private_address"],
    ["short form a.b.c", () => at("127.0.1"), "private_address"],
    ["trailing dot", () => at("127.0.0.1."), "private_address"],
    ["full-width digits (IDNA)", () => at("１２７.０.０.１"), "private_address"],
    ["circled digits (IDNA)", () => at("①②⑦.⓪.⓪.①"), "private_address"],
    ["0", () => at("0"), "private_address"],
    ["0.0.0.0", () => at("0.0.0.0"), "private_address"],
    ["0x0", () => at("0x0"), "private_address"],
    ["RFC 1918 10/8", () => at("10.0.0.1"), "private_address"],
    ["RFC 1918 172.16/12", () => at("172.16.0.1"), "private_address"],
    ["RFC 1918 192.168/16", () => at("192.168.0.1"), "private_address"],
    ["carrier-grade NAT", () => at("100.64.0.1"), "private_address"],
    ["metadata", () => at("169.254.169.254", "/latest/meta-data/"), "private_address"],
    ["metadata, decimal", () => at("2852039166"), "private_address"],
    ["metadata, hex", () => at("0xa9fea9fe"), "private_address"],
    ["metadata, octal", () => at("0251.0376.0251.0376"), "private_address"],
    ["multicast", () => at("224.0.0.1"), "private_address"],
    ["broadcast", () => at("255.255.255.255"), "private_address"],
    ["benchmarking range", () => at("198.18.0.1"), "private_address"],
    // IPv6: loopback, unspecified, unique-local, link-local, multicast and forms embedding IPv4.
    ["IPv6 loopback", () => at("[::1]"), "private_address"],
    ["IPv6 loopback, long form", () => at("[0:0:0:0:0:0:0:1]"), "private_address"],
    ["IPv6 unspecified", () => at("[::]"), "private_address"],
    ["IPv6 unique-local", () => at("[fc00::1]"), "private_address"],
    ["IPv6 metadata (EC2)", () => at("[fd00:ec2::254]"), "private_address"],
    ["IPv6 link-local", () => at("[fe80::1]"), "private_address"],
    ["IPv6 link-local with a zone", () => `http://[fe80::1%25lo]:${port}/`, "invalid_url"],
    ["IPv6 multicast", () => at("[ff02::1]"), "private_address"],
    ["IPv6 site-local", () => at("[fec0::1]"), "private_address"],
    ["IPv4-mapped", () => at("[::ffff:127.0.0.1]"), "private_address"],
    ["IPv4-mapped, hex", () => at("[::ffff:7f00:1]"), "private_address"],
    ["IPv4-mapped metadata", () => at("[::ffff:169.254.169.254]"), "private_address"],
    ["IPv4-translated", () => at("[::ffff:0:7f00:1]"), "private_address"],
    ["IPv4-compatible", () => at("[::127.0.0.1]"), "private_address"],
    ["NAT64", () => at("[64:ff9b::127.0.0.1]"), "private_address"],
    ["NAT64 metadata", () => at("[64:ff9b::a9fe:a9fe]"), "private_address"],
    ["local-use NAT64", () => at("[64:ff9b:1::a00:1]"), "private_address"],
    ["6to4", () => at("[2002:7f00:1::1]"), "private_address"],
    ["Teredo", () => at("[2001:0:4136:e378:8000:63bf:80ff:fffe]"), "private_address"],
    ["ISATAP", () => at("[fe80::5efe:127.0.0.1]"), "private_address"],
    // Names whose addresses are private (asked of the DNS server above, not the system's).
    ["localhost", () => at("localhost"), "private_address"],
    ["name → loopback", () => at("internal.test"), "private_address"],
    ["name → RFC 1918", () => at("private.test"), "private_address"],
    ["name → metadata", () => at("metadata.test"), "private_address"],
    ["name → IPv6 metadata", () => at("ec2-v6.test"), "private_address"],
    ["name → IPv6 link-local", () => at("link-local.test"), "private_address"],
    ["name → 0.0.0.0", () => at("zero.test"), "private_address"],
    ["name → IPv4-mapped loopback", () => at("mapped.test"), "private_address"],
    ["name → NAT64 metadata", () => at("nat64.test"), "private_address"],
    ["name → IPv6 loopback", () => at("loopback-v6.test"), "private_address"],
    ["name → carrier-grade NAT", () => at("cgnat.test"), "private_address"],
    ["name → one public and one private address", () => at("mixed.test"), "private_address"],
    ["upper-case name", () => at("INTERNAL.TEST"), "private_address"],
    // Redirects from the public site to private targets, and to other schemes.
    ["redirect → loopback", () => via(at("127.0.0.1")), "private_address"],
    ["redirect → decimal loopback", () => via(at("2130706433")), "private_address"],
    ["redirect → IPv6 loopback", () => via(at("[::1]")), "private_address"],
    ["redirect → metadata", () => via("http://169.254.169.254/latest/meta-data/"), "private_address"],
    ["redirect → name → loopback", () => via(at("internal.test")), "private_address"],
    ["redirect → public → loopback", () => via(via(at("127.0.0.1"))), "private_address"],
    [
      "redirect → public name → IPv4-mapped loopback",
      () => via(`${redirector.origin.replace("127.0.0.2", "public.test")}/to?to=${encodeURIComponent(at("[::ffff:7f00:1]"))}`),
      "private_address",
    ],
    ["redirect → file:", () => via("file:///etc/passwd"), "invalid_url"],
    ["redirect → gopher:", () => via(`gopher://127.0.0.1:${port}/_GET`), "invalid_url"],
    ["redirect → credentials", () => via(`http://user:secret@127.0.0.2:${port}/`), "invalid_url"],
    // Other schemes.
    ["file:", () => "file:///etc/passwd", "invalid_url"],
    ["file: with a host", () => "file://127.0.0.1/etc/passwd", "invalid_url"],
    ["gopher:", () => `gopher://127.0.0.1:${port}/_GET%20/`, "invalid_url"],
    ["ftp:", () => `ftp://127.0.0.1:${port}/`, "invalid_url"],
    ["data:", () => "data:text/html,<p>hi</p>", "invalid_url"],
    ["dict:", () => `dict://127.0.0.1:${port}/info`, "invalid_url"],
    ["ldap:", () => `ldap://127.0.0.1:${port}/`, "invalid_url"],
    ["ws:", () => `ws://127.0.0.1:${port}/`, "invalid_url"],
    ["javascript:", () => "javascript:fetch('http://127.0.0.1/')", "invalid_url"],
    ["scheme-relative", () => `//127.0.0.1:${port}/`, "invalid_url"],
    // Credentials, even towards a public host; user info that hides the real host.
    ["credentials", () => `http://user:secret@127.0.0.2:${port}/`, "invalid_url"],
    ["user only", () => `http://user@127.0.0.2:${port}/`, "invalid_url"],
    ["user info naming the public host", () => `http://127.0.0.2:${port}@127.0.0.1:${port}/`, "invalid_url"],
    // Over-long URLs: refused before anything is resolved.
    ["over-long path", () => `http://127.0.0.2:${port}/${"a".repeat(MAX_FETCH_URL_LENGTH)}`, "invalid_url"],
    ["over-long host", () => `http://${"a".repeat(60).concat(".").repeat(140)}test/`, "invalid_url"],
  ];

  it(`refuses ${payloads.length} payloads through safeFetch and safeRequest, and none reaches a socket`, async () => {
    expect(payloads.length).toBeGreaterThanOrEqual(50);
    for (const [name, build, expected] of payloads) {
      const url = build();
      const get = await failure(safeFetch(url, policy, { accept: anyType }));
      const post = await failure(safeRequest(url, { method: "POST", body: Buffer.from("{}") }, policy));
      expect([name, get.failure, post.failure]).toEqual([name, expected, expected]);
      if (expected === "private_address")
        expect([name, get.reason]).toEqual([name, expect.stringContaining("IMPRINT_ALLOW_PRIVATE_FETCH=true on the content service")]);
    }
    expect(connections).toBe(0);
    // The redirect payloads did go through the public site; names were asked of the test's server.
    expect(redirector.requests.length).toBeGreaterThan(0);
    expect(dns.queries.some(({ name }) => name === "metadata.test")).toBe(true);
  });

  it("refuses them when the request is made (checkFetchTarget), naming the setting", async () => {
    for (const [name, build, expected] of payloads) {
      // Redirects are followed only by a fetch: the first hop is public.
      if (name.startsWith("redirect")) continue;
      const refused = await failure(checkFetchTarget(build(), policy));
      expect([name, refused.failure]).toEqual([name, expected]);
    }
    const unresolved = await checkFetchTarget("http://not-yet-in-dns.test/", policy);
    expect(unresolved.hostname).toBe("not-yet-in-dns.test");
    expect((await checkFetchTarget(`${redirector.origin}/page`, policy)).origin).toBe(redirector.origin);
    expect(connections).toBe(0);
  });

  it("connects to the address it checked: a name rebinding to loopback between check and connect is not followed", async () => {
    // The same port on 127.0.0.1 (private) and 127.0.0.2 (public): a second resolution would land on the first.
    const publicSite = await serve({}, "127.0.0.2");
    const sitePort = Number(new URL(publicSite.origin).port);
    let privateHits = 0;
    const privateSite = createServer((_request, response) => response.end("private"));
    privateSite.on("connection", () => privateHits++);
    await new Promise<void>((resolve, reject) => privateSite.once("error", reject).listen(sitePort, "127.0.0.1", resolve));
    const rebinding = await startTestDnsServer((name, asked) => (name === "rebind.test" ? [asked === 0 ? "127.0.0.2" : "127.0.0.1"] : []));
    const rebindingPolicy = {
      ...policy,
      resolve: safeFetchPolicy({ allowPrivateAddresses: false, service: "content", dnsServers: [rebinding.address] }).resolve,
    };
    try {
      const fetched = await safeFetch(`http://rebind.test:${sitePort}/page`, rebindingPolicy, { accept: htmlOnly });
      expect(fetched.body.toString()).toContain("Welcome to Acme");
      // One question for the name's IPv4 address: the connection used its answer, never a second one.
      expect(rebinding.queries.filter(({ type }) => type === "A")).toEqual([{ name: "rebind.test", type: "A" }]);
      expect(privateHits).toBe(0);
      // The name now answers loopback: refused before connecting.
      const refused = await failure(safeFetch(`http://rebind.test:${sitePort}/page`, rebindingPolicy, { accept: anyType }));
      expect(refused.reason).toMatch(/^rebind\.test \(127\.0\.0\.1\) is a loopback address/);
      expect(privateHits).toBe(0);
      expect(publicSite.requests).toEqual(["/page"]);
    } finally {
      await rebinding.close();
      await publicSite.close();
      privateSite.closeAllConnections();
      await new Promise<void>((resolve) => privateSite.close(() => resolve()));
    }
  });

  it("reads IMPRINT_FETCH_DNS_SERVERS: addresses with optional ports, empty for the system resolver", () => {
    const shape = z.object({ IMPRINT_FETCH_DNS_SERVERS: env.dnsServers() });
    expect(shape.parse({}).IMPRINT_FETCH_DNS_SERVERS).toEqual([]);
    expect(shape.parse({ IMPRINT_FETCH_DNS_SERVERS: "10.0.0.2, 127.0.0.1:5353,[::1]:53,::1" }).IMPRINT_FETCH_DNS_SERVERS).toEqual([
      "10.0.0.2",
      "127.0.0.1:5353",
      "[::1]:53",
      "::1",
    ]);
    for (const bad of ["dns.example.com", "127.0.0.1:99999", "10.0.0.1:x"]) expect(shape.safeParse({ IMPRINT_FETCH_DNS_SERVERS: bad }).success).toBe(false);
  });
});

describe("safeRequest (IMPRINT_ALLOW_PRIVATE_FETCH=true)", () => {
  let site: Site;
  let other: Site;
  beforeAll(async () => {
    other = await serve({}, "127.0.0.2");
    site = await serve({
      "/echo": (request, body, response) => {
        response.writeHead(201, [
          ["content-type", request.headers["content-type"] ?? "application/octet-stream"],
          ["set-cookie", "a=1"],
          ["set-cookie", "b=2"],
          ["x-method", request.method ?? ""],
        ]);
        response.end(body);
      },
      "/teapot": (_request, _body, response) => {
        response.writeHead(418, { "content-type": "text/plain" });
        response.end("short and stout");
      },
      "/moved": redirectTo("/echo", 307),
      "/see-other": redirectTo("/echo", 303),
      "/elsewhere": (_request, _body, response) => {
        response.writeHead(302, { location: `${other.origin}/page` });
        response.end();
      },
      "/huge": (_request, _body, response) => {
        response.writeHead(500, { "content-type": "text/plain" });
        for (let i = 0; i < 8; i += 1) response.write("z".repeat(512));
        response.end();
      },
      "/silent": () => {
        // Never answers at all.
      },
    });
  });
  afterAll(async () => {
    await site.close();
    await other.close();
  });

  const policy = safeFetchPolicy({ allowPrivateAddresses: true, service: "integration" }, { requestTimeoutMs: 400, maxBodyBytes: 2048 });
  const lastReceived = () => site.received.at(-1)!;

  it("sends a POST's body and headers intact and answers the status, headers and body", async () => {
    const body = Buffer.concat([
      Buffer.from('--b\r\ncontent-disposition: form-data; name="file"\r\n\r\n'),
      Buffer.from([0, 1, 2, 255]),
      Buffer.from("\r\n--b--\r\n"),
    ]);
    const answer = await safeRequest(
      `${site.origin}/echo?x=1`,
      { method: "post", headers: { "Content-Type": "multipart/form-data; boundary=b", "X-Signature": "sha256=abc", Authorization: "Bearer t" }, body },
      policy,
    );
    expect(answer.status).toBe(201);
    expect(answer.url.toString()).toBe(`${site.origin}/echo?x=1`);
    expect(answer.body).toEqual(body);
    expect(answer.headers.filter(([name]) => name === "set-cookie")).toEqual([
      ["set-cookie", "a=1"],
      ["set-cookie", "b=2"],
    ]);
    expect(answer.headers).toContainEqual(["x-method", "POST"]);
    const received = lastReceived();
    expect(received.method).toBe("POST");
    expect(received.body).toEqual(body);
    expect(received.headers).toEqual(
      expect.arrayContaining([
        ["content-type", "multipart/form-data; boundary=b"],
        ["x-signature", "sha256=abc"],
        ["authorization", "Bearer t"],
        ["content-length", String(body.length)],
        ["user-agent", "Imprint/1.0 (+https://github.com/imprint)"],
      ]),
    );
  });

  it("drops hop-by-hop and framing headers, keeps repeated ones and the caller's user agent", async () => {
    await safeRequest(
      `${site.origin}/echo`,
      {
        method: "PUT",
        headers: [
          ["Host", "internal.example"],
          ["Connection", "upgrade"],
          ["Upgrade", "websocket"],
          ["Transfer-Encoding", "chunked"],
          ["Content-Length", "999"],
          ["Keep-Alive", "timeout=99"],
          ["Proxy-Authorization", "Basic eA=="],
          ["TE", "trailers"],
          ["Trailer", "x-late"],
          ["X-Tag", "one"],
          ["X-Tag", "two"],
          ["User-Agent", "script/1"],
        ],
        body: Buffer.from("abc"),
      },
      policy,
    );
    const { headers, body } = lastReceived();
    const names = headers.map(([name]) => name);
    for (const dropped of ["upgrade", "transfer-encoding", "keep-alive", "proxy-authorization", "te", "trailer"]) expect(names).not.toContain(dropped);
    expect(headers.filter(([name]) => name === "host")).toEqual([["host", new URL(site.origin).host]]);
    expect(headers.filter(([name]) => name === "content-length")).toEqual([["content-length", "3"]]);
    expect(headers.filter(([name]) => name === "connection")).toEqual([["connection", "close"]]);
    expect(headers.filter(([name]) => name === "x-tag")).toEqual([
      ["x-tag", "one"],
      ["x-tag", "two"],
    ]);
    expect(headers.filter(([name]) => name === "user-agent")).toEqual([["user-agent", "script/1"]]);
    expect(body.toString()).toBe("abc");
  });

  it("answers statuses other than 2xx, redirects it does not follow included", async () => {
    const teapot = await safeRequest(`${site.origin}/teapot`, { method: "DELETE" }, policy);
    expect([teapot.status, teapot.body.toString()]).toEqual([418, "short and stout"]);
    const missing = await safeRequest(`${site.origin}/nothing-here`, { method: "GET" }, policy);
    expect(missing.status).toBe(404);
    // A POST is not replayed to a 307's target: the redirect is the answer.
    const moved = await safeRequest(`${site.origin}/moved`, { method: "POST", body: Buffer.from("once") }, policy);
    expect(moved.status).toBe(307);
    expect(moved.headers).toContainEqual(["location", "/echo"]);
    expect(site.received.filter((request) => request.path === "/echo" && request.body.toString() === "once")).toEqual([]);
  });

  it("follows redirects of a GET, and a 303 of a POST as a GET without body", async () => {
    const got = await safeRequest(`${site.origin}/moved`, { method: "GET", headers: { "x-kept": "1" } }, policy);
    expect([got.status, got.url.pathname]).toEqual([201, "/echo"]);
    expect(lastReceived().headers).toContainEqual(["x-kept", "1"]);
    const seeOther = await safeRequest(
      `${site.origin}/see-other`,
      { method: "POST", headers: { "content-type": "application/json" }, body: Buffer.from("{}") },
      policy,
    );
    expect([seeOther.status, seeOther.url.pathname]).toEqual([201, "/echo"]);
    const followed = lastReceived();
    expect([followed.method, followed.body.length]).toEqual(["GET", 0]);
    expect(followed.headers.map(([name]) => name)).not.toContain("content-type");
  });

  it("drops credentials on a redirect to another origin", async () => {
    const answer = await safeRequest(
      `${site.origin}/elsewhere`,
      { method: "GET", headers: { authorization: "Bearer t", cookie: "s=1", "x-kept": "1" } },
      policy,
    );
    expect(answer.url.toString()).toBe(`${other.origin}/page`);
    const names = other.received.at(-1)!.headers.map(([name]) => name);
    expect(names).toContain("x-kept");
    expect(names).not.toContain("authorization");
    expect(names).not.toContain("cookie");
  });

  it("bounds the body of any status", async () => {
    const error = await failure(safeRequest(`${site.origin}/huge`, { method: "GET" }, policy));
    expect([error.failure, error.reason]).toEqual(["too_large", "response is larger than 2048 bytes"]);
    const lower = await failure(safeRequest(`${site.origin}/teapot`, { method: "GET" }, policy, { maxBodyBytes: 4 }));
    expect(lower.failure).toBe("too_large");
  });

  it("bounds the time of one request", async () => {
    const error = await failure(safeRequest(`${site.origin}/silent`, { method: "POST", body: Buffer.from("x") }, policy));
    expect([error.failure, error.reason]).toEqual(["timeout", "no complete answer within 400 ms"]);
    const budget = await failure(
      safeRequest(`${site.origin}/silent`, { method: "GET" }, safeFetchPolicy({ allowPrivateAddresses: true, service: "integration" }), {
        signal: AbortSignal.timeout(150),
      }),
    );
    expect(budget.reason).toBe("the caller's time limit was reached");
  });

  it("refuses requests that are not HTTP", async () => {
    const invalid = async (request: Parameters<typeof safeRequest>[1]) => (await failure(safeRequest(`${site.origin}/echo`, request, policy))).failure;
    expect(await invalid({ method: "CONNECT" })).toBe("invalid_request");
    expect(await invalid({ method: "trace" })).toBe("invalid_request");
    expect(await invalid({ method: "GET /x HTTP/1.1\r\n" })).toBe("invalid_request");
    expect(await invalid({ method: "GET", body: Buffer.from("x") })).toBe("invalid_request");
    expect(await invalid({ method: "POST", headers: { "x-bad": "a\r\nhost: evil" } })).toBe("invalid_request");
    expect(await invalid({ method: "POST", headers: { "bad name": "a" } })).toBe("invalid_request");
  });
});

describe("safeFetch bounds (IMPRINT_ALLOW_PRIVATE_FETCH=true)", () => {
  let site: Site;
  const chain = (from: number) => `/hop/${from}`;
  beforeAll(async () => {
    const routes: Record<string, Handler> = {
      "/big": (_request, _body, response) => {
        response.writeHead(200, { "content-type": "text/html", "content-length": 4096 });
        response.end("x".repeat(4096));
      },
      "/big-chunked": (_request, _body, response) => {
        // No content-length: the cap applies while streaming.
        response.writeHead(200, { "content-type": "text/html" });
        for (let i = 0; i < 16; i += 1) response.write("y".repeat(512));
        response.end();
      },
      "/slow": (_request, _body, response) => {
        response.writeHead(200, { "content-type": "text/html" });
        response.write("<p>first bytes");
        // Never ends: the per-request bound must cut it.
      },
      "/silent": () => {
        // Never answers at all.
      },
      "/missing-location": (_request, _body, response) => {
        response.writeHead(302);
        response.end();
      },
      "/image": (_request, _body, response) => {
        response.writeHead(200, { "content-type": "image/png" });
        response.end(Buffer.from([0x89, 0x50, 0x4e, 0x47]));
      },
      "/relative-redirect": redirectTo("../docs/page", 303),
      "/docs/page": (_request, _body, response) => {
        response.writeHead(200, { "content-type": "text/html" });
        response.end(PAGE);
      },
    };
    for (let i = 0; i < 8; i += 1) routes[chain(i)] = redirectTo(i === 7 ? "/page" : chain(i + 1));
    site = await serve(routes);
  });
  afterAll(() => site.close());

  const policy = safeFetchPolicy({ allowPrivateAddresses: true, service: "content" }, { requestTimeoutMs: 400, maxBodyBytes: 2048 });

  it("lifts the address rule", () => {
    expect(policy.addressRule).toBe(ALLOW_ANY_ADDRESS);
  });

  it("sends the policy's user agent and an accept header", async () => {
    await safeFetch(`${site.origin}/page`, safeFetchPolicy({ allowPrivateAddresses: true, service: "content" }, { userAgent: "Imprint-Import/1.0" }), {
      accept: htmlOnly,
    });
    const { method, headers } = site.received.at(-1)!;
    expect(method).toBe("GET");
    expect(headers).toEqual(
      expect.arrayContaining([
        ["user-agent", "Imprint-Import/1.0"],
        ["accept", "text/html,application/xhtml+xml,image/*;q=0.8,*/*;q=0.5"],
      ]),
    );
  });

  it("follows up to five redirects and reports the final URL", async () => {
    // /hop/3 → 4 → 5 → 6 → 7 → /page is five redirects.
    const fetched = await safeFetch(`${site.origin}${chain(3)}`, policy, { accept: htmlOnly });
    expect(fetched.url.toString()).toBe(`${site.origin}/page`);
  });

  it("gives up after the sixth redirect", async () => {
    const error = await failure(safeFetch(`${site.origin}${chain(2)}`, policy, { accept: htmlOnly }));
    expect(error.failure).toBe("too_many_redirects");
    expect(error.reason).toBe("more than 5 redirects");
    expect((await failure(safeRequest(`${site.origin}${chain(2)}`, { method: "HEAD" }, policy))).failure).toBe("too_many_redirects");
  });

  it("resolves relative redirect targets", async () => {
    const fetched = await safeFetch(`${site.origin}/relative-redirect`, policy, { accept: htmlOnly });
    expect(fetched.url.pathname).toBe("/docs/page");
  });

  it("refuses a redirect without Location", async () => {
    expect((await failure(safeFetch(`${site.origin}/missing-location`, policy, { accept: anyType }))).reason).toBe("HTTP 302 without a Location header");
    // safeRequest answers it as it is.
    expect((await safeRequest(`${site.origin}/missing-location`, { method: "GET" }, policy)).status).toBe(302);
  });

  it("refuses a body over the size cap, declared or streamed", async () => {
    const declared = await failure(safeFetch(`${site.origin}/big`, policy, { accept: htmlOnly }));
    expect(declared.failure).toBe("too_large");
    expect(declared.reason).toBe("response is larger than 2048 bytes");
    const streamed = await failure(safeFetch(`${site.origin}/big-chunked`, policy, { accept: htmlOnly }));
    expect(streamed.failure).toBe("too_large");
    // A HEAD's declared length is no body.
    expect((await safeRequest(`${site.origin}/big`, { method: "HEAD" }, policy)).status).toBe(200);
  });

  it("applies a per-call lower size cap", async () => {
    const error = await failure(safeFetch(`${site.origin}/page`, policy, { accept: htmlOnly, maxBodyBytes: 10 }));
    expect(error.reason).toBe("response is larger than 10 bytes");
  });

  it("bounds the time of one request, for silent servers and for trickling bodies", async () => {
    const started = Date.now();
    const silent = await failure(safeFetch(`${site.origin}/silent`, policy, { accept: anyType }));
    expect(silent.failure).toBe("timeout");
    expect(silent.reason).toBe("no complete answer within 400 ms");
    const slow = await failure(safeFetch(`${site.origin}/slow`, policy, { accept: anyType }));
    expect(slow.failure).toBe("timeout");
    const slowRequest = await failure(safeRequest(`${site.origin}/slow`, { method: "GET" }, policy));
    expect(slowRequest.failure).toBe("timeout");
    expect(Date.now() - started).toBeLessThan(patient(1_500));
  });

  it("stops when the overall budget ends, with the caller's reason", async () => {
    const error = await failure(
      safeFetch(`${site.origin}/silent`, safeFetchPolicy({ allowPrivateAddresses: true, service: "content" }), {
        accept: anyType,
        signal: AbortSignal.timeout(150),
        signalReason: "the import's time limit was reached",
      }),
    );
    expect([error.failure, error.reason]).toEqual(["timeout", "the import's time limit was reached"]);
  });

  it("checks the content type", async () => {
    const error = await failure(safeFetch(`${site.origin}/image`, policy, { accept: htmlOnly }));
    expect(error.failure).toBe("content_type");
    expect(error.reason).toBe("unsupported content type image/png");
    const image = await safeFetch(`${site.origin}/image`, policy, { accept: (type) => type.startsWith("image/") });
    expect(image.body).toEqual(Buffer.from([0x89, 0x50, 0x4e, 0x47]));
  });

  it("reports HTTP errors and refused connections", async () => {
    expect((await failure(safeFetch(`${site.origin}/nothing-here`, policy, { accept: anyType }))).reason).toBe("HTTP 404");
    const closed = await serve();
    const origin = closed.origin;
    await closed.close();
    const refused = await failure(safeFetch(`${origin}/`, policy, { accept: anyType }));
    expect([refused.failure, refused.reason]).toEqual(["unreachable", "connection refused"]);
    const refusedRequest = await failure(safeRequest(`${origin}/`, { method: "POST", body: Buffer.from("x") }, policy));
    expect([refusedRequest.failure, refusedRequest.reason]).toEqual(["unreachable", "connection refused"]);
  });

  it("reports unresolvable hosts", async () => {
    const error = await failure(safeFetch("http://no-such-host.invalid/", policy, { accept: anyType }));
    expect(error.failure).toBe("unreachable");
    expect(error.reason).toBe("host no-such-host.invalid could not be resolved");
  });
});

describe("safeRequest under the telemetry preload every process runs", () => {
  it("sends the caller's headers intact (OpenTelemetry's http instrumentation wraps the request)", async () => {
    const site = await serve();
    try {
      // A process as deployed: the preload, then a request with an Authorization header.
      const { spawn } = await import("node:child_process");
      const runtime = new URL("../dist/index.js", import.meta.url).href;
      const preload = new URL("../dist/telemetry/preload.js", import.meta.url).href;
      const script = `
        const { safeRequest, safeFetchPolicy } = await import(${JSON.stringify(runtime)});
        const policy = safeFetchPolicy({ allowPrivateAddresses: true, service: "test" });
        const answer = await safeRequest(${JSON.stringify(`${site.origin}/missing`)}, { method: "GET", headers: [["authorization", "Bearer kept"], ["x-tag", "one"], ["x-tag", "two"]] }, policy);
        console.log(answer.status);`;
      const child = spawn(process.execPath, ["--import", preload, "--input-type=module", "-e", script], {
        env: { ...process.env, OTEL_SDK_DISABLED: "false" },
        stdio: ["ignore", "pipe", "pipe"],
      });
      let output = "";
      child.stdout.on("data", (chunk: Buffer) => (output += chunk.toString()));
      child.stderr.on("data", (chunk: Buffer) => (output += chunk.toString()));
      const code = await new Promise<number | null>((resolve) => child.once("close", resolve));
      expect(code, output).toBe(0);
      const { headers } = site.received.at(-1)!;
      expect(headers.filter(([name]) => name === "authorization")).toEqual([["authorization", "Bearer kept"]]);
      expect(headers.filter(([name]) => name === "x-tag")).toEqual([
        ["x-tag", "one"],
        ["x-tag", "two"],
      ]);
      expect(headers.some(([name]) => /^\d+$/.test(name))).toBe(false);
    } finally {
      await site.close();
    }
  });
});
