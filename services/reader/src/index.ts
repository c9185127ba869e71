/** The reader: published sites as HTML and markdown (its HTTP server), its views and its MCP module. */
export { loadReaderConfig, readerConfigShape, type ReaderConfig } from "./config.js";
export { startReader, type ReaderHandle } from "./server.js";
export type * from "./views/model.js";
export { renderPage, renderSearch, renderStatus } from "./views/render.js";
export { readerAssets, type ReaderAsset } from "./views/assets.js";
export { createSiteMcpServer, handleMcpRequest, MCP_SEARCH_LIMIT, type SiteAgentHit, type SiteAgentPage, type SiteAgentSource } from "./mcp/site-mcp.js";
