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

/** An audit of one of the four categories that did not score full marks. */
export interface LighthouseFailedAudit {
  id: string;
  title: string;
  /** 0–1, as Lighthouse scores an audit. */
  score: number;
  /** The categories listing it. */
  categories: string[];
  /** Its weight in those categories' scores, summed (0: a diagnostic that does not move the score). */
  weight: number;
  /** Lighthouse's figure for it, e.g. "2.1 s", when it has one. */
  displayValue?: string;
}

export interface LighthouseAudit {
  scores: LighthouseScores;
  /** JavaScript the page loaded, as transferred (compressed), in bytes: Lighthouse's resource summary. */
  scriptTransferBytes: number;
  /** The categories' audits scored below 1, those costing most points first (weighted ones are what kept a category under 100). */
  failedAudits: LighthouseFailedAudit[];
}

/**
 * Audits one URL with Lighthouse (its default mobile emulation and throttling) in Debian's
 * Chromium, headless, and writes the HTML report to `reportPath`. Scores are Lighthouse's, ×100;
 * with them, every audit of those categories that scored below 1. A trace Lighthouse failed to
 * record is audited again, in a new browser, up to three times in all.
 */
export async function auditWithLighthouse(
  url: string,
  options: { chromePath: string; reportPath: string; extraHeaders?: Record<string, string> },
): Promise<LighthouseAudit> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await auditOnce(url, options);
    } catch (error) {
      if (!(error instanceof TraceRecordingError) || attempt === TRACE_RECORDING_ATTEMPTS) throw error;
    }
  }
}

/**
 * Lighthouse's errors for a trace it failed to record ("Please run Lighthouse again"): a fault of
 * the recording on a busy machine, not of the page, unlike NO_FCP, NO_LCP or a failed load.
 */
const TRACE_RECORDING_ERRORS = new Set(["NO_TRACING_STARTED", "NO_RESOURCE_REQUEST", "NO_NAVSTART", "NO_DCL", "NO_FMP"]);
const TRACE_RECORDING_ATTEMPTS = 3;

class TraceRecordingError extends Error {}

async function auditOnce(url: string, options: { chromePath: string; reportPath: string; extraHeaders?: Record<string, string> }): Promise<LighthouseAudit> {
  // Root in a container has no user namespace for Chromium's sandbox.
  const sandbox = process.getuid?.() === 0 ? ["--no-sandbox"] : [];
  const chrome = await chromeLauncher.launch({ chromePath: options.chromePath, chromeFlags: ["--headless=new", "--disable-gpu", ...sandbox] });
  try {
    const result = await lighthouse(url, {
      port: chrome.port,
      output: "html",
      logLevel: "error",
      onlyCategories: [...LIGHTHOUSE_CATEGORIES],
      ...(options.extraHeaders ? { extraHeaders: options.extraHeaders } : {}),
    });
    if (!result) throw new Error(`Lighthouse produced no result for ${url}`);
    const { audits, categories, runtimeError } = result.lhr;
    if (runtimeError) {
      const message = `Lighthouse could not audit ${url}: ${runtimeError.code} ${runtimeError.message}`;
      throw TRACE_RECORDING_ERRORS.has(runtimeError.code) ? new TraceRecordingError(message) : new Error(message);
    }
    await mkdir(dirname(options.reportPath), { recursive: true });
    await writeFile(options.reportPath, typeof result.report === "string" ? result.report : result.report.join("\n"));
    const score = (id: (typeof LIGHTHOUSE_CATEGORIES)[number]) => Math.round((categories[id]?.score ?? 0) * 100);
    const weights = new Map<string, { categories: string[]; weight: number }>();
    for (const id of LIGHTHOUSE_CATEGORIES) {
      for (const ref of categories[id]?.auditRefs ?? []) {
        const entry = weights.get(ref.id) ?? { categories: [], weight: 0 };
        entry.categories.push(id);
        entry.weight += ref.weight;
        weights.set(ref.id, entry);
      }
    }
    const failedAudits = [...weights.entries()]
      .flatMap(([id, { categories: counted, weight }]) => {
        const audit = audits[id];
        if (!audit || audit.score === null || audit.score >= 1) return [];
        return [
          { id, title: audit.title, score: audit.score, categories: counted, weight, ...(audit.displayValue ? { displayValue: audit.displayValue } : {}) },
        ];
      })
      .sort((a, b) => b.weight * (1 - b.score) - a.weight * (1 - a.score) || a.score - b.score);
    const summary = (audits["resource-summary"]?.details as { items?: { resourceType?: string; transferSize?: number }[] } | undefined)?.items ?? [];
    const scriptTransferBytes = summary.find((item) => item.resourceType === "script")?.transferSize ?? 0;
    return {
      scriptTransferBytes,
      scores: { performance: score("performance"), accessibility: score("accessibility"), bestPractices: score("best-practices"), seo: score("seo") },
      failedAudits,
    };
  } finally {
    chrome.kill();
  }
}
