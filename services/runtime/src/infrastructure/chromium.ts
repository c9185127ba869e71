import { existsSync } from "node:fs";
import { spawnSync } from "node:child_process";

/**
 * Debian's Chromium, which the reader's browser tests drive through playwright-core and the
 * benchmark's Lighthouse audit runs in: CHROMIUM_PATH when set, else the usual install paths, else
 * `chromium` on PATH. Null when there is none.
 */
export function findChromium(): string | null {
  const configured = process.env.CHROMIUM_PATH;
  if (configured) return existsSync(configured) ? configured : null;
  for (const path of ["/usr/bin/chromium", "/usr/bin/chromium-browser", "/usr/lib/chromium/chromium"]) {
    if (existsSync(path)) return path;
  }
  for (const name of ["chromium", "chromium-browser"]) {
    const probe = spawnSync("sh", ["-c", `command -v ${name}`], { encoding: "utf8" });
    if (probe.status === 0 && probe.stdout.trim()) return probe.stdout.trim();
  }
  return null;
}

export const CHROMIUM_INSTALL_HINT =
  "Chromium was not found: install it (Debian/Ubuntu: `apt-get install chromium`) or set CHROMIUM_PATH to its binary; `npm test` installs it itself when run as root on Debian";
