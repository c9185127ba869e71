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

/**
 * gRPC answers a relay in front of a gRPC server does not deliver: armed with `lose`, the relay cuts
 * the connection where the next answer (an HTTP/2 HEADERS frame of a call, from the server) would
 * begin, as a server copy killed right after its commit would, and nothing of that answer reaches
 * the client. One instance may serve several relays (copies of one service): the next answer
 * through any of them is lost.
 */
export class LostAnswers {
  private pending = 0;
  /** Answers cut so far. */
  lost = 0;

  /** Loses the next `count` answers (Infinity: every answer until `deliver`). */
  lose(count = 1): void {
    this.pending += count;
  }

  /** Delivers every answer again. */
  deliver(): void {
    this.pending = 0;
  }

  /** Whether the answer beginning now is lost (it counts as lost then). */
  take(): boolean {
    if (this.pending <= 0) return false;
    this.pending -= 1;
    this.lost += 1;
    return true;
  }
}

const HTTP2_FRAME_HEADER_BYTES = 9;
const HTTP2_HEADERS_FRAME = 0x1;

/**
 * Forwards a server's HTTP/2 frames to `client` until an answer is to be lost: then forwards the
 * bytes before that answer's first frame and cuts both connections. (A server's side of HTTP/2 is
 * frames from its first byte on: no preface.)
 */
function relayLosingAnswers(upstream: Socket, client: Socket, lostAnswers: LostAnswers): void {
  let header = Buffer.alloc(0);
  let payloadLeft = 0;
  upstream.on("data", (chunk: Buffer) => {
    let offset = 0;
    while (offset < chunk.length) {
      if (payloadLeft > 0) {
        const step = Math.min(payloadLeft, chunk.length - offset);
        payloadLeft -= step;
        offset += step;
        continue;
      }
      const needed = HTTP2_FRAME_HEADER_BYTES - header.length;
      const taken = chunk.subarray(offset, offset + needed);
      const frameStart = offset - header.length;
      header = Buffer.concat([header, taken]);
      offset += taken.length;
      if (header.length < HTTP2_FRAME_HEADER_BYTES) break;
      const streamId = header.readUInt32BE(5) & 0x7fffffff;
      if (header[3] === HTTP2_HEADERS_FRAME && streamId !== 0 && lostAnswers.take()) {
        // The part of the frame header that came in an earlier chunk was already forwarded; a cut
        // there leaves the client a torn frame, which it also reads as a lost connection.
        if (frameStart > 0) client.write(chunk.subarray(0, frameStart));
        client.destroy();
        upstream.destroy();
        return;
      }
      payloadLeft = header.readUIntBE(0, 3);
      header = Buffer.alloc(0);
    }
    client.write(chunk);
  });
}

export async function startTcpProxy(target: { host: string; port: number }, options: { lostAnswers?: LostAnswers } = {}): Promise<TcpProxy> {
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
        client.pipe(upstream);
        if (options.lostAnswers) relayLosingAnswers(upstream, client, options.lostAnswers);
        else upstream.pipe(client);
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
