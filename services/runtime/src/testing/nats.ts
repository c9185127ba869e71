import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { connectNats, type NatsConnection } from "../events/nats.js";
import { startNatsServer, type NatsServerHandle } from "../infrastructure/nats.js";

/**
 * One nats-server per test file, started on first use. Each file's services create durable
 * consumers that replay their streams from the start: on a server shared by the whole run, a file
 * late in the run would first wade through every event of every earlier file (10,000-page seeds
 * included) before reaching its own. A server of its own keeps each file's event history to itself,
 * and costs ~50 ms to start.
 *
 * The state lives on globalThis because the vitest setup file (which stops the server) and the tests
 * may load this module through different paths (source and built).
 */
interface TestNatsState {
  starting?: Promise<{ handle: NatsServerHandle; storeDir: string }>;
  connecting?: Promise<NatsConnection>;
}
const STATE_KEY = Symbol.for("imprint.testing.nats");
const state = ((globalThis as Record<symbol, unknown>)[STATE_KEY] ??= {}) as TestNatsState;

/** URL of this test file's own nats-server (JetStream on, loopback, throw-away store). */
export async function testNatsUrl(): Promise<string> {
  state.starting ??= (async () => {
    const storeDir = await mkdtemp(join(tmpdir(), "imprint-test-nats-"));
    const handle = await startNatsServer({ storeDir });
    // A worker that dies without running its hooks must not leave the server behind.
    process.once("exit", () => handle.process.kill("SIGKILL"));
    return { handle, storeDir };
  })();
  return (await state.starting).handle.url;
}

/** A connection of the test's own to this file's nats-server (e.g. to read events), opened on first use. */
export async function testNats(): Promise<NatsConnection> {
  state.connecting ??= testNatsUrl().then((url) => connectNats(url, "imprint-test"));
  return state.connecting;
}

/** Stops this file's nats-server, if one was started, and removes its store (closing the test's connection first). */
export async function stopTestNats(): Promise<void> {
  const connecting = state.connecting;
  state.connecting = undefined;
  // A connection that never opened has nothing to close; its test already failed on it.
  if (connecting)
    await connecting.then(
      (nats) => nats.close(),
      () => undefined,
    );
  const starting = state.starting;
  state.starting = undefined;
  if (!starting) return;
  const { handle, storeDir } = await starting;
  await handle.stop();
  await rm(storeDir, { recursive: true, force: true });
}
