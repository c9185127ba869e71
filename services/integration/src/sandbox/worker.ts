// Entry of a sandbox worker thread (started by pool.ts). QuickJS runs here, so a script that loops
// blocks only this thread: the interrupt handler stops it, and the pool replaces a thread that stops
// answering altogether.
import { parentPort, workerData } from "node:worker_threads";
import { SandboxEngine } from "./engine.js";
import type { ToWorkerMessage, WorkerSettings } from "./protocol.js";

if (!parentPort) throw new Error("The sandbox worker runs in a worker thread started by createSandboxPool");
const port = parentPort;
const engine = new SandboxEngine(workerData as WorkerSettings, (message, transfer) => port.postMessage(message, transfer));

port.on("message", (message: ToWorkerMessage) => {
  if (message.type === "fetch-settled") {
    engine.fetchSettled(message);
    return;
  }
  engine.run(message).catch((error: unknown) => {
    // A bug in the engine, not in a script: end the thread so the pool replaces it.
    setImmediate(() => {
      throw error;
    });
  });
});

await engine.prepare();
port.postMessage({ type: "ready" });
