// After `vite build`: a gzip and a brotli copy beside each text asset of dist/client, so the server
// sends precompressed bytes (no compression per request) and the size check reads real sizes.
import { readdir, readFile, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { brotliCompressSync, constants, gzipSync } from "node:zlib";

const ROOT = join(import.meta.dirname, "..", "dist", "client");
const TEXT = /\.(?:js|css|html|svg|json|txt|map)$/;

for (const entry of await readdir(ROOT, { recursive: true, withFileTypes: true })) {
  if (!entry.isFile() || !TEXT.test(entry.name)) continue;
  const path = join(entry.parentPath, entry.name);
  const bytes = await readFile(path);
  await writeFile(`${path}.gz`, gzipSync(bytes, { level: 9 }));
  await writeFile(`${path}.br`, brotliCompressSync(bytes, { params: { [constants.BROTLI_PARAM_QUALITY]: 11 } }));
}
