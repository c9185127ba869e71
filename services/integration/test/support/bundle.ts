// Bundles a fixture integration exactly as GitBook's CLI (`gitbook publish`, @gitbook/cli 0.25)
// does, so tests run the script GitBook would have run.
import { fileURLToPath } from "node:url";
import { bundleIntegration as bundleAsGitbook } from "../../../../scripts/lib/gitbook-cli.mjs";

const bundles = new Map<string, Promise<string>>();

/** The script text of the integration in `fixtureDir` (its src/index.tsx or src/index.ts), bundled once per process. */
export function bundleIntegration(fixtureDir: string | URL): Promise<string> {
  const directory = typeof fixtureDir === "string" ? fixtureDir : fileURLToPath(fixtureDir);
  let bundle = bundles.get(directory);
  if (!bundle) {
    bundle = bundleAsGitbook(directory);
    bundles.set(directory, bundle);
  }
  return bundle;
}
