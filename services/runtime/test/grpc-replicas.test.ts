import { createServer, connect, type Socket } from "node:net";
import type { AddressInfo } from "node:net";
import { afterEach, describe, expect, it } from "vitest";
import { env } from "../src/config.js";
import { checkCopiesHealth, createPromiseClient } from "../src/grpc/client.js";
import { startGrpcServer, type GrpcServerHandle } from "../src/grpc/server.js";
import { createLogger } from "../src/logger.js";
import { eventually, patient } from "../src/testing/index.js";
import { startTcpProxy, type TcpProxy } from "../src/testing/tcp-proxy.js";
import { jsonMethod } from "./support/json-method.js";

// Two copies of one hand-written service (JSON on the wire): each answer names the copy's port.
type Request = { hold?: boolean };
type Answer = { port: number };
const StoreService = {
  getThing: jsonMethod<Request, Answer>("/test.Store/GetThing"),
  createThing: jsonMethod<Request, Answer>("/test.Store/CreateThing"),
} as const;

const logger = createLogger("test", { write: () => {} });
const running: GrpcServerHandle[] = [];
/** Calls asking to be held wait until release() (so a test can kill a copy with calls in flight). */
let held: Array<() => void> = [];
let holding = 0;
const release = () => {
  for (const resolve of held) resolve();
  held = [];
};

async function copy(port = 0): Promise<GrpcServerHandle> {
  const self: { port?: number } = {};
  const answer = async ({ hold }: Request): Promise<Answer> => {
    if (hold) {
      holding++;
      await new Promise<void>((resolve) => held.push(resolve));
    }
    return { port: self.port! };
  };
  const server = await startGrpcServer({
    host: "127.0.0.1",
    port,
    logger,
    services: [{ name: "test.Store", definition: StoreService, implementation: { getThing: answer, createThing: answer } }],
  });
  self.port = server.port;
  running.push(server);
  return server;
}

/** A copy killed under its calls: its connections close with calls in flight (as after a shutdown's grace). */
function kill(server: GrpcServerHandle): void {
  server.server.forceShutdown();
}

const proxies: TcpProxy[] = [];
/** A copy reached through a relay whose cut drops every connection without a word, as kill -9 does. */
async function relayed(server: GrpcServerHandle): Promise<{ address: string; cut: () => Promise<void> }> {
  const proxy = await startTcpProxy({ host: "127.0.0.1", port: server.port });
  proxies.push(proxy);
  return { address: `${proxy.host}:${proxy.port}`, cut: () => proxy.stop() };
}

afterEach(async () => {
  release();
  holding = 0;
  await Promise.all(proxies.splice(0).map((proxy) => proxy.close()));
  await Promise.all(running.splice(0).map((server) => server.shutdown(0)));
});

/** Calls until every copy has answered one: round_robin connects to all, but not at the same instant. */
async function untilAllAnswer(client: { getThing(r: Request): Promise<Answer> }, ports: number[]): Promise<void> {
  const seen = new Set<number>();
  await eventually(
    async () => {
      seen.add((await client.getThing({})).port);
      return ports.every((port) => seen.has(port));
    },
    10_000,
    10,
  );
}

