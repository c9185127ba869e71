import { readFileSync } from "node:fs";
import { createServer } from "node:net";

/** Linux's default range of ports the kernel hands out itself (listen(0), outgoing connections' source ports). */
const DEFAULT_EPHEMERAL_RANGE: readonly [number, number] = [32768, 60999];

/** The ports below this machine's ephemeral range that getFreePort picks from. */
const PICKED_PORTS = 12_000;

/** The kernel's ephemeral port range (Linux's default where it cannot be read). */
function ephemeralRange(): readonly [number, number] {
  try {
    const [low, high] = readFileSync("/proc/sys/net/ipv4/ip_local_port_range", "utf8").trim().split(/\s+/).map(Number);
    if (low && high && low <= high) return [low, high];
  } catch {
    // Not Linux, or /proc is hidden: the default.
  }
  return DEFAULT_EPHEMERAL_RANGE;
}

/** A port the OS picks (listen(0)). */
function kernelPickedPort(host: string): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.unref();
    server.on("error", reject);
    server.listen(0, host, () => {
      const address = server.address();
      const port = typeof address === "object" && address ? address.port : 0;
      server.close(() => resolve(port));
    });
  });
}

/**
 * A free TCP port on loopback, for a listener that starts later (its number must be known first,
 * e.g. to build public URLs on it). It is picked at random just below the kernel's ephemeral range:
 * a port the kernel picks itself may meanwhile become the source port of any outgoing connection
 * (a database pool, a gRPC channel), and the later listen fail with EADDRINUSE; below the range,
 * only an explicit bind can take it. Nothing in Imprint relies on a fixed port.
 */
export async function getFreePort(host = "127.0.0.1"): Promise<number> {
  const [low] = ephemeralRange();
  const highest = low - 1;
  const lowest = Math.max(1024, low - PICKED_PORTS);
  if (highest > lowest) {
    for (let attempt = 0; attempt < 20; attempt++) {
      const port = lowest + Math.floor(Math.random() * (highest - lowest + 1));
      if (await isPortFree(port, host)) return port;
    }
  }
  return kernelPickedPort(host);
}

/** True when nothing is bound to host:port (a listener could take it now). */
export function isPortFree(port: number, host = "127.0.0.1"): Promise<boolean> {
  return new Promise((resolve) => {
    const server = createServer();
    server.unref();
    server.once("error", () => resolve(false));
    server.listen(port, host, () => server.close(() => resolve(true)));
  });
}
