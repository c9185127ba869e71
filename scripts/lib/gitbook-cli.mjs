// GitBook's CLI (`@gitbook/cli`), for the test that publishes an integration with it exactly as a
// GitBook developer does. Installed once into the cache folder, like Node 24, rather than into the
// workspace: its install script downloads `cloudflared` from GitHub (for `gitbook dev`'s tunnel,
// which Imprint does not need), so it is installed with `--ignore-scripts`.
import { spawnSync } from "node:child_process";
import { existsSync } from "node:fs";
import { homedir } from "node:os";
import { join } from "node:path";

export const GITBOOK_CLI_VERSION = "0.25.1";

/** Where the CLI is installed: `<cache>/gitbook-cli-<version>`. */
export function gitbookCliPrefix() {
  return join(process.env.IMPRINT_CACHE_DIR || join(homedir(), ".cache", "imprint"), `gitbook-cli-${GITBOOK_CLI_VERSION}`);
}

/** The CLI's entry point (`gitbook`), installed first when missing. */
export function ensureGitbookCli({ log = console.log } = {}) {
  const prefix = gitbookCliPrefix();
  const entry = join(prefix, "node_modules", "@gitbook", "cli", "cli.js");
  if (existsSync(entry)) return entry;
  log(`» installing @gitbook/cli@${GITBOOK_CLI_VERSION} into ${prefix} (once, without its cloudflared download)`);
  const result = spawnSync(
    "npm",
    ["install", "--prefix", prefix, "--ignore-scripts", "--no-audit", "--no-fund", "--loglevel=error", `@gitbook/cli@${GITBOOK_CLI_VERSION}`],
    {
      stdio: "inherit",
    },
  );
  if (result.status !== 0 || !existsSync(entry)) throw new Error(`could not install @gitbook/cli@${GITBOOK_CLI_VERSION} from the npm registry into ${prefix}`);
  return entry;
}

/**
 * The esbuild options `gitbook publish` (@gitbook/cli 0.25, `buildScriptFromManifest`) bundles an
 * integration's script with, for a production build written to memory.
 */
function gitbookBuildOptions(entry) {
  return {
    platform: "neutral",
    entryPoints: [entry],
    bundle: true,
    format: "esm",
    target: "es2020",
    minify: true,
    write: false,
    mainFields: ["worker", "browser", "module", "jsnext", "main"],
    conditions: ["worker", "browser", "import", "production"],
    define: { "process.env.NODE_ENV": JSON.stringify("production"), MODE: JSON.stringify("production") },
    external: ["node:*", "cloudflare:*"],
    jsx: "automatic",
    jsxImportSource: "@gitbook/runtime",
    loader: { ".raw.js": "text", ".raw.css": "text" },
    logLevel: "silent",
  };
}

/**
 * The script of the integration in `directory` (its src/index.tsx or src/index.ts), bundled exactly
 * as `gitbook publish` bundles it: the tests and the bench run the script GitBook would have run.
 * esbuild is imported here, not above: `npm test` reads this file before it installs anything.
 */
export async function bundleIntegration(directory) {
  const entry = ["src/index.tsx", "src/index.ts"].map((file) => join(directory, file)).find((file) => existsSync(file));
  if (!entry) throw new Error(`No src/index.tsx or src/index.ts in ${directory}`);
  const { build } = await import("esbuild");
  const result = await build(gitbookBuildOptions(entry));
  const output = result.outputFiles[0];
  if (!output) throw new Error(`esbuild wrote nothing for ${entry}`);
  return output.text;
}