describe("a client of several copies", () => {
  it("accepts lists and dns: targets in its setting, and refuses anything else", () => {
    const address = env.grpcAddress();
    for (const ok of [
      "127.0.0.1:50051",
      "content:50051",
      "[::1]:50051",
      "127.0.0.1:50051,127.0.0.1:50052",
      "content-0.internal:7002,content-1.internal:7002",
      "dns:///imprint-content-headless:50051",
      "dns:///my-release-imprint-content-headless.imprint.svc.cluster.local:50051",
      "dns://10.0.0.10:53/content:50051",
      "ipv4:127.0.0.1:1,127.0.0.1:2",
    ]) {
      expect(address.safeParse(ok).success, ok).toBe(true);
    }
    for (const bad of ["", "content", "127.0.0.1:50051,", ",127.0.0.1:1", "http://content:50051", "dns:///content", "a:1, b:2"]) {
      expect(address.safeParse(bad).success, bad).toBe(false);
    }
  });

  it("spreads calls between the copies of a list, within 60/40", async () => {
    const [a, b] = [await copy(), await copy()];
    const client = createPromiseClient(StoreService, `${a.address},localhost:${b.port}`);
    try {
      await untilAllAnswer(client, [a.port, b.port]);
      const answers = await Promise.all(Array.from({ length: 100 }, () => client.getThing({})));
      const onA = answers.filter((answer) => answer.port === a.port).length;
      expect(onA).toBeGreaterThanOrEqual(40);
      expect(onA).toBeLessThanOrEqual(60);
    } finally {
      client.close();
    }
  });

  it.each([
    ["shut down under its calls", async (server: GrpcServerHandle) => ({ address: server.address, kill: async () => kill(server) })],
    [
      "killed (connections cut, kill -9)",
      async (server: GrpcServerHandle) => {
        const relay = await relayed(server);
        return { address: relay.address, kill: relay.cut };
      },
    ],
  ])(
    "keeps reads succeeding when a copy is %s with reads in flight; a write in flight on it fails and is not repeated",
    async (_, reach) => {
      const [a, b] = [await copy(), await copy()];
      const dying = await reach(a);
      const list = `${dying.address},${b.address}`;
      const client = createPromiseClient(StoreService, list, { defaultTimeoutMs: 30_000 });
      try {
        await untilAllAnswer(client, [a.port, b.port]);
        // Reads and writes held on both copies, then one copy killed under them.
        const reads = Array.from({ length: 20 }, () =>
          client.getThing({ hold: true }).then(
            (answer) => answer,
            (error: unknown) => error,
          ),
        );
        const writes = Array.from({ length: 4 }, () =>
          client.createThing({ hold: true }).then(
            (answer) => answer,
            (error: unknown) => error,
          ),
        );
        await eventually(async () => holding === 24, 10_000, 10);
        await dying.kill();
        // Every read in flight on the dead copy is retried on the live one, and held there too.
        await eventually(async () => holding === 24 + 10, 10_000, 10);
        release();
        const readAnswers = await Promise.all(reads);
        expect(readAnswers.filter((answer) => !("port" in (answer as object)))).toEqual([]);
        expect(new Set(readAnswers.map((answer) => (answer as Answer).port))).toEqual(new Set([b.port]));
        const writeAnswers = await Promise.all(writes);
        expect(writeAnswers.filter((answer) => (answer as Answer).port === b.port)).toHaveLength(2);
        expect(writeAnswers.filter((answer) => (answer as { code?: string }).code === "unavailable")).toHaveLength(2);

        // After the kill: every read and write lands on the live copy.
        const after = await Promise.all([
          ...Array.from({ length: 50 }, () => client.getThing({})),
          ...Array.from({ length: 10 }, () => client.createThing({})),
        ]);
        expect(new Set(after.map((answer) => answer.port))).toEqual(new Set([b.port]));
        expect(await checkCopiesHealth(list)).toEqual({ [dying.address]: "UNREACHABLE", [b.address]: "SERVING" });
      } finally {
        client.close();
      }
    },
    60_000,
  );

  it("fails a read within a second when no copy is ready", async () => {
    const [a, b] = [await copy(), await copy()];
    const client = createPromiseClient(StoreService, `${a.address},${b.address}`, { defaultTimeoutMs: 30_000 });
    try {
      await untilAllAnswer(client, [a.port, b.port]);
      kill(a);
      kill(b);
      for (let i = 0; i < 5; i++) {
        const started = Date.now();
        await expect(client.getThing({})).rejects.toMatchObject({ code: "unavailable" });
        await expect(client.createThing({})).rejects.toMatchObject({ code: "unavailable" });
        expect(Date.now() - started).toBeLessThan(patient(1_000));
      }
    } finally {
      client.close();
    }
  }, 30_000);

  it("reaches a copy through a dns:/// target, and a restarted copy again", async () => {
    const a = await copy();
    const target = `dns:///localhost:${a.port}`;
    const client = createPromiseClient(StoreService, target, { defaultTimeoutMs: 30_000 });
    try {
      await expect(client.getThing({})).resolves.toEqual({ port: a.port });
      expect(Object.values(await checkCopiesHealth(target))).toContain("SERVING");
      kill(a);
      const again = await copy(a.port);
      await eventually(async () => (await client.getThing({}).catch(() => undefined))?.port === again.port, 10_000, 50);
    } finally {
      client.close();
    }
  }, 30_000);

  it("gives the clients of one address one connection per copy when they share their channel definitions", async () => {
    const server = await copy();
    // A relay that counts the connections made through it.
    let connections = 0;
    const sockets = new Set<Socket>();
    const relay = createServer((incoming) => {
      connections++;
      const outgoing = connect(server.port, "127.0.0.1");
      for (const socket of [incoming, outgoing]) {
        sockets.add(socket);
        socket.on("error", () => socket.destroy());
        socket.on("close", () => sockets.delete(socket));
      }
      incoming.pipe(outgoing).pipe(incoming);
    });
    await new Promise<void>((resolve) => relay.listen(0, "127.0.0.1", resolve));
    const address = `127.0.0.1:${(relay.address() as AddressInfo).port}`;
    const Reads = { getThing: StoreService.getThing };
    const Writes = { createThing: StoreService.createThing };
    const clients: Array<{ close(): void }> = [];
    try {
      const channelDefinitions = [Reads, Writes];
      const reads = createPromiseClient(Reads, address, { channelDefinitions });
      const writes = createPromiseClient(Writes, address, { channelDefinitions });
      clients.push(reads, writes);
      await reads.getThing({});
      await writes.createThing({});
      expect(connections).toBe(1);

      // Without: a service config of its own (no reads to retry), so a connection of its own.
      const alone = createPromiseClient(Writes, address);
      clients.push(alone);
      await alone.createThing({});
      expect(connections).toBe(2);
    } finally {
      for (const client of clients) client.close();
      for (const socket of sockets) socket.destroy();
      await new Promise((resolve) => relay.close(resolve));
    }
  });
});
