// `npm run test:durations`: keeps how long each test file took in the last `vitest run` (vitest's
// own record in node_modules/.vite/vitest) in .ci/test-durations.json, which the test sequencer
// reads to start the longest files first on a fresh clone. Run it after a full `npm test`.
import { readdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { REPO_ROOT } from "./lib/setup.mjs";

const cacheDir = join(REPO_ROOT, "node_modules", ".vite", "vitest");
const records = readdirSync(cacheDir, { withFileTypes: true })
  .filter((entry) => entry.isDirectory())
  .map((entry) => JSON.parse(readFileSync(join(cacheDir, entry.name, "results.json"), "utf8")));
const durations = {};
for (const record of records) {
  for (const project of Object.values(record.projects ?? {})) {
    for (const [file, result] of Object.entries(project.files ?? {})) {
      if (typeof result.duration === "number") durations[file] = Math.round(result.duration);
    }
  }
}
const sorted = Object.fromEntries(Object.entries(durations).sort(([a], [b]) => a.localeCompare(b)));
writeFileSync(join(REPO_ROOT, ".ci", "test-durations.json"), `${JSON.stringify(sorted, null, 2)}\n`);
const total = Object.values(sorted).reduce((sum, ms) => sum + ms, 0);
console.log(`${Object.keys(sorted).length} files, ${(total / 1000).toFixed(0)} s in all, kept in .ci/test-durations.json`);
