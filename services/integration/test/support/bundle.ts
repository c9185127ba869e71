// Bundles a fixture integration exactly as GitBook's CLI (`gitbook publish`, @gitbook/cli 0.25)
// does, so tests run the script GitBook would have run.
import { existsSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { build } from "esbuild";
import { gitbookBuildOptions } from "../../../../scripts/lib/gitbook-cli.mjs";

const bundles = new Map<string, Promise<string>>();

/** The script text of the integration in `fixtureDir` (its src/index.tsx or src/index.ts), bundled once per process. */
export function bundleIntegration(fixtureDir: string | URL): Promise<string> {
  const directory = typeof fixtureDir === "string" ? fixtureDir : fileURLToPath(fixtureDir);
  let bundle = bundles.get(directory);
  if (!bundle) {
    bundle = bundleEntry(directory);
    bundles.set(directory, bundle);
  }
  return bundle;
}

async function bundleEntry(directory: string): Promise<string> {
  const entry = ["src/index.tsx", "src/index.ts"].map((file) => `${directory.replace(/\/?$/, "/")}${file}`).find((file) => existsSync(file));
  if (!entry) throw new Error(`No src/index.tsx or src/index.ts in the fixture ${directory}`);
  const result = await build(gitbookBuildOptions(entry));
  const output = result.outputFiles[0];
  if (!output) throw new Error(`esbuild wrote nothing for ${entry}`);
  return output.text;
}
