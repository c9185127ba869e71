import { defineConfig } from "vite";

/**
 * The browser app's client: src/client/index.html and what it imports, bundled into dist/client
 * with hashed names under /assets/ (the server caches them for a year). Every page is its own
 * chunk (router.tsx imports each lazily); nothing is fetched from elsewhere.
 */
export default defineConfig({
  root: "src/client",
  base: "/",
  publicDir: false,
  oxc: { jsx: { runtime: "automatic", importSource: "preact" } },
  build: {
    outDir: "../../dist/client",
    emptyOutDir: true,
    assetsDir: "assets",
    target: "es2022",
    sourcemap: false,
    // The shell's inline-free policy (script-src 'self'): no module preload polyfill injected inline.
    modulePreload: { polyfill: false },
    assetsInlineLimit: 0,
  },
});
