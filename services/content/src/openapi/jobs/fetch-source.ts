import { safeFetch, SafeFetchError, type SafeFetchPolicy } from "@imprint/runtime";
import type { SourceFetchLimits } from "../domain/limits.js";
import { failure, type ProcessingFailure } from "./outcome.js";

export interface FetchedSource {
  bytes: Buffer;
  /** The URL that answered, after redirects. */
  url: URL;
}

/** Thrown when the processor is stopping: the job is handed back, not failed. */
export class ProcessingAborted extends Error {
  override readonly name = "ProcessingAborted";
}

/**
 * GETs the source through the SSRF guard (public targets only unless the deployment allows
 * private ones, size and time bounds, every redirect checked). Any content type is accepted:
 * specifications are served as JSON, YAML, text/plain or octet-stream alike; parsing decides.
 */
export async function fetchSource(
  sourceUrl: string,
  policy: SafeFetchPolicy,
  limits: SourceFetchLimits,
  stopSignal: AbortSignal,
): Promise<FetchedSource | ProcessingFailure> {
  const budget = AbortSignal.timeout(limits.timeoutMs);
  try {
    const fetched = await safeFetch(sourceUrl, policy, {
      signal: AbortSignal.any([stopSignal, budget]),
      accept: () => true,
      maxBodyBytes: limits.maxBytes,
    });
    return { bytes: fetched.body, url: fetched.url };
  } catch (error) {
    if (stopSignal.aborted) throw new ProcessingAborted("the processor is stopping");
    if (!(error instanceof SafeFetchError)) throw error;
    if (error.failure === "timeout") {
      const message = budget.aborted ? `the source did not answer within ${limits.timeoutMs / 1000} s` : error.reason;
      return failure("FETCH_TIMEOUT", [{ code: "timeout", message: `${sourceUrl}: ${message}` }]);
    }
    return failure("FETCH_ERROR", [{ code: error.failure, message: `${sourceUrl}: ${error.reason}` }]);
  }
}
