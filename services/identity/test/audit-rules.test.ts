import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { AUDIT_ACTIONS } from "../src/domain/audit-event.js";
import { AUDIT_RULES, CONTEXT_EVENTS, NOT_AUDITED } from "../src/consumers/audit-rules.js";

/** The lines of docs/audit.md's "### <title>" section. */
function section(title: string): string {
  const start = doc.indexOf(`### ${title}\n`);
  const end = doc.indexOf("\n#", start + 1);
  return start < 0 ? "" : doc.slice(start, end < 0 ? undefined : end);
}

/** The first backticked cells of a markdown table's rows: [event type, action?]. */
function tableRows(text: string, cells: number): string[][] {
  return text
    .split("\n")
    .filter((line) => line.startsWith("| `"))
    .map((line) => [...line.matchAll(/`([^`]+)`/g)].slice(0, cells).map((match) => match[1]!));
}

const doc = readFileSync(new URL("../../../docs/audit.md", import.meta.url), "utf8");
const everyType: string[] = Object.values(CONTEXT_EVENTS).flatMap((events) => events.map((contract): string => contract.type));
const audited = new Map(AUDIT_RULES.map((rule) => [rule.contract.type, rule]));

/** A payload whose every field is present: ids "x", one parent, the head moved, no change request. */
const anyPayload = new Proxy(
  {},
  { get: (_, key) => (key === "parents" ? ["x"] : key === "movedHead" ? true : key === "changeRequestId" ? undefined : key === "changes" ? {} : "x") },
);

describe("the audit rules", () => {
  it("audit every event type of every context or say why not, never both", () => {
    const unaccounted = everyType.filter((type) => !audited.has(type) && !(type in NOT_AUDITED));
    const both = everyType.filter((type) => audited.has(type) && type in NOT_AUDITED);
    const unknown = [...Object.keys(NOT_AUDITED), ...audited.keys()].filter((type) => !everyType.includes(type));
    expect({ unaccounted, both, unknown }).toEqual({ unaccounted: [], both: [], unknown: [] });
  });

  it("use every action they list, and list every action they use", () => {
    const used = new Set(AUDIT_RULES.flatMap((rule) => rule.changes(anyPayload, "org").map((change) => change.action)));
    expect([...used].sort()).toEqual(Object.keys(AUDIT_ACTIONS).sort());
  });

  it("are the tables of docs/audit.md", () => {
    const documented = tableRows(section("Audited"), 2);
    const expected = everyType.filter((type) => audited.has(type)).map((type) => [type, audited.get(type)!.changes(anyPayload, "org")[0]!.action]);
    expect(documented).toEqual(expected);
    expect(tableRows(section("Not audited"), 1).map(([type]) => type)).toEqual(everyType.filter((type) => type in NOT_AUDITED));
  });
});
