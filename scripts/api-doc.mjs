// `npm run docs:api`: writes docs/api.md (GitBook API coverage) from the built gateway's route
// table, GitBook's OpenAPI document and docs/api-differences.json. The npm script builds the
// gateway first, so the table is the one in the source.
import { readFileSync, writeFileSync } from "node:fs";
import { relative } from "node:path";
import { routeTable } from "@imprint/gateway";
import { API_DOC_FILE, buildApiDoc, loadApiDocInputs } from "./lib/api-doc.mjs";

let doc;
try {
  doc = buildApiDoc({ routes: routeTable(), ...loadApiDocInputs() });
} catch (error) {
  console.error(error.message);
  process.exit(1);
}
const { markdown, counts } = doc;
const file = relative(process.cwd(), API_DOC_FILE);
let current = "";
try {
  current = readFileSync(API_DOC_FILE, "utf8");
} catch {
  // First generation.
}
if (current === markdown) {
  console.log(`${file} is up to date`);
} else {
  writeFileSync(API_DOC_FILE, markdown);
  console.log(`wrote ${file}`);
}
console.log(`${counts.supported} supported, ${counts.different} different, ${counts.leftOut} left out, ${counts.notYet} not yet, ${counts.total} operations`);
