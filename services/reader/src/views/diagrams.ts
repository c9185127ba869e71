import { createHash } from "node:crypto";
import { readdirSync } from "node:fs";
import { readFile } from "node:fs/promises";
import { createRequire } from "node:module";
import { dirname, join } from "node:path";

/**
 * Mermaid diagrams, drawn in the browser by mermaid's own ESM build, self-hosted (no CDN): only a
 * page whose body holds a diagram (`<pre class="mermaid">`, from @imprint/document) loads one module
 * script, which imports mermaid's entry, which imports the chunks of the diagram types the page
 * draws; a page without a diagram loads no byte of it. The source stays readable where no script
 * runs. The files are served under a path naming mermaid's version, so they are cached for good.
 */

const require = createRequire(import.meta.url);
const ENTRY = "mermaid.esm.min.mjs";
const CHUNKS = "chunks/mermaid.esm.min";
const DIST = dirname(require.resolve(`mermaid/dist/${ENTRY}`));
const VERSION = (require("mermaid/package.json") as { version: string }).version;
const MERMAID_BASE = `/_assets/mermaid-${VERSION}/`;
/** The files served: the entry and its chunks (no source maps), so no other path of the package is reachable. */
const FILES = new Set([
  ENTRY,
  ...readdirSync(join(DIST, CHUNKS))
    .filter((name) => name.endsWith(".mjs"))
    .map((name) => `${CHUNKS}/${name}`),
]);
const JAVASCRIPT = "text/javascript; charset=utf-8";

/** Draws every diagram of the page, in the reader's theme as the page shows it (the visitor's choice, else the system's). */
const DRAW = `import mermaid from ".${MERMAID_BASE.slice("/_assets".length)}${ENTRY}";
const root=document.documentElement,dark=root.dataset.theme?root.dataset.theme==="dark":matchMedia("(prefers-color-scheme: dark)").matches;
mermaid.initialize({startOnLoad:false,securityLevel:"strict",theme:dark?"dark":"default"});
await mermaid.run({querySelector:"pre.mermaid",suppressErrors:true});
`;

/** The module script a page with a diagram loads, at a path that changes when it (or mermaid's version) does. */
export const diagramScriptPath = `/_assets/diagrams.${createHash("sha256").update(DRAW).digest("base64url").slice(0, 12)}.js`;

export interface DiagramAsset {
  contentType: string;
  body: string | Buffer;
}

const loaded = new Map<string, Promise<Buffer>>();

/** The diagram script or a file of mermaid's build at `path` (under `/_assets/`), else undefined (at once: every request asks). */
export function diagramAsset(path: string): Promise<DiagramAsset> | undefined {
  if (path === diagramScriptPath) return Promise.resolve({ contentType: JAVASCRIPT, body: DRAW });
  if (!path.startsWith(MERMAID_BASE)) return undefined;
  const file = path.slice(MERMAID_BASE.length);
  if (!FILES.has(file)) return undefined;
  let body = loaded.get(file);
  if (!body) {
    body = readFile(join(DIST, file));
    loaded.set(file, body);
  }
  return body.then((bytes) => ({ contentType: JAVASCRIPT, body: bytes }));
}
