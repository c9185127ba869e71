// `npm test`: install and build when needed, then every check in order, stopping at the first
// failure: protobuf lint and breaking-change check, the Helm chart, typecheck and lint of every workspace, then all
// tests (extra arguments go to vitest). The exit code is that of the first failing step.
import { join } from "node:path";
import { build, installIfNeeded, REPO_ROOT, requireNode, run } from "./lib/setup.mjs";

await requireNode();
const color = process.stdout.isTTY && !process.env.NO_COLOR;
const paint = (code, text) => (color ? `\u001b[${code}m${text}\u001b[0m` : text);
const bin = (name) => join(REPO_ROOT, "node_modules", ".bin", name);
const vitestArgs = process.argv.slice(2);

const steps = [
  { title: "install (when needed)", run: () => installIfNeeded() },
  { title: "build (turbo run build)", run: () => build() },
  { title: "nats-server for the event tests (installed when missing)", run: () => ensureTool("ensureNatsServer") },
  { title: "chromium for the browser tests (installed when missing)", run: () => ensureTool("ensureChromium") },
  { title: "GitBook's CLI for the compatibility test (installed when missing)", run: () => ensureGitbook() },
  { title: "protobuf contracts: buf lint + buf breaking", run: () => run("npm", ["run", "check", "--workspace", "@imprint/proto"]) },
  { title: "deployment: helm lint + manifest validation", run: () => run(process.execPath, [join(REPO_ROOT, "scripts", "validate-deploy.mjs")]) },
  { title: "typecheck + lint (turbo run typecheck lint)", run: () => run(bin("turbo"), ["run", "typecheck", "lint", "--output-logs=hash-only"]) },
  { title: "formatting (npm run format:check; npm run format rewrites)", run: () => run(bin("biome"), ["format", "."]) },
  { title: "lint of the root scripts and configs (npm run lint:scripts)", run: () => run(bin("eslint"), ["scripts", "proto/scripts", "*.js"]) },
  {
    title: "dependency rules of CODE_STYLE.md (npm run deps:check)",
    run: () =>
      run(bin("depcruise"), ["services/*/src", "gateway/src", "--config", ".dependency-cruiser.js", "--output-type", "err"]) ||
      run(process.execPath, [join(REPO_ROOT, "scripts", "module-cycles.mjs")]),
  },
  { title: `tests (vitest run${vitestArgs.length ? ` ${vitestArgs.join(" ")}` : ""})`, run: () => run(bin("vitest"), ["run", ...vitestArgs]) },
];

/** The tests spawn nats-server and drive Chromium; a fresh Debian machine gets them from apt (as `npm start` gets nats-server). */
async function ensureTool(name) {
  const stack = await import("./lib/stack.mjs");
  try {
    await stack[name]();
    return 0;
  } catch (error) {
    console.error(error.message);
    return 1;
  }
}

/** The integration compatibility test publishes with GitBook's own CLI, kept in the cache folder. */
async function ensureGitbook() {
  const { ensureGitbookCli } = await import("./lib/gitbook-cli.mjs");
  try {
    ensureGitbookCli();
    return 0;
  } catch (error) {
    console.error(error.message);
    return 1;
  }
}

const started = Date.now();
for (const [index, step] of steps.entries()) {
  console.log(paint("1;34", `\n━━ [${index + 1}/${steps.length}] ${step.title}`));
  const stepStarted = Date.now();
  const status = await step.run();
  const seconds = ((Date.now() - stepStarted) / 1000).toFixed(1);
  if (status !== 0) {
    console.error(paint("1;31", `\n✖ FAILED: ${step.title} (exit ${status}, ${seconds} s)`));
    process.exit(status);
  }
  console.log(paint("32", `✔ ${step.title} (${seconds} s)`));
}
console.log(paint("1;32", `\n✔ all checks passed in ${((Date.now() - started) / 1000).toFixed(0)} s`));
