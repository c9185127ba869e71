import { createServer, connect, type Server, type Socket } from "node:net";
import type { AddressInfo } from "node:net";

/**
 * A loopback TCP relay in front of a real server (PostgreSQL, a gRPC peer), so a test can take
 * that server away from one client and give it back, as a crash and restart would, without
 * stopping what other test files share: `stop()` refuses new connections and cuts the open ones,
 * `start()` listens again on the same port.
 */
export interface TcpProxy {
  /** Where clients connect, e.g. 127.0.0.1:43121. */
  readonly host: string;
  readonly port: number;
  /** `url` with its host and port replaced by the proxy's (e.g. a postgres:// URL). */
  via(url: string): string;
  /** Listens again (after `stop`) on the same port. */
  start(): Promise<void>;
  /** Refuses new connections and cuts the open ones. */
  stop(): Promise<void>;
  close(): Promise<void>;
}

export async function startTcpProxy(target: { host: string; port: number }): Promise<TcpProxy> {
  const sockets = new Set<Socket>();
  let server: Server | undefined;
  let port = 0;
  const listen = () =>
    new Promise<void>((resolve, reject) => {
      const next = createServer((client) => {
        const upstream = connect(target.port, target.host);
        for (const socket of [client, upstream]) {
          sockets.add(socket);
          socket.on("close", () => sockets.delete(socket));
          socket.on("error", () => {
            client.destroy();
            upstream.destroy();
          });
        }
        client.pipe(upstream).pipe(client);
      });
      next.once("error", reject);
      next.listen(port, "127.0.0.1", () => {
        next.off("error", reject);
        port = (next.address() as AddressInfo).port;
        server = next;
        resolve();
      });
    });
  const stop = async () => {
    const current = server;
    server = undefined;
    for (const socket of sockets) socket.destroy();
    if (current) await new Promise<void>((resolve) => current.close(() => resolve()));
  };
  await listen();
  return {
    host: "127.0.0.1",
    get port() {
      return port;
    },
    via(url) {
      const parsed = new URL(url);
      parsed.hostname = "127.0.0.1";
      parsed.port = String(port);
      return parsed.toString();
    },
    start: async () => {
      if (!server) await listen();
    },
    stop,
    close: stop,
  };
}
