import { spawn, spawnSync, type ChildProcess } from "node:child_process";
import { mkdir } from "node:fs/promises";
import { getFreePort } from "./ports.js";

export interface NatsServerHandle {
  url: string;
  port: number;
  process: ChildProcess;
  stop(): Promise<void>;
}

/** The nats-server binary on PATH (or NATS_SERVER_BIN), or null. */
export function findNatsServer(): string | null {
  const candidate = process.env.NATS_SERVER_BIN ?? "nats-server";
  const probe = spawnSync(candidate, ["--version"], { encoding: "utf8" });
  if (probe.status === 0) return candidate;
  for (const path of ["/usr/sbin/nats-server", "/usr/bin/nats-server", "/usr/local/bin/nats-server"]) {
    if (spawnSync(path, ["--version"]).status === 0) return path;
  }
  return null;
}

export const NATS_INSTALL_HINT =
  "nats-server was not found: install it (Debian/Ubuntu: `apt-get install nats-server`; elsewhere: https://docs.nats.io/running-a-nats-service/introduction/installation), set NATS_SERVER_BIN to its path, or set NATS_URL to an existing server";

/** Starts nats-server with JetStream on loopback; resolves once it reports ready. */
export async function startNatsServer(options: { storeDir: string; port?: number; onLog?: (line: string) => void }): Promise<NatsServerHandle> {
  const binary = findNatsServer();
  if (!binary) throw new Error(NATS_INSTALL_HINT);
  await mkdir(options.storeDir, { recursive: true });
  const port = options.port ?? (await getFreePort());
  const child = spawn(binary, ["-js", "-a", "127.0.0.1", "-p", String(port), "-sd", options.storeDir], {
    stdio: ["ignore", "pipe", "pipe"],
  });
  const log = options.onLog ?? (() => {});
  await new Promise<void>((resolve, reject) => {
    let output = "";
    const timer = setTimeout(() => reject(new Error(`nats-server did not become ready:\n${output}`)), 15_000);
    const onData = (chunk: Buffer) => {
      const text = chunk.toString();
      output += text;
      for (const line of text.split("\n")) if (line.trim()) log(line);
      if (output.includes("Server is ready")) {
        clearTimeout(timer);
        resolve();
      }
    };
    child.stdout.on("data", onData);
    child.stderr.on("data", onData);
    child.once("exit", (code) => {
      clearTimeout(timer);
      reject(new Error(`nats-server exited with code ${code}:\n${output}`));
    });
  });
  return {
    url: `nats://127.0.0.1:${port}`,
    port,
    process: child,
    // nats-server exits 0 on SIGINT (1 on SIGTERM).
    stop: () =>
      new Promise<void>((resolve) => {
        if (child.exitCode !== null) return resolve();
        child.once("exit", () => resolve());
        child.kill("SIGINT");
      }),
  };
}
