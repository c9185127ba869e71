import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createSiteMcpServer, handleMcpRequest, MCP_SEARCH_LIMIT, type SiteAgentSource } from "../src/mcp/site-mcp.js";

/**
 * The MCP adapter through the SDK's own client over real HTTP. The source is a plain list of pages:
 * what a visitor may see is decided by the HTTP layer (tested with the reader's routes); here the
 * adapter must answer exactly what its source gives, and refuse bad input.
 */
const PAGES = [
  { title: "Getting started", url: "http://reader.test/acme/docs/getting-started", markdown: "Install the CLI, then run `acme init`." },
  { title: "Configuration", url: "http://reader.test/acme/docs/configuration", markdown: "Settings live in `acme.toml`." },
];
const searched: { query: string; limit: number }[] = [];
const source: SiteAgentSource = {
  title: "Acme",
  async search(query, limit) {
    searched.push({ query, limit });
    return PAGES.filter((page) => page.markdown.toLowerCase().includes(query.toLowerCase())).map((page) => ({
      title: page.title,
      url: page.url,
      excerpt: page.markdown,
    }));
  },
  async getPage(url) {
    return PAGES.find((page) => page.url === url || new URL(page.url).pathname === url) ?? null;
  },
};

let server: Server;
let endpoint: URL;

beforeAll(async () => {
  server = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on("data", (chunk: Buffer) => chunks.push(chunk));
    request.on("end", () => {
      const text = Buffer.concat(chunks).toString("utf8");
      void handleMcpRequest(request, response, text ? JSON.parse(text) : undefined, createSiteMcpServer(source, "1.0.0"));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  endpoint = new URL(`http://127.0.0.1:${(server.address() as AddressInfo).port}/mcp`);
});
afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

async function connect(): Promise<Client> {
  const client = new Client({ name: "reader-test", version: "1.0.0" });
  await client.connect(new StreamableHTTPClientTransport(endpoint));
  return client;
}

const textOf = (result: Awaited<ReturnType<Client["callTool"]>>) => (result.content as { type: string; text: string }[]).map((item) => item.text).join("\n");

describe("a site's MCP server", () => {
  it("lists GitBook's two documentation tools, read-only, named after the site", async () => {
    const client = await connect();
    expect(client.getServerVersion()?.name).toBe("Acme documentation");
    const { tools } = await client.listTools();
    expect(tools.map((tool) => tool.name).sort()).toEqual(["getPage", "searchDocumentation"]);
    for (const tool of tools) expect(tool.annotations?.readOnlyHint).toBe(true);
    await client.close();
  });

  it("searches with the site's bound and reads a found page as markdown", async () => {
    const client = await connect();
    const found = await client.callTool({ name: "searchDocumentation", arguments: { query: "  acme.toml " } });
    expect(found.isError).toBeFalsy();
    expect(textOf(found)).toContain("## Configuration\nURL: http://reader.test/acme/docs/configuration");
    expect(textOf(found)).not.toContain("Getting started");
    expect(searched.at(-1)).toEqual({ query: "acme.toml", limit: MCP_SEARCH_LIMIT });

    const none = await client.callTool({ name: "searchDocumentation", arguments: { query: "kubernetes" } });
    expect(textOf(none)).toBe('No page of Acme matches "kubernetes".');

    const page = await client.callTool({ name: "getPage", arguments: { url: "/acme/docs/getting-started" } });
    expect(textOf(page)).toBe("# Getting started\nURL: http://reader.test/acme/docs/getting-started\n\nInstall the CLI, then run `acme init`.");
    await client.close();
  });

  it("answers a tool error for a page the source does not have, and refuses malformed input", async () => {
    const client = await connect();
    const missing = await client.callTool({ name: "getPage", arguments: { url: "/acme/docs/secret" } });
    expect(missing.isError).toBe(true);
    expect(textOf(missing)).toBe("No page of Acme at /acme/docs/secret.");

    const empty = await client.callTool({ name: "searchDocumentation", arguments: { query: "   " } });
    expect(empty.isError).toBe(true);
    const tooLong = await client.callTool({ name: "getPage", arguments: { url: `/${"a".repeat(3000)}` } });
    expect(tooLong.isError).toBe(true);
    await client.close();
  });
});
