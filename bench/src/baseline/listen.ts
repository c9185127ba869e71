import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import type { Logger } from "@imprint/runtime";

/** A reference server of the bench (the baseline, the floor), listening. */
export interface ReferenceServer {
  url: string;
  port: number;
  stop(): Promise<void>;
}

/**
 * Serves `handle` over node:http with keep-alive like the gateway's; `release` (the database pool)
 * runs after the server closed, or when it could not listen.
 */
export async function listenReference(
  handle: (request: IncomingMessage, response: ServerResponse) => void,
  options: { name: string; host?: string; port?: number; logger: Logger; release: () => Promise<void> },
): Promise<ReferenceServer> {
  const host = options.host ?? "127.0.0.1";
  const server: Server = createServer({ keepAliveTimeout: 65_000 }, handle);
  try {
    await new Promise<void>((resolve, reject) => {
      server.once("error", reject);
      server.listen(options.port ?? 0, host, () => resolve());
    });
  } catch (error) {
    await options.release();
    throw error;
  }
  const port = (server.address() as AddressInfo).port;
  const url = `http://${host}:${port}`;
  options.logger.info(`${options.name} listening`, { url });
  return {
    url,
    port,
    stop: async () => {
      await new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeIdleConnections();
      });
      await options.release();
    },
  };
}
