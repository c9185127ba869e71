/** Bounds on fetching a source. */
export interface SourceFetchLimits {
  /** Budget of the whole fetch, redirects included. */
  timeoutMs: number;
  maxBytes: number;
}

/** Bounds on parsing a fetched document. */
export interface ParseLimits {
  /** Bound on resolving the document's $refs. */
  dereferenceTimeoutMs: number;
}

/** The processing job's limits: fetching, parsing, the claim's lease and the polling interval. */
export interface OpenApiProcessingLimits extends SourceFetchLimits, ParseLimits {
  /** How long a claim holds before another worker may take the specification over. */
  leaseMs: number;
  /** How often the queue is looked at without a wake-up (other replicas' submissions, expired claims). */
  pollIntervalMs: number;
}

export const DEFAULT_OPENAPI_PROCESSING_LIMITS: OpenApiProcessingLimits = {
  timeoutMs: 30_000,
  maxBytes: 10 * 1024 * 1024,
  dereferenceTimeoutMs: 20_000,
  leaseMs: 2 * 60_000,
  pollIntervalMs: 2_000,
};
