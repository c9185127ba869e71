import { failedAuditLines } from "./lighthouse-report.js";
import type { AppBenchmarkSettings, AppFigures, AppLighthouse } from "./app.js";

/**
 * The app targets of issue 30 (docs/benchmarks.md): Lighthouse's accessibility and best practices
 * each at least 95 on the space page and on the editor page, and the space page's JavaScript at
 * most 300 KiB transferred (compressed) to show itself.
 */
export const APP_TARGETS = {
  minLighthouseScore: 95,
  maxSpaceScriptKiB: 300,
} as const;

export interface AppReport {
  settings: AppBenchmarkSettings;
  figures: AppFigures;
}

type Check = { name: string; passed: boolean; detail: string };

export function evaluateAppTargets(figures: AppFigures): Check[] {
  const checks: Check[] = [];
  for (const [what, audited] of [
    ["space page", figures.space],
    ["editor page", figures.editor],
  ] as const) {
    for (const [category, score] of [
      ["accessibility", audited.scores?.accessibility],
      ["best practices", audited.scores?.bestPractices],
    ] as const) {
      checks.push({
        name: `app: Lighthouse of the ${what}, ${category} ≥ ${APP_TARGETS.minLighthouseScore}`,
        passed: score !== undefined && score >= APP_TARGETS.minLighthouseScore,
        detail: score === undefined ? `not audited: ${audited.error ?? "no score"}` : String(score),
      });
    }
  }
  const scriptBytes = figures.space.scriptTransferBytes;
  checks.push({
    name: `app: JavaScript the space page loads, ≤ ${APP_TARGETS.maxSpaceScriptKiB} KiB transferred`,
    passed: scriptBytes !== undefined && scriptBytes > 0 && scriptBytes <= APP_TARGETS.maxSpaceScriptKiB * 1024,
    detail: scriptBytes === undefined ? `not audited: ${figures.space.error ?? "no figure"}` : `${(scriptBytes / 1024).toFixed(1)} KiB`,
  });
  return checks;
}

function auditLines(audited: AppLighthouse, what: string): string[] {
  if (!audited.scores) return ["", `Lighthouse of the ${what}: not audited (${audited.error ?? "no score"}).`];
  const { performance, accessibility, bestPractices, seo } = audited.scores;
  const lines = [
    "",
    `Lighthouse (mobile, default throttling) of the ${what}, signed in, ${audited.url}${audited.reportPath ? ` (report: \`${audited.reportPath}\`)` : ""}:`,
    "",
    "| performance | accessibility | best practices | SEO | JavaScript transferred |",
    "|---:|---:|---:|---:|---:|",
    `| ${performance} | ${accessibility} | ${bestPractices} | ${seo} | ${((audited.scriptTransferBytes ?? 0) / 1024).toFixed(1)} KiB |`,
  ];
  lines.push(...failedAuditLines(audited.failedAudits));
  return lines;
}

/** The app section of the Markdown report. */
export function formatAppReport(report: AppReport): string {
  const { figures } = report;
  return [
    "## App",
    "",
    `A space of ${figures.pages} pages (each a heading, prose, a table, a code block and a hint), read and edited by its owner signed in with a password.`,
    ...auditLines(figures.space, "space page"),
    ...auditLines(figures.editor, "editor page"),
    "",
  ].join("\n");
}
