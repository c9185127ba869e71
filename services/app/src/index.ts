/** The browser app: its HTTP server (the shell and the client's assets) and its settings. */
export { appConfigShape, loadAppConfig, type AppConfig } from "./config.js";
export { APP_SECURITY_HEADERS, CLIENT_DIR, startApp, type AppHandle } from "./server.js";
