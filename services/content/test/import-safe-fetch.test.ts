import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  ALLOW_ANY_ADDRESS,
  refusedAddressReason,
  safeFetch,
  SafeFetchError,
  safeFetchPolicy,
  type SafeFetchPolicy,
} from "../src/import/domain/safe-fetch.js";
import { serveSite, type TestSite } from "./fixtures/site/server.js";

const anyType = () => true;
const htmlOnly = (type: string) => type === "text/html";

async function failure(promise: Promise<unknown>): Promise<SafeFetchError> {
  try {
    await promise;
  } catch (error) {
    if (error instanceof SafeFetchError) return error;
    throw error;
  }
  throw new Error("the fetch succeeded");
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
    ["::ffff:127.0.0.1", "loopback"],
    ["::ffff:10.0.0.1", "private"],
    ["::ffff:169.254.169.254", "linkLocal"],
    ["64:ff9b::a00:1", "rfc6052"],
    ["2002:a00:1::", "6to4"],
  ])("refuses %s (%s)", (address, range) => {
    expect(refusedAddressReason(address)).toBe(`${range} address`);
  });

  it.each(["8.8.8.8", "93.184.216.34", "172.32.0.1", "2001:4860:4860::8888", "::ffff:8.8.8.8"])("allows the public address %s", (address) => {
    expect(refusedAddressReason(address)).toBeUndefined();
  });

  it("refuses what is not an address", () => {
    expect(refusedAddressReason("example.com")).toBe("not an IP address");
  });
});

describe("safeFetch without IMPRINT_ALLOW_PRIVATE_FETCH", () => {
  let site: TestSite;
  beforeAll(async () => {
    site = await serveSite();
  });
  afterAll(() => site.close());

  const policy = safeFetchPolicy({ allowPrivateAddresses: false });

  it("refuses a loopback IP literal without connecting", async () => {
    const error = await failure(safeFetch(`${site.origin}/docs/`, policy, { accept: anyType }));
    expect(error.failure).toBe("private_address");
    expect(error.reason).toBe("127.0.0.1 is a loopback address; private and local targets are not fetched; set IMPRINT_ALLOW_PRIVATE_FETCH=true on the content service to allow them");
    expect(site.requests).toEqual([]);
  });

  it("refuses a host name that resolves to loopback (checked on the resolved address)", async () => {
    const port = new URL(site.origin).port;
    const error = await failure(safeFetch(`http://localhost:${port}/docs/`, policy, { accept: anyType }));
    expect(error.failure).toBe("private_address");
    expect(error.reason).toBe("localhost (127.0.0.1) is a loopback address; private and local targets are not fetched; set IMPRINT_ALLOW_PRIVATE_FETCH=true on the content service to allow them");
    expect(site.requests).toEqual([]);
  });

  it("refuses IPv6 and IPv4-mapped loopback literals", async () => {
    const port = new URL(site.origin).port;
    expect((await failure(safeFetch(`http://[::1]:${port}/`, policy, { accept: anyType }))).failure).toBe("private_address");
    expect((await failure(safeFetch(`http://[::ffff:127.0.0.1]:${port}/`, policy, { accept: anyType }))).failure).toBe("private_address");
  });

  it("accepts http and https URLs only", async () => {
    for (const url of ["file:///etc/passwd", "ftp://example.com/x", "gopher://example.com/", "javascript:alert(1)"]) {
      const error = await failure(safeFetch(url, policy, { accept: anyType }));
      expect(error.failure).toBe("invalid_url");
      expect(error.reason).toMatch(/only http and https/);
    }
    expect((await failure(safeFetch("not a url", policy, { accept: anyType }))).reason).toBe("not a valid absolute URL");
    expect((await failure(safeFetch("http://user:secret@example.com/", policy, { accept: anyType }))).reason).toBe(
      "URLs with credentials are not allowed",
    );
  });
});

