import type { LighthouseFailedAudit } from "./lighthouse.js";

/** The Markdown table of the audits that cost points (weighted ones), for a report; nothing when none did. */
export function failedAuditLines(failedAudits: LighthouseFailedAudit[] | undefined): string[] {
  const weighted = (failedAudits ?? []).filter((audit) => audit.weight > 0);
  if (weighted.length === 0) return [];
  const cell = (text: string) => text.replace(/\|/g, "\\|").replace(/\n/g, " ");
  return [
    "",
    "| audit below 1 (weighted) | category | score | value |",
    "|---|---|---:|---|",
    ...weighted.map(
      (audit) => `| \`${audit.id}\` ${cell(audit.title)} | ${audit.categories.join(", ")} | ${audit.score.toFixed(2)} | ${cell(audit.displayValue ?? "")} |`,
    ),
  ];
}
