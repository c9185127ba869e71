// `npm run admin -- <args>`: the identity admin CLI, built first when needed. It runs from the repo
// root so that it finds `.imprint/stack.json` (or IMPRINT_DATA_DIR) of a running `npm start`.
// `npm run admin -- demo` instead publishes Imprint's own docs/ as a site, through the REST API;
// `npm run admin -- restart` has the running `npm start` replace every Node process, one at a time.
import { spawnSync } from "node:child_process";
import { existsSync, readFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { parseArgs } from "node:util";
import { DemoError, publishDemo } from "./lib/demo.mjs";
import { requestRestart } from "./lib/restart.mjs";
import { prepare, REPO_ROOT, requireNode } from "./lib/setup.mjs";

await requireNode();
if (process.argv[2] === "demo") await demo(process.argv.slice(3));
if (process.argv[2] === "restart") await restart(process.argv.slice(3));
const cli = join(REPO_ROOT, "services", "identity", "dist", "cli", "admin.js");
if (!existsSync(cli)) prepare({ quiet: true });
const result = spawnSync(process.execPath, [cli, ...process.argv.slice(2)], { cwd: REPO_ROOT, stdio: "inherit" });
if (result.error) console.error(`could not run the admin CLI: ${result.error.message}`);
process.exit(result.status ?? 1);

/** Reads a running `npm start`'s gateway URL and first-run token (or IMPRINT_API_URL / IMPRINT_TOKEN). */
async function demo(args) {
  const { values } = parseArgs({ args, options: { org: { type: "string" }, help: { type: "boolean" } } });
  if (values.help) {
    console.log(
      'Usage: npm run admin -- demo [--org <organizationId>]\n\nPublishes README.md and docs/*.md as the site "imprint-docs" of the organization (the token\'s first\nby default) and prints its reader URL. Uses IMPRINT_API_URL and IMPRINT_TOKEN when set, else the\nrunning `npm start` (stack.json and bootstrap-token in IMPRINT_DATA_DIR, default .imprint).',
    );
    process.exit(0);
  }
  const dataDir = resolve(process.env.IMPRINT_DATA_DIR || join(REPO_ROOT, ".imprint"));
  const readData = (name) => {
    try {
      return readFileSync(join(dataDir, name), "utf8");
    } catch {
      console.error(`no running \`npm start\` found (${join(dataDir, name)} is missing): start it, or set IMPRINT_API_URL and IMPRINT_TOKEN`);
      process.exit(1);
    }
  };
  const apiUrl = (process.env.IMPRINT_API_URL || JSON.parse(readData("stack.json")).gatewayUrl).replace(/\/+$/, "");
  const token = process.env.IMPRINT_TOKEN || readData("bootstrap-token").trim();
  try {
    const result = await publishDemo({ apiUrl, token, repoRoot: REPO_ROOT, organizationId: values.org });
    console.log(
      result.created
        ? `Published Imprint's documentation (${result.pages} pages): ${result.url}`
        : `The demo site is already published: ${result.url} (delete site ${result.siteId} to publish it again)`,
    );
    process.exit(0);
  } catch (error) {
    console.error(error instanceof DemoError ? error.message : `demo failed: ${error instanceof Error ? error.message : String(error)}`);
    process.exit(1);
  }
}

/** Has the running `npm start` (stack.json in IMPRINT_DATA_DIR, default .imprint) replace every Node process, and follows it. */
async function restart(args) {
  const { values } = parseArgs({ args, options: { help: { type: "boolean" } } });
  if (values.help) {
    console.log(
      "Usage: npm run admin -- restart\n\nRolling restart of the running `npm start` (found through stack.json in IMPRINT_DATA_DIR, default\n.imprint): every Node process (each copy of each service, the reader and the gateway) is replaced,\none at a time, each new one ready before the next is stopped; PostgreSQL and NATS keep running.\nIt sends the launcher SIGHUP (the same as kill -HUP <pid in stack.json>), prints each process\nreplaced and how long the whole took, and exits 0 once done, 1 if it failed.",
    );
    process.exit(0);
  }
  const dataDir = resolve(process.env.IMPRINT_DATA_DIR || join(REPO_ROOT, ".imprint"));
  process.exit(await requestRestart({ dataDir }));
}
