import type { Middleware } from "koa";
import type { GatewayState } from "../context.js";

/**
 * A JSON answer kept as chunks of bytes (a page tree, a page, a published view with its scripts),
 * written by {@link writeChunkedBodies}: neither copied into one buffer nor turned into a stream,
 * whose pipeline (a Readable, an AbortController and its DOMException, end-of-stream listeners)
 * took a tenth of the gateway's CPU on the hottest kept answers.
 */
export class ChunkedBody {
  readonly length: number;

  constructor(readonly chunks: readonly Buffer[]) {
    this.length = chunks.reduce((sum, chunk) => sum + chunk.length, 0);
  }
}

/**
 * The outermost middleware: once everything else is done with the answer, writes a
 * {@link ChunkedBody} to the response itself, its chunks corked into one write, and takes the
 * answer from Koa (which would send it as an object's JSON). Every other body is Koa's.
 */
export function writeChunkedBodies(): Middleware<GatewayState> {
  return async (ctx, next) => {
    await next();
    const body: unknown = ctx.body;
    if (!(body instanceof ChunkedBody)) return;
    ctx.respond = false;
    const { res } = ctx;
    if (!res.headersSent) {
      ctx.type = "json";
      ctx.length = body.length;
    }
    if (!ctx.writable || ctx.method === "HEAD") {
      res.end();
      return;
    }
    // end() uncorks fully: the chunks leave in one write with the headers.
    res.cork();
    for (const chunk of body.chunks) res.write(chunk);
    res.end();
  };
}
