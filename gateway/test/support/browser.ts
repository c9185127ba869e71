import { mkdir } from "node:fs/promises";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { chromium, type Browser, type Page } from "playwright-core";
import { CHROMIUM_INSTALL_HINT, findChromium } from "@imprint/runtime/infrastructure";

/** Where browser tests save their screenshots (ignored by Git: looked at, never committed). */
export const SCREENSHOT_DIR = fileURLToPath(new URL("../../../test-results/reader/", import.meta.url));

/** Debian's Chromium, headless, driven by playwright-core (`npm test` installs it when missing). */
export async function launchChromium(): Promise<Browser> {
  const executablePath = findChromium();
  if (!executablePath) throw new Error(CHROMIUM_INSTALL_HINT);
  // Root in a container has no user namespace for Chromium's sandbox.
  const args = process.getuid?.() === 0 ? ["--no-sandbox"] : [];
  return chromium.launch({ executablePath, headless: true, args });
}

/** Saves a full-page screenshot named after what it shows. */
export async function screenshot(page: Page, name: string): Promise<string> {
  await mkdir(SCREENSHOT_DIR, { recursive: true });
  const path = join(SCREENSHOT_DIR, `${name}.png`);
  await page.screenshot({ path, fullPage: true });
  return path;
}
