// `npm run admin -- <args>`: the identity admin CLI, built first when needed. It runs from the repo
// root so that it finds `.imprint/stack.json` (or IMPRINT_DATA_DIR) of a running `npm start`.
import { spawnSync } from "node:child_process";
import { existsSync } from "node:fs";
import { join } from "node:path";
import { prepare, REPO_ROOT, requireNode } from "./lib/setup.mjs";

await requireNode();
const cli = join(REPO_ROOT, "services", "identity", "dist", "cli", "admin.js");
if (!existsSync(cli)) prepare({ quiet: true });
const result = spawnSync(process.execPath, [cli, ...process.argv.slice(2)], { cwd: REPO_ROOT, stdio: "inherit" });
if (result.error) console.error(`could not run the admin CLI: ${result.error.message}`);
process.exit(result.status ?? 1);