describe("safeFetch redirects are checked hop by hop", () => {
  let allowed: TestSite;
  let forbidden: TestSite;
  beforeAll(async () => {
    // Two loopback servers; the address rule below treats 127.0.0.1 as "public" and every other
    // address as private, so the second server (on 127.0.0.2) plays the internal target.
    forbidden = await serveSite({}, "127.0.0.2");
    allowed = await serveSite({
      "/to-internal": (_request, response) => {
        response.writeHead(302, { location: `${forbidden.origin}/docs/` });
        response.end();
      },
      "/to-internal-by-name": (_request, response) => {
        response.writeHead(307, { location: `http://localhost:${new URL(forbidden.origin).port}/docs/` });
        response.end();
      },
      "/to-file": (_request, response) => {
        response.writeHead(301, { location: "file:///etc/passwd" });
        response.end();
      },
    });
  });
  afterAll(async () => {
    await allowed.close();
    await forbidden.close();
  });

  const onlyFirstLoopbackIsPublic: SafeFetchPolicy = safeFetchPolicy(
    { allowPrivateAddresses: false },
    { addressRule: (address) => (address === "127.0.0.1" ? undefined : refusedAddressReason(address)) },
  );

  it("fetches from the allowed host", async () => {
    const fetched = await safeFetch(`${allowed.origin}/docs/`, onlyFirstLoopbackIsPublic, { accept: htmlOnly });
    expect(fetched.mediaType).toBe("text/html");
    expect(fetched.body.toString()).toContain("Welcome to Acme");
  });

  it("refuses a redirect from an allowed host to a private address, before connecting to it", async () => {
    const error = await failure(safeFetch(`${allowed.origin}/to-internal`, onlyFirstLoopbackIsPublic, { accept: anyType }));
    expect(error.failure).toBe("private_address");
    expect(error.reason).toMatch(/^127\.0\.0\.2 is a loopback address/);
    expect(allowed.requests).toContain("/to-internal");
    expect(forbidden.requests).toEqual([]);
  });

  it("refuses a redirect to a host name resolving to a private address", async () => {
    // The rule lets the first hop through and applies the real rule afterwards: the redirect
    // target's name is resolved again and its address judged before any connection.
    let hops = 0;
    const firstHopOnly = safeFetchPolicy(
      { allowPrivateAddresses: false },
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

describe("safeFetch bounds (IMPRINT_ALLOW_PRIVATE_FETCH=true)", () => {
  let site: TestSite;
  const chain = (from: number) => `/hop/${from}`;
  beforeAll(async () => {
    const routes: Parameters<typeof serveSite>[0] = {
      "/big": (_request, response) => {
        response.writeHead(200, { "content-type": "text/html", "content-length": 4096 });
        response.end("x".repeat(4096));
      },
      "/big-chunked": (_request, response) => {
        // No content-length: the cap applies while streaming.
        response.writeHead(200, { "content-type": "text/html" });
        for (let i = 0; i < 16; i += 1) response.write("y".repeat(512));
        response.end();
      },
      "/slow": (_request, response) => {
        response.writeHead(200, { "content-type": "text/html" });
        response.write("<p>first bytes");
        // Never ends: the per-request bound must cut it.
      },
      "/silent": () => {
        // Never answers at all.
      },
      "/missing-location": (_request, response) => {
        response.writeHead(302);
        response.end();
      },
      "/image": (_request, response) => {
        response.writeHead(200, { "content-type": "image/png" });
        response.end(Buffer.from([0x89, 0x50, 0x4e, 0x47]));
      },
      "/relative-redirect": (_request, response) => {
        response.writeHead(303, { location: "../docs/guide/" });
        response.end();
      },
    };
    for (let i = 0; i < 8; i += 1) {
      routes[chain(i)] = (_request, response) => {
        response.writeHead(302, { location: i === 7 ? "/docs/" : chain(i + 1) });
        response.end();
      };
    }
    site = await serveSite(routes);
  });
  afterAll(() => site.close());

  const policy = safeFetchPolicy({ allowPrivateAddresses: true }, { requestTimeoutMs: 400, maxBodyBytes: 2048 });

  it("lifts the address rule", () => {
    expect(policy.addressRule).toBe(ALLOW_ANY_ADDRESS);
  });

  it("follows up to five redirects and reports the final URL", async () => {
    // /hop/3 → 4 → 5 → 6 → 7 → /docs/ is five redirects.
    const fetched = await safeFetch(`${site.origin}${chain(3)}`, policy, { accept: htmlOnly });
    expect(fetched.url.toString()).toBe(`${site.origin}/docs/`);
  });

  it("gives up after the sixth redirect", async () => {
    const error = await failure(safeFetch(`${site.origin}${chain(2)}`, policy, { accept: htmlOnly }));
    expect(error.failure).toBe("too_many_redirects");
    expect(error.reason).toBe("more than 5 redirects");
  });

  it("resolves relative redirect targets", async () => {
    const fetched = await safeFetch(`${site.origin}/relative-redirect`, policy, { accept: htmlOnly });
    expect(fetched.url.pathname).toBe("/docs/guide/");
  });

  it("refuses a redirect without Location", async () => {
    expect((await failure(safeFetch(`${site.origin}/missing-location`, policy, { accept: anyType }))).reason).toBe(
      "HTTP 302 without a Location header",
    );
  });

  it("refuses a body over the size cap, declared or streamed", async () => {
    const declared = await failure(safeFetch(`${site.origin}/big`, policy, { accept: htmlOnly }));
    expect(declared.failure).toBe("too_large");
    expect(declared.reason).toBe("response is larger than 2048 bytes");
    const streamed = await failure(safeFetch(`${site.origin}/big-chunked`, policy, { accept: htmlOnly }));
    expect(streamed.failure).toBe("too_large");
  });

  it("applies a per-call lower size cap", async () => {
    const error = await failure(safeFetch(`${site.origin}/docs/`, policy, { accept: htmlOnly, maxBodyBytes: 100 }));
    expect(error.reason).toBe("response is larger than 100 bytes");
  });

  it("bounds the time of one request, for silent servers and for trickling bodies", async () => {
    const started = Date.now();
    const silent = await failure(safeFetch(`${site.origin}/silent`, policy, { accept: anyType }));
    expect(silent.failure).toBe("timeout");
    expect(silent.reason).toBe("no complete answer within 400 ms");
    const slow = await failure(safeFetch(`${site.origin}/slow`, policy, { accept: anyType }));
    expect(slow.failure).toBe("timeout");
    expect(Date.now() - started).toBeLessThan(3_000);
  });

  it("stops when the overall budget ends", async () => {
    const error = await failure(safeFetch(`${site.origin}/silent`, safeFetchPolicy({ allowPrivateAddresses: true }), {
      accept: anyType,
      signal: AbortSignal.timeout(150),
    }));
    expect(error.reason).toBe("the import's time limit was reached");
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
    const closed = await serveSite();
    const origin = closed.origin;
    await closed.close();
    const refused = await failure(safeFetch(`${origin}/`, policy, { accept: anyType }));
    expect(refused.failure).toBe("unreachable");
    expect(refused.reason).toBe("connection refused");
  });

  it("reports unresolvable hosts", async () => {
    const error = await failure(safeFetch("http://no-such-host.invalid/", policy, { accept: anyType }));
    expect(error.failure).toBe("unreachable");
    expect(error.reason).toBe("host no-such-host.invalid could not be resolved");
  });
});
