import { createServer, type Server } from "node:http";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { runLoad } from "../src/load.js";

// The load tool against a node:http server that answers 200 only to what it expects.
let server: Server;
let url: string;
const seen = new Set<string>();

beforeAll(async () => {
  server = createServer((request, response) => {
    let body = "";
    request.on("data", (chunk: Buffer) => (body += chunk.toString()));
    request.on("end", () => {
      seen.add(`${request.method} ${request.headers["content-type"] ?? "-"} ${request.headers.authorization ?? "-"} ${body}`);
      const expected = request.method === "GET" || (request.headers["content-type"] === "application/json" && JSON.parse(body).componentId === "counter");
      response.writeHead(expected ? 200 : 400).end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  url = `http://127.0.0.1:${(server.address() as { port: number }).port}/x`;
});
afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

describe("runLoad", () => {
  it("drives GET with the token by default, and POST with a JSON body when given one", async () => {
    const get = await runLoad({ url, token: "t1", connections: 2, durationSeconds: 1, warmupSeconds: 0 });
    const post = await runLoad({ url, token: "t2", body: { componentId: "counter", props: {} }, connections: 2, durationSeconds: 1, warmupSeconds: 0 });
    for (const result of [get, post]) {
      expect(result.total).toBeGreaterThan(10);
      expect([result.non2xx, result.errors]).toEqual([0, 0]);
    }
    expect([...seen].sort()).toEqual(["GET - Bearer t1 ", 'POST application/json Bearer t2 {"componentId":"counter","props":{}}']);
  });
});
