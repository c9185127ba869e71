import { createHash } from "node:crypto";
import { readdirSync } from "node:fs";
import { readFile } from "node:fs/promises";
import { createRequire } from "node:module";
import { dirname, join } from "node:path";
import { promisify } from "node:util";
import { gzip } from "node:zlib";

/**
 * Mermaid diagrams, drawn in the browser by mermaid's own ESM build, self-hosted (no CDN): only a
 * page whose body holds a diagram (`<pre class="mermaid">`, from @imprint/document) loads one module
 * script, which imports mermaid's entry, which imports the chunks of the diagram types the page
 * draws; a page without a diagram loads no byte of it. The source stays readable where no script
 * runs. The files are served under a path naming mermaid's version, so they are cached for good,
 * and gzipped (once, when first asked) for browsers that take it: mermaid's chunks are large. The
 * script waits for the page's load, and for a diagram to come near the screen, before it fetches
 * mermaid, so the page's text paints first.
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

/**
 * Draws each diagram of the page once the page has loaded and the diagram comes near the screen
 * (200 px before it shows), in the reader's theme as the page shows it (the visitor's choice, else
 * the system's): mermaid's script costs seconds of a slow phone's main thread, so a page whose
 * diagrams are further down costs nothing of it until the visitor scrolls to them.
 */
const DRAW = `let loading;
const mermaid=()=>loading??=import(".${MERMAID_BASE.slice("/_assets".length)}${ENTRY}").then(({default:m})=>{
const root=document.documentElement,dark=root.dataset.theme?root.dataset.theme==="dark":matchMedia("(prefers-color-scheme: dark)").matches;
m.initialize({startOnLoad:false,securityLevel:"strict",theme:dark?"dark":"default"});return m});
const start=()=>{const near=new IntersectionObserver(entries=>{for(const entry of entries){if(!entry.isIntersecting)continue;
near.unobserve(entry.target);mermaid().then(m=>m.run({nodes:[entry.target],suppressErrors:true}))}},{rootMargin:"200px"});
for(const diagram of document.querySelectorAll("pre.mermaid"))near.observe(diagram)};
if(document.readyState==="complete")start();else addEventListener("load",start,{once:true});
`;

/** The module script a page with a diagram loads, at a path that changes when it (or mermaid's version) does. */
export const diagramScriptPath = `/_assets/diagrams.${createHash("sha256").update(DRAW).digest("base64url").slice(0, 12)}.js`;

export interface DiagramAsset {
  contentType: string;
  body: string | Buffer;
  /** "gzip" when the body is gzipped (asked for with `gzip`). */
  encoding?: "gzip";
}

const loaded = new Map<string, Promise<{ plain: Buffer; gzipped: Buffer }>>();
const gzipped = promisify(gzip);

/**
 * The diagram script or a file of mermaid's build at `path` (under `/_assets/`), gzipped when
 * `gzipAccepted`; else undefined, at once (every request asks).
 */
export function diagramAsset(path: string, gzipAccepted = false): Promise<DiagramAsset> | undefined {
  if (path === diagramScriptPath) return Promise.resolve({ contentType: JAVASCRIPT, body: DRAW });
  if (!path.startsWith(MERMAID_BASE)) return undefined;
  const file = path.slice(MERMAID_BASE.length);
  if (!FILES.has(file)) return undefined;
  let bodies = loaded.get(file);
  if (!bodies) {
    bodies = readFile(join(DIST, file)).then(async (plain) => ({ plain, gzipped: await gzipped(plain) }));
    loaded.set(file, bodies);
  }
  return bodies.then((body) =>
    gzipAccepted ? { contentType: JAVASCRIPT, body: body.gzipped, encoding: "gzip" } : { contentType: JAVASCRIPT, body: body.plain },
  );
}
