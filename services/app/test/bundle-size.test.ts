import { readFile } from "node:fs/promises";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { CLIENT_DIR } from "../src/server.js";

/**
 * The app shell's weight, as built (`npm run build`): what a browser downloads before the first
 * page shows (the entry script, the chunks it preloads, the stylesheet), compressed as served.
 * Each page, and later the editor, is a chunk of its own, loaded when opened.
 */
const INITIAL_BUDGET_BYTES = 300 * 1024;

async function builtShell() {
  const html = await readFile(join(CLIENT_DIR, "index.html"), "utf8");
  const assets = [...html.matchAll(/(?:src|href)="(\/assets\/[^"]+)"/g)].map((match) => match[1]!);
  return { html, assets };
}

describe("the app shell's initial download", () => {
  it(`stays within ${INITIAL_BUDGET_BYTES / 1024} KiB compressed (gzip and brotli)`, async () => {
    const { assets } = await builtShell();
    expect(assets.some((path) => path.endsWith(".js"))).toBe(true);
    expect(assets.some((path) => path.endsWith(".css"))).toBe(true);
    for (const encoding of [".gz", ".br"]) {
      let total = 0;
      for (const path of assets) total += (await readFile(join(CLIENT_DIR, `${path}${encoding}`))).length;
      expect(total, encoding).toBeLessThanOrEqual(INITIAL_BUDGET_BYTES);
    }
  });

  it("loads each page when it is opened: their code is not in the initial scripts", async () => {
    const { assets } = await builtShell();
    const initial = (await Promise.all(assets.filter((path) => path.endsWith(".js")).map((path) => readFile(join(CLIENT_DIR, path), "utf8")))).join("\n");
    // Words only the API tokens and reset pages show.
    expect(initial).not.toContain("Create token");
    expect(initial).not.toContain("Set the new password");
  });
});
