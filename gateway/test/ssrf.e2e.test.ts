import { createServer, type Server } from "node:http";
import { startTestDnsServer, type TestDnsServer } from "@imprint/runtime/testing";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createOrganization, createSpace, type TestOrganization } from "./support/factories.js";
import { call } from "./support/http.js";
import { startStack, type TestStack } from "./support/stack.js";

/**
 * The fetch guard on every path that takes a URL from the caller: a website import (the content
 * service fetches it) and a Git import (the content service hands it to git), which answer at once;
 * an import run, an OpenAPI source and a development tunnel, fetched later but checked when they
 * are submitted; a file of a change request's content given by URL; an embed; a script's fetch.
 * Every way of writing a loopback, private or link-local address (IPv6 forms embedding an IPv4
 * address, IPv4 in decimal, octal or hex, names a DNS server answers with such addresses) is
 * refused with a 400 naming IMPRINT_ALLOW_PRIVATE_FETCH (an embed answers the plain link, a
 * script's fetch throws), before anything connects: a listener on loopback sees no connection.
 * Before, `[::127.0.0.1]` passed the guard. The full payload sweep (redirects, schemes,
 * credentials, rebinding) runs against the guard itself: services/runtime/test/safe-fetch.test.ts.
 */

let stack: TestStack;
let org: TestOrganization;
let spaceId: string;
/** Listens on the loopback port the payloads name: it must never be reached. */
let listener: Server;
let port: number;
let connections = 0;
/** The DNS server content and integration ask (IMPRINT_FETCH_DNS_SERVERS): names answering private addresses. */
let dns: TestDnsServer;
const NAMES: Record<string, string[]> = {
  "internal.test": ["127.0.0.1"],
  "metadata.test": ["169.254.169.254"],
  "ec2-v6.test": ["fd00:ec2::254"],
  "mapped.test": ["::ffff:127.0.0.1"],
  "mixed.test": ["93.184.216.34", "10.0.0.1"],
};

/** Hosts of the payloads: each names a loopback, private or link-local address. */
const HOSTS = [
  // IPv4-compatible (the form that passed), IPv4-mapped and -translated.
  "[::127.0.0.1]",
  "[::7f00:1]",
  "[::a9fe:a9fe]",
  "[::ffff:127.0.0.1]",
  "[::ffff:7f00:1]",
  "[::ffff:0:7f00:1]",
  "[::ffff:169.254.169.254]",
  // NAT64, 6to4, Teredo, ISATAP.
  "[64:ff9b::127.0.0.1]",
  "[64:ff9b::a00:1]",
  "[64:ff9b:1::a9fe:a9fe]",
  "[2002:7f00:1::1]",
  "[2002:a9fe:a9fe::]",
  "[2001:0:4136:e378:8000:63bf:80ff:fffe]",
  "[fe80::5efe:7f00:1]",
  "[2001:4860::5efe:a00:1]",
  // Plain IPv6 loopback and unspecified.
  "[::1]",
  "[0:0:0:0:0:0:0:1]",
  "[::]",
  // IPv4 in other notations: decimal, octal, hex, short forms.
  "2130706433",
  "0177.0.0.1",
  "0x7f.0.0.1",
  "0x7f000001",
  "127.1",
  "0",
  "0x0a.0.0.1",
  "169.254.169.254",
  "0251.0376.0251.0376",
  "0.0.0.0",
  "[fd00:ec2::254]",
  // Names the test's DNS server answers with private addresses.
  ...Object.keys(NAMES),
];

/** A representative subset for the other routes (the guard itself meets the full sweep in its own test): each notation family once. */
const SOME_HOSTS = [
  "2130706433",
  "0177.0.0.1",
  "0x7f.0.0.1",
  "127.1",
  "0.0.0.0",
  "169.254.169.254",
  "[::]",
  "[::ffff:127.0.0.1]",
  "[64:ff9b::127.0.0.1]",
  "[fd00:ec2::254]",
  "internal.test",
  "metadata.test",
  "mixed.test",
];

/** On its public endpoint, fetches every payload host and answers each outcome (what reached, or the error's message). */
const FETCHING_SCRIPT = (targetPort: number) => `
const HOSTS = ${JSON.stringify(SOME_HOSTS)};
export default { async fetch(request) {
  const form = await request.formData();
  if (JSON.parse(form.get("event")).type !== "fetch") return new Response("OK");
  const outcomes = [];
  for (const host of HOSTS) {
    try { const answer = await fetch("http://" + host + ":${targetPort}/"); outcomes.push("reached: HTTP " + answer.status); }
    catch (error) { outcomes.push(String(error && error.message)); }
  }
  return new Response(JSON.stringify(outcomes), { headers: { "content-type": "application/json" } });
} }`;

beforeAll(async () => {
  listener = createServer((_request, response) => response.end("reached"));
  listener.on("connection", () => connections++);
  await new Promise<void>((resolve) => listener.listen(0, "::", resolve));
  port = (listener.address() as { port: number }).port;
  dns = await startTestDnsServer((name) => NAMES[name] ?? []);
  const guarded = { IMPRINT_ALLOW_PRIVATE_FETCH: "false", IMPRINT_FETCH_DNS_SERVERS: dns.address };
  stack = await startStack({ contentEnv: { ...guarded, GIT_BINARY: "/nonexistent/git" }, integrationEnv: guarded });
  org = await createOrganization(stack);
  spaceId = (await createSpace(stack, org)).id;
}, 120_000);
afterAll(async () => {
  await stack?.stop();
  listener?.close();
  await dns?.close();
});

