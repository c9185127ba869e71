import { maxHeaderSize, STATUS_CODES, type Server } from "node:http";
import type { Duplex } from "node:stream";
import type { Logger } from "@imprint/runtime/core";
import type { ErrorBody } from "./middleware/error-handler.js";

/**
 * Requests Node's HTTP parser refuses never reach Koa: without this, Node answers them with a
 * bare status line and no body. These are its answers (same statuses) in the API's error shape.
 */
function describeParserError(error: Error & { code?: string; reason?: unknown }): { status: number; message: string } {
  switch (error.code) {
    case "HPE_HEADER_OVERFLOW":
      return { status: 431, message: `Request line and headers exceed the limit of ${maxHeaderSize} bytes` };
    case "HPE_CHUNK_EXTENSIONS_OVERFLOW":
      return { status: 413, message: "Chunk extensions of the request body are too large" };
    case "ERR_HTTP_REQUEST_TIMEOUT":
      return { status: 408, message: "The request was not received in time" };
    default: {
      // llhttp's reasons are fixed English phrases ("Invalid method encountered"), never request bytes.
      const reason = typeof error.reason === "string" && /^[\x20-\x7e]{1,200}$/.test(error.reason) ? `: ${error.reason}` : "";
      return { status: 400, message: `Malformed HTTP request${reason}` };
    }
  }
}

/** How long a refused connection may keep sending before it is cut (its response is already out). */
const LINGER_MS = 2_000;

/** Answers HTTP parser errors with a JSON error body and closes the connection. */
export function answerParserErrors(server: Server, logger: Logger): void {
  server.on("clientError", (error: Error & { code?: string }, socket: Duplex) => {
    // A response already under way on this connection cannot be followed by another one.
    const inFlight = (socket as Duplex & { _httpMessage?: { headersSent?: boolean } })._httpMessage;
    if (error.code === "ECONNRESET" || !socket.writable || inFlight?.headersSent) {
      socket.destroy();
      return;
    }
    const { status, message } = describeParserError(error);
    logger.info("request refused by the HTTP parser", { status, reason: error.code });
    const body: ErrorBody = { error: { code: status, message } };
    const json = JSON.stringify(body);
    socket.end(
      `HTTP/1.1 ${status} ${STATUS_CODES[status] ?? ""}\r\n` +
        `Content-Type: application/json; charset=utf-8\r\nContent-Length: ${Buffer.byteLength(json)}\r\nConnection: close\r\n\r\n${json}`,
    );
    // The client may still be sending (the rest of an oversized header): reading it to the end
    // before closing keeps the kernel from resetting the connection, which would discard the answer.
    socket.resume();
    setTimeout(() => socket.destroy(), LINGER_MS).unref();
  });
}
