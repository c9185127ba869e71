import { createServer, type Server } from "node:http";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createOrganization, createSpace, type TestOrganization } from "./support/factories.js";
import { call } from "./support/http.js";
import { startStack, type TestStack } from "./support/stack.js";

/**
 * The fetch guard on both paths that take a URL from the caller and answer at once: a website
 * import (the content service fetches it) and a Git import (the content service hands it to git).
 * Every way of writing a loopback, private or link-local address (IPv6 forms embedding an IPv4
 * address, IPv4 in decimal, octal or hex) is refused with a 400 naming IMPRINT_ALLOW_PRIVATE_FETCH,
 * before anything connects: a listener on loopback sees no connection. Before, `[::127.0.0.1]`
 * passed the guard.
 */

let stack: TestStack;
let org: TestOrganization;
let spaceId: string;
/** Listens on the loopback port the payloads name: it must never be reached. */
let listener: Server;
let port: number;
let connections = 0;

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
];

beforeAll(async () => {
  listener = createServer((_request, response) => response.end("reached"));
  listener.on("connection", () => connections++);
  await new Promise<void>((resolve) => listener.listen(0, "::", resolve));
  port = (listener.address() as { port: number }).port;
  stack = await startStack({ contentEnv: { IMPRINT_ALLOW_PRIVATE_FETCH: "false", GIT_BINARY: "/nonexistent/git" } });
  org = await createOrganization(stack);
  spaceId = (await createSpace(stack, org)).id;
}, 120_000);
afterAll(async () => {
  await stack?.stop();
  listener?.close();
});

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
});
