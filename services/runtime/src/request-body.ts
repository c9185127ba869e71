import type { IncomingMessage, ServerResponse } from "node:http";

/**
 * Request bodies read within a bound, for the HTTP processes (the gateway, the reader). A body
 * past its bound is answered 413 while the client may still be sending it; closing the connection
 * then (or leaving the body unread) makes the kernel reset it, and the client sees EPIPE or
 * ECONNRESET instead of the answer. So the rest of a refused body is read and discarded, up to
 * {@link REFUSED_BODY_DISCARD_BYTES} and {@link REFUSED_BODY_DISCARD_MS}, and the connection stays
 * usable; only a body beyond that is cut off (after the answer was sent).
 */

/** Bytes of a refused body read and thrown away so its sender reads the 413; past them the connection is closed. */
export const REFUSED_BODY_DISCARD_BYTES = 64 * 1024 * 1024;
/** Time a refused body may take to arrive in full before the connection is closed. */
export const REFUSED_BODY_DISCARD_MS = 30_000;

/**
 * Whether a body declared this long is worth discarding: beyond the bound it is refused on its
 * Content-Length with `Connection: close`, and the connection is closed after the answer.
 */
export function discardableBodyLength(declared: number): boolean {
  return !(declared > REFUSED_BODY_DISCARD_BYTES);
}

/**
 * Reads and discards what is left of a refused request body, so the client finishes sending and
 * reads the answer; closes the connection (once the answer is sent) when more than the bound
 * arrives or it takes longer than the time bound.
 */
export function discardRefusedBody(request: IncomingMessage, response: ServerResponse): void {
  if (request.complete || request.destroyed) return;
  let discarded = 0;
  const close = () => {
    finish();
    // The answer first: destroying before it is flushed would lose it.
    if (response.writableFinished) request.socket.destroy();
    else response.once("finish", () => request.socket.destroy());
  };
  const timer = setTimeout(close, REFUSED_BODY_DISCARD_MS);
  timer.unref();
  const onData = (chunk: Buffer) => {
    discarded += chunk.length;
    if (discarded > REFUSED_BODY_DISCARD_BYTES) close();
  };
  const finish = () => {
    clearTimeout(timer);
    request.off("data", onData);
    request.off("end", finish);
    request.off("close", finish);
    request.off("error", finish);
  };
  request.on("data", onData);
  request.once("end", finish);
  request.once("close", finish);
  request.once("error", finish);
  request.resume();
}

/**
 * The body when it holds at most `limitBytes`, else null (declared or streamed past the bound: the
 * rest is discarded by {@link discardRefusedBody} and the caller answers 413). Listens rather than
 * iterating (`for await`): leaving an async iterator early destroys the socket.
 */
export function readBoundedBody(request: IncomingMessage, response: ServerResponse, limitBytes: number): Promise<Buffer | null> {
  const declared = Number(request.headers["content-length"] ?? Number.NaN);
  if (declared > limitBytes) {
    if (discardableBodyLength(declared)) discardRefusedBody(request, response);
    else response.setHeader("Connection", "close");
    return Promise.resolve(null);
  }
  return new Promise<Buffer | null>((resolve, reject) => {
    const chunks: Buffer[] = [];
    let received = 0;
    const cleanup = () => {
      request.off("data", onData);
      request.off("end", onEnd);
      request.off("error", onError);
    };
    const onData = (chunk: Buffer) => {
      received += chunk.length;
      if (received > limitBytes) {
        cleanup();
        discardRefusedBody(request, response);
        resolve(null);
        return;
      }
      chunks.push(chunk);
    };
    const onEnd = () => {
      cleanup();
      resolve(Buffer.concat(chunks, received));
    };
    const onError = (error: Error) => {
      cleanup();
      reject(error);
    };
    request.on("data", onData);
    request.on("end", onEnd);
    request.on("error", onError);
  });
}
