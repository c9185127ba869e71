import type { IncomingMessage, ServerResponse } from "node:http";
import { Readable } from "node:stream";
import { pipeline } from "node:stream/promises";
import { McpServer, WebStandardStreamableHTTPServerTransport } from "@modelcontextprotocol/server";
import { z } from "zod";

/**
 * What a site's MCP server reads, already restricted to one visitor: the HTTP layer builds it
 * with the same access decisions as the HTML pages (a page the visitor may not see does not exist
 * here either).
 */
export interface SiteAgentSource {
  /** The site's title, named in the server's instructions. */
  title: string;
  /** Full-text search over the pages this visitor may see, best first. */
  search(query: string, limit: number): Promise<SiteAgentHit[]>;
  /** A page by its reader URL (absolute, or a path on this site); null when the visitor has no such page. */
  getPage(url: string): Promise<SiteAgentPage | null>;
}

export interface SiteAgentHit {
  title: string;
  /** Absolute reader URL of the page (with the anchor of the matching section, if any). */
  url: string;
  /** Plain text around the match. */
  excerpt: string;
}

export interface SiteAgentPage {
  title: string;
  url: string;
  markdown: string;
}

/** Results of one searchDocumentation call at most. */
export const MCP_SEARCH_LIMIT = 10;
/** Bounds of the tools' inputs: a query like the search page's, a URL like a browser's. */
const MAX_QUERY_LENGTH = 512;
const MAX_URL_LENGTH = 2048;

/**
 * The MCP server of one site for one request: GitBook's two documentation tools,
 * `searchDocumentation` and `getPage`, over the visitor's view of the site.
 */
export function createSiteMcpServer(source: SiteAgentSource, version: string): McpServer {
  const server = new McpServer(
    { name: `${source.title} documentation`, version },
    { instructions: `Search and read the documentation of "${source.title}": searchDocumentation finds pages, getPage reads one as markdown.` },
  );
  server.registerTool(
    "searchDocumentation",
    {
      title: "Search the documentation",
      description: `Searches the documentation of ${source.title}. Answers the best matching pages, each with its title, URL and an excerpt; read one with getPage.`,
      inputSchema: z.object({ query: z.string().trim().min(1).max(MAX_QUERY_LENGTH).describe("What to look for, in words") }),
      annotations: { readOnlyHint: true, openWorldHint: false },
    },
    async ({ query }) => {
      const hits = await source.search(query, MCP_SEARCH_LIMIT);
      const text =
        hits.length === 0
          ? `No page of ${source.title} matches "${query}".`
          : hits.map((hit) => `## ${hit.title}\nURL: ${hit.url}\n\n${hit.excerpt}`).join("\n\n---\n\n");
      return { content: [{ type: "text", text }] };
    },
  );
  server.registerTool(
    "getPage",
    {
      title: "Read a page",
      description: `Reads a page of the documentation of ${source.title} as markdown, by the URL searchDocumentation answered (or any page URL of the site).`,
      inputSchema: z.object({ url: z.string().trim().min(1).max(MAX_URL_LENGTH).describe("The page's URL, or its path on the site") }),
      annotations: { readOnlyHint: true, openWorldHint: false },
    },
    async ({ url }) => {
      const page = await source.getPage(url);
      if (!page) return { isError: true, content: [{ type: "text", text: `No page of ${source.title} at ${url}.` }] };
      return { content: [{ type: "text", text: `# ${page.title}\nURL: ${page.url}\n\n${page.markdown}` }] };
    },
  );
  return server;
}

/**
 * Answers one MCP request over streamable HTTP, statelessly: a server and a transport per request
 * (no session to keep, so any reader replica can answer any request), JSON answers rather than
 * event streams. `body` is the parsed JSON body of a POST. The SDK's transport speaks web
 * `Request`/`Response`; the Node adapters it offers pull in another HTTP framework, so the two
 * conversions are done here.
 */
export async function handleMcpRequest(request: IncomingMessage, response: ServerResponse, body: unknown, server: McpServer): Promise<void> {
  const transport = new WebStandardStreamableHTTPServerTransport({ sessionIdGenerator: undefined, enableJsonResponse: true });
  response.on("close", () => {
    void transport.close();
    void server.close();
  });
  await server.connect(transport);
  await writeResponse(await transport.handleRequest(webRequestOf(request), { parsedBody: body }), response);
}

/** The request's method, URL and headers; its body was read already and goes to the transport parsed. */
function webRequestOf(request: IncomingMessage): Request {
  const headers = new Headers();
  for (const [name, value] of Object.entries(request.headers)) {
    if (value === undefined) continue;
    for (const item of Array.isArray(value) ? value : [value]) headers.append(name, item);
  }
  return new Request(new URL(request.url ?? "/", `http://${request.headers.host ?? "localhost"}`), { method: request.method, headers });
}

/**
 * Writes the transport's answer: a JSON answer whole, with its length; an event stream (a GET's)
 * as it comes, headers first, until the client goes away.
 */
async function writeResponse(answer: Response, response: ServerResponse): Promise<void> {
  const headers: Record<string, string> = {};
  answer.headers.forEach((value, name) => {
    headers[name] = value;
  });
  if (!answer.body) {
    response.writeHead(answer.status, headers).end();
    return;
  }
  if (!answer.headers.get("content-type")?.startsWith("text/event-stream")) {
    const bytes = Buffer.from(await answer.arrayBuffer());
    response.writeHead(answer.status, { ...headers, "content-length": String(bytes.length) }).end(bytes);
    return;
  }
  response.writeHead(answer.status, headers).flushHeaders();
  await pipeline(Readable.fromWeb(answer.body), response).catch(() => {
    // The client closed the stream: the transport is closed by the response's close event.
  });
}
