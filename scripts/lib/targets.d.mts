// Types of targets.mjs, for the TypeScript tests that read the table of targets.

export interface TargetEntry {
  /** IMPRINT_TARGETS name; prefix of its per-target settings (CONTENT_DATABASE_URL, …). */
  name: string;
  /** Owns a database and a gRPC server (the gateway and the reader do not). */
  service: boolean;
  /** Targets it calls over gRPC (`<NAME>_GRPC_ADDRESS`). */
  upstreams: string[];
  /** Its package's built entry, relative to the repository. */
  module: string;
  bind: (module: unknown) => unknown;
}
export const TARGETS: readonly TargetEntry[];
export const READY_MESSAGE: string;
export const TARGET_NAMES: readonly string[];
export const SERVICE_TARGET_NAMES: readonly string[];
export function loadTargets(names: readonly string[]): Promise<unknown[]>;
export function runtimeModule(path: string): Promise<unknown>;
