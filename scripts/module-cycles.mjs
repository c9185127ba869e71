// Rule `content-no-module-cycles` (CODE_STYLE.md § The layout of a service): no cycle between the
// modules of a service cut into modules (services/content/src/<module>/), type-only imports
// included. dependency-cruiser checks files; this builds the graph of modules from its JSON output
// and fails, naming one import per edge, on any cycle. Run by `npm run deps:check` and `npm test`.
//   node scripts/module-cycles.mjs [--from <depcruise JSON file>]
import { spawnSync } from "node:child_process";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";

const ROOT = fileURLToPath(new URL("..", import.meta.url));
/** Services cut into modules: every folder under src/ is a module, except these. */
const SERVICES = [{ src: "services/content/src/", notModules: new Set(["migrations"]) }];

function cruise() {
  const from = process.argv.indexOf("--from");
  if (from > 0) return JSON.parse(readFileSync(process.argv[from + 1], "utf8"));
  const args = [...SERVICES.map((service) => service.src), "--config", ".dependency-cruiser.js", "--output-type", "json"];
  const result = spawnSync(join(ROOT, "node_modules", ".bin", "depcruise"), args, { cwd: ROOT, encoding: "utf8", maxBuffer: 256 * 1024 * 1024 });
  if (!result.stdout) throw new Error(`depcruise failed: ${result.stderr || result.error}`);
  return JSON.parse(result.stdout);
}

/** The module of a file, or null for a file at the service's root (service.ts, deps.ts: the assembly and its leaves). */
function moduleOf(service, path) {
  if (!path.startsWith(service.src)) return null;
  const rest = path.slice(service.src.length);
  const slash = rest.indexOf("/");
  if (slash < 0 || service.notModules.has(rest.slice(0, slash))) return null;
  return rest.slice(0, slash);
}

/** Strongly connected components of more than one module (Tarjan). */
function cycles(graph) {
  const index = new Map(),
    low = new Map(),
    stack = [],
    onStack = new Set(),
    found = [];
  const visit = (node) => {
    index.set(node, index.size);
    low.set(node, index.get(node));
    stack.push(node);
    onStack.add(node);
    for (const next of graph.get(node)?.keys() ?? []) {
      if (!index.has(next)) {
        visit(next);
        low.set(node, Math.min(low.get(node), low.get(next)));
      } else if (onStack.has(next)) low.set(node, Math.min(low.get(node), index.get(next)));
    }
    if (low.get(node) !== index.get(node)) return;
    const component = [];
    let member;
    do {
      member = stack.pop();
      onStack.delete(member);
      component.push(member);
    } while (member !== node);
    if (component.length > 1) found.push(component.sort());
  };
  for (const node of graph.keys()) if (!index.has(node)) visit(node);
  return found;
}

const { modules } = cruise();
let failed = false;
for (const service of SERVICES) {
  // module → module it imports → one import that makes the edge (to name it in the message)
  const graph = new Map();
  for (const file of modules) {
    const from = moduleOf(service, file.source);
    if (!from) continue;
    for (const dependency of file.dependencies) {
      const to = moduleOf(service, dependency.resolved);
      if (!to || to === from) continue;
      if (!graph.has(from)) graph.set(from, new Map());
      if (!graph.get(from).has(to)) graph.get(from).set(to, `${file.source} → ${dependency.resolved}`);
    }
  }
  for (const component of cycles(graph)) {
    failed = true;
    console.error(`error content-no-module-cycles: the modules ${component.join(", ")} of ${service.src} depend on each other:`);
    for (const from of component) {
      for (const [to, example] of graph.get(from) ?? []) if (component.includes(to)) console.error(`    ${from} → ${to} (e.g. ${example})`);
    }
  }
}
if (failed) {
  console.error(
    "\nA module may depend on another only if that one does not depend on it back, even through others. Move the shared piece to the module " +
      "that owns it, or turn the call into an event or a port in deps.ts that the service's root builds from the other module's façade " +
      "(as spaces' SpaceContent does).",
  );
  process.exit(1);
}
console.log(`✔ no cycle between the modules of ${SERVICES.map((service) => service.src).join(", ")}`);
