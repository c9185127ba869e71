import type { OpenApiProcessErrorCode, OpenApiProcessProblem } from "../domain/entities.js";

/** What one processing of a source produced: a document to keep, or why there is none. */
export type ProcessingOutcome = { ok: true; document: ParsedSpecDocument } | { ok: false; failure: ProcessingFailure };

export interface ProcessingFailure {
  code: OpenApiProcessErrorCode;
  problems: OpenApiProcessProblem[];
  /** Problems found in all, when `problems` was truncated (validators can report thousands). */
  problemCount: number;
}

export interface ParsedSpecDocument {
  /** SHA-256 of the fetched bytes, hex. */
  contentHash: string;
  sizeBytes: number;
  format: "json" | "yaml";
  rawText: string;
  /** The document as parsed, before dereferencing. */
  document: Record<string, unknown>;
  title: string;
  apiVersion: string;
  /** e.g. `openapi 3.1.0`, `swagger 2.0`. */
  specification: string;
}

/** Problems kept per processing; the count says how many there were. */
export const MAX_KEPT_PROBLEMS = 20;
/** Characters kept per problem message (validator messages embed a code frame). */
export const MAX_PROBLEM_MESSAGE = 2000;

export function failure(code: OpenApiProcessErrorCode, problems: OpenApiProcessProblem[], problemCount = problems.length): ProcessingFailure {
  return {
    code,
    problems: problems.slice(0, MAX_KEPT_PROBLEMS).map((problem) => ({
      code: problem.code,
      message: problem.message.length > MAX_PROBLEM_MESSAGE ? `${problem.message.slice(0, MAX_PROBLEM_MESSAGE - 1)}…` : problem.message,
    })),
    problemCount: Math.max(problemCount, problems.length),
  };
}
