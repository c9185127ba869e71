import { AppError, textProblem } from "@imprint/runtime/core";
import { z } from "zod";

/**
 * Request validation with messages a client developer can act on: every message names the field
 * and the rule it broke ("title: must be at most 255 characters"). Zod's own wording is replaced
 * through a parse-level error map, so schemas only spell out a message where the rule is compound
 * (e.g. `limit`).
 */

function describeType(value: unknown): string {
  if (value === null) return "null";
  if (Array.isArray(value)) return "array";
  if (typeof value === "number" && Number.isNaN(value)) return "NaN";
  return typeof value;
}

function quote(value: unknown): string {
  return typeof value === "string" ? `"${value}"` : String(value);
}

function sizeRule(origin: string, comparison: "at most" | "at least" | "less than" | "more than", limit: unknown): string {
  switch (origin) {
    case "string":
      return limit === 1 && comparison === "at least" ? "must not be empty" : `must be ${comparison} ${String(limit)} characters`;
    case "array":
    case "set":
      return `must contain ${comparison} ${String(limit)} items`;
    default:
      return `must be ${comparison} ${String(limit)}`;
  }
}

/** Turns one raw zod issue into the rule it broke, without the field name. */
export function describeIssue(issue: z.core.$ZodRawIssue): string {
  if (issue.input === undefined && (issue.code === "invalid_type" || issue.code === "invalid_value")) return "is required";
  switch (issue.code) {
    case "invalid_type":
      if (issue.expected === "int") return "must be an integer";
      return `expected ${issue.expected}, received ${describeType(issue.input)}`;
    case "too_big":
      return sizeRule(issue.origin, issue.inclusive === false ? "less than" : "at most", issue.maximum);
    case "too_small":
      return sizeRule(issue.origin, issue.inclusive === false ? "more than" : "at least", issue.minimum);
    case "invalid_format":
      if (issue.format === "url") return "must be a valid URL";
      if (issue.format === "email") return "must be a valid e-mail address";
      if (issue.format === "regex" && "pattern" in issue) return `must match pattern ${String(issue.pattern)}`;
      return `must be a valid ${issue.format}`;
    case "invalid_value":
      return issue.values.length === 1 ? `must be ${quote(issue.values[0])}` : `must be one of ${issue.values.map(quote).join(", ")}`;
    case "not_multiple_of":
      return `must be a multiple of ${String(issue.divisor)}`;
    case "unrecognized_keys":
      return `unknown field${issue.keys.length > 1 ? "s" : ""} ${issue.keys.join(", ")}`;
    case "invalid_union":
      return "does not match any of the accepted shapes";
    default:
      return issue.message ?? "is invalid";
  }
}

/** `a.b[0].c` for a zod issue path. */
export function formatPath(path: readonly PropertyKey[]): string {
  let out = "";
  for (const segment of path) {
    if (typeof segment === "number") out += `[${segment}]`;
    else out += out === "" ? String(segment) : `.${String(segment)}`;
  }
  return out;
}

/**
 * "field: rule" for the first issue of each field (a too-short title also fails its pattern; the
 * first rule is the useful one); an issue about the whole input is labelled with `where` ("body").
 */
export function formatIssues(issues: readonly z.core.$ZodIssue[], where: string): string {
  const byField = new Map<string, string>();
  for (const issue of issues) {
    const field = formatPath(issue.path) || where;
    if (!byField.has(field)) byField.set(field, `${field}: ${issue.message}`);
  }
  return [...byField.values()].join("; ");
}

const errorMap = (issue: z.core.$ZodRawIssue) => describeIssue(issue);

/** A value met while walking an input, with the way back to its field path. */
interface Visit {
  value: unknown;
  key?: PropertyKey;
  parent?: Visit;
}

/** The field path of a visit, in a message: at most 32 segments (a body may nest far deeper). */
function fieldOf(visit: Visit, where: string): string {
  const path: PropertyKey[] = [];
  for (let at: Visit | undefined = visit; at?.key !== undefined; at = at.parent) path.push(at.key);
  path.reverse();
  const shown = formatPath(path.slice(0, 32));
  return path.length > 32 ? `${shown}…` : shown || where;
}

/**
 * "field: rule" for the first string (value or field name) in `value` that no store can hold (NUL,
 * unpaired surrogates; see textProblem), whatever the schema says of it: fields a schema ignores
 * or accepts as `unknown` are refused too. Walks with its own stack and parent links, as a JSON
 * body may nest deeper than the call stack goes.
 */
export function findUnstorableText(value: unknown, where: string): string | undefined {
  const pending: Visit[] = [{ value }];
  for (let visit = pending.pop(); visit; visit = pending.pop()) {
    const current = visit.value;
    if (typeof current === "string") {
      const problem = textProblem(current);
      if (problem) return `${fieldOf(visit, where)}: ${problem}`;
    } else if (Array.isArray(current)) {
      for (let index = current.length - 1; index >= 0; index--) pending.push({ value: current[index] as unknown, key: index, parent: visit });
    } else if (typeof current === "object" && current !== null) {
      const entries = Object.entries(current);
      for (const [key] of entries) {
        const problem = textProblem(key);
        if (problem) return `${fieldOf(visit, where)}: field names ${problem}`;
      }
      for (let index = entries.length - 1; index >= 0; index--) pending.push({ value: entries[index]![1], key: entries[index]![0], parent: visit });
    }
  }
  return undefined;
}

/**
 * Parses `value` or throws AppError invalid_argument listing every problem. Every request input
 * (path, query, body) passes here, so text no store can hold is refused here, once.
 */
export function parseInput<Schema extends z.ZodType>(schema: Schema, value: unknown, where: string): z.output<Schema> {
  const unstorable = findUnstorableText(value, where);
  if (unstorable) throw AppError.invalidArgument(unstorable);
  const result = schema.safeParse(value, { error: errorMap });
  if (result.success) return result.data;
  throw AppError.invalidArgument(formatIssues(result.error.issues, where));
}

/** Query string values arrive as strings; these parse them into the types the routes need. */
export const queryParam = {
  integer(min: number, max: number) {
    const message = `must be an integer between ${min} and ${max}`;
    return z.string({ error: message }).transform((value, ctx) => {
      const parsed = /^-?\d{1,16}$/.test(value) ? Number(value) : Number.NaN;
      if (!Number.isSafeInteger(parsed) || parsed < min || parsed > max) {
        ctx.addIssue({ code: "custom", message });
        return z.NEVER;
      }
      return parsed;
    });
  },
  boolean() {
    return z.enum(["true", "false"], { error: "must be true or false" }).transform((value) => value === "true");
  },
  string(maxLength: number) {
    return z.string().max(maxLength);
  },
};

/** Path parameters: opaque identifiers, bounded so garbage never reaches a service. */
export const pathId = () => z.string().min(1).max(128);
