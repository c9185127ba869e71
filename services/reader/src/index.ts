/** The reader's public surface (its views for now; the HTTP server comes next). */
export type * from "./views/model.js";
export { renderPage, renderSearch, renderStatus } from "./views/render.js";
export { readerAssets, type ReaderAsset } from "./views/assets.js";
export { createSiteMcpServer, handleMcpRequest, MCP_SEARCH_LIMIT, type SiteAgentHit, type SiteAgentPage, type SiteAgentSource } from "./mcp/site-mcp.js";