/** Each host's answer to `request`: every one 400 naming the setting. */
async function expectRefusedEach(request: (host: string) => Promise<{ status: number; body: { error: { message: string } } }>): Promise<void> {
  for (const host of SOME_HOSTS) {
    const response = await request(host);
    expect([host, response.status, response.body.error?.message]).toEqual([host, 400, expect.stringContaining("IMPRINT_ALLOW_PRIVATE_FETCH")]);
  }
}

describe("URLs naming a private address in any notation", () => {
  it("are refused by a website import with 400, before any connection", async () => {
    for (const host of HOSTS) {
      const response = await call(stack, "POST", `/v1/spaces/${spaceId}/content/import`, {
        token: org.owner.token,
        json: { source: "website", url: `http://${host}:${port}/docs` },
        notInOpenApi: "importContent exists in @gitbook/api 0.143.2 only",
      });
      expect([host, response.status, response.body.error.message]).toEqual([host, 400, expect.stringContaining("IMPRINT_ALLOW_PRIVATE_FETCH")]);
    }
    expect(connections).toBe(0);
  });

  it("are refused by a Git import with 400, before git is run", async () => {
    for (const host of HOSTS) {
      const response = await call(stack, "POST", `/v1/spaces/${spaceId}/git/import`, {
        token: org.owner.token,
        json: { url: `https://${host}:${port}/repo.git`, ref: "main" },
      });
      expect([host, response.status, response.body.error.message]).toEqual([host, 400, expect.stringContaining("IMPRINT_ALLOW_PRIVATE_FETCH")]);
    }
    // A public address passes the guard and reaches git (missing here: 503), so the refusals above are the guard's.
    expect(
      (
        await call(stack, "POST", `/v1/spaces/${spaceId}/git/import`, {
          token: org.owner.token,
          json: { url: "https://[64:ff9b::101:101]/repo.git", ref: "main" },
        })
      ).status,
    ).toBe(503);
    expect(connections).toBe(0);
  });
  it("are refused by an import run when it is started (400, nothing queued), not later in the background", async () => {
    await expectRefusedEach((host) =>
      call(stack, "POST", `/v1/org/${org.organizationId}/imports`, {
        token: org.owner.token,
        json: { source: { type: "website", url: `http://${host}:${port}/docs` }, target: { space: spaceId } },
      }),
    );
    const runs = await call(stack, "GET", `/v1/org/${org.organizationId}/imports`, { token: org.owner.token });
    expect(runs.body.items).toEqual([]);
    expect(connections).toBe(0);
  });

  it("are refused as an OpenAPI source when it is created or put (400, no specification), not later in the background", async () => {
    await expectRefusedEach((host) =>
      call(stack, "POST", `/v1/orgs/${org.organizationId}/openapi`, {
        token: org.owner.token,
        json: { slug: "internal", source: { url: `http://${host}:${port}/openapi.json` } },
      }),
    );
    await expectRefusedEach((host) =>
      call(stack, "PUT", `/v1/orgs/${org.organizationId}/openapi/internal`, {
        token: org.owner.token,
        json: { source: { url: `http://${host}:${port}/openapi.json` } },
      }),
    );
    expect((await call(stack, "GET", `/v1/orgs/${org.organizationId}/openapi/internal`, { token: org.owner.token })).status).toBe(404);
    expect(connections).toBe(0);
  });

  it("are refused as a development tunnel when it is set, and by a file of a change request's content given by URL", async () => {
    const integration = `ssrf-${spaceId.slice(0, 6).toLowerCase()}`;
    const published = await call(stack, "POST", `/v1/integrations/${integration}`, {
      token: org.owner.token,
      json: { organization: org.organizationId, title: "SSRF", description: "Fetches what it is told", scopes: [], script: FETCHING_SCRIPT(port) },
    });
    expect(published.status).toBe(200);
    await expectRefusedEach((host) =>
      call(stack, "PUT", `/v1/integrations/${integration}/dev`, { token: org.owner.token, json: { tunnelUrl: `https://${host}:${port}/tunnel` } }),
    );
    const changeRequest = await call(stack, "POST", `/v1/spaces/${spaceId}/change-requests`, { token: org.owner.token, json: { subject: "SSRF" } });
    await expectRefusedEach((host) =>
      call(stack, "POST", `/v1/spaces/${spaceId}/change-requests/${changeRequest.body.id}/content`, {
        token: org.owner.token,
        json: { changes: [{ operation: "insert_files", files: [{ name: "a.png", url: `http://${host}:${port}/a.png` }] }] },
      }),
    );

    // A script's fetch of each target throws the guard's reason.
    const fetched = await fetch(`${stack.baseUrl}/v1/integrations/${integration}/public`);
    const outcomes = (await fetched.json()) as string[];
    expect(outcomes).toHaveLength(SOME_HOSTS.length);
    SOME_HOSTS.forEach((host, index) => expect([host, outcomes[index]]).toEqual([host, expect.stringContaining("IMPRINT_ALLOW_PRIVATE_FETCH")]));
    expect(connections).toBe(0);
  });

  it("are answered as a plain link by an embed, which never reads them", async () => {
    for (const host of SOME_HOSTS) {
      const url = `http://${host}:${port}/page`;
      const response = await call(stack, "GET", `/v1/urls/embed?url=${encodeURIComponent(url)}`, { token: org.owner.token });
      expect([host, response.status, response.body.type]).toEqual([host, 200, "link"]);
    }
    expect(connections).toBe(0);
    // The names were asked of the test's DNS server, not the system's.
    expect(dns.queries.some(({ name }) => name === "metadata.test")).toBe(true);
  });
});
