import { mkdir, writeFile } from "node:fs/promises";
import { dirname } from "node:path";
import * as chromeLauncher from "chrome-launcher";
import lighthouse from "lighthouse";

/** Lighthouse's four categories the reader's pages are held to, scored 0–100. */
export interface LighthouseScores {
  performance: number;
  accessibility: number;
  bestPractices: number;
  seo: number;
}

export const LIGHTHOUSE_CATEGORIES = ["performance", "accessibility", "best-practices", "seo"] as const;

/**
 * Audits one URL with Lighthouse (its default mobile emulation and throttling) in Debian's
 * Chromium, headless, and writes the HTML report to `reportPath`. Scores are Lighthouse's, ×100.
 */
export async function auditWithLighthouse(url: string, options: { chromePath: string; reportPath: string }): Promise<LighthouseScores> {
  // Root in a container has no user namespace for Chromium's sandbox.
  const sandbox = process.getuid?.() === 0 ? ["--no-sandbox"] : [];
  const chrome = await chromeLauncher.launch({ chromePath: options.chromePath, chromeFlags: ["--headless=new", "--disable-gpu", ...sandbox] });
  try {
    const result = await lighthouse(url, { port: chrome.port, output: "html", logLevel: "error", onlyCategories: [...LIGHTHOUSE_CATEGORIES] });
    if (!result) throw new Error(`Lighthouse produced no result for ${url}`);
    const { categories, runtimeError } = result.lhr;
    if (runtimeError) throw new Error(`Lighthouse could not audit ${url}: ${runtimeError.code} ${runtimeError.message}`);
    await mkdir(dirname(options.reportPath), { recursive: true });
    await writeFile(options.reportPath, typeof result.report === "string" ? result.report : result.report.join("\n"));
    const score = (id: (typeof LIGHTHOUSE_CATEGORIES)[number]) => Math.round((categories[id]?.score ?? 0) * 100);
    return { performance: score("performance"), accessibility: score("accessibility"), bestPractices: score("best-practices"), seo: score("seo") };
  } finally {
    chrome.kill();
  }
}
