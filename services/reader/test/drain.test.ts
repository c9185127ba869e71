import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { testLogger } from "@imprint/runtime/testing";
import { loadReaderConfig } from "../src/config.js";
import { startReader, type ReaderHandle } from "../src/server.js";

// The reader's half of a graceful stop (SIGTERM: drain, then stop), over HTTP. Its probes need no
// upstream, so none runs: the upstream addresses are a closed port.

let reader: ReaderHandle;

beforeAll(async () => {
  const config = loadReaderConfig({
    READER_PORT: "0",
    PUBLISHING_GRPC_ADDRESS: "127.0.0.1:1",
    CONTENT_GRPC_ADDRESS: "127.0.0.1:1",
    LOG_LEVEL: "error",
    SHUTDOWN_GRACE_MS: "1000",
  });
  reader = await startReader(config, { logger: testLogger("reader") });
});
afterAll(() => reader?.stop());

describe("draining before a stop", () => {
  it("answers /readyz 503 at once while still answering requests, each on a connection it then closes; after stop nothing listens", async () => {
    expect((await fetch(`${reader.url}/readyz`)).status).toBe(200);

    const endDrain = new AbortController();
    let drained = false;
    const draining = reader.drain(endDrain.signal, 600_000).then(() => (drained = true));

    const ready = await fetch(`${reader.url}/readyz`);
    expect(ready.status).toBe(503);
    expect(ready.headers.get("cache-control")).toBe("no-store");
    const live = await fetch(`${reader.url}/healthz`);
    expect(live.status).toBe(200);
    expect(live.headers.get("connection")).toBe("close");
    // An address that names no site is answered as usual.
    expect((await fetch(`${reader.url}/robots.txt`)).status).toBe(404);
    expect(drained).toBe(false);

    endDrain.abort();
    await draining;
    await reader.stop();
    await expect(fetch(`${reader.url}/healthz`)).rejects.toThrow();
  });
});
