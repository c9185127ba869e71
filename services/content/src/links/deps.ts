import type { SafeFetchPolicy } from "@imprint/runtime";
import type { LinkCaches } from "./domain/caches.js";
import type { RevisionDeps } from "../deps.js";

/**
 * What the links use cases need: the revision store's read dependencies and the links caches. Kept
 * in the module rather than in the service's deps.ts: the caches hold the revision store's types
 * (through its façade), and deps.ts stays a leaf.
 */
export interface LinkDeps extends RevisionDeps {
  links: LinkCaches;
  /** The fetch guard's policy, for the pages embeds are read from. */
  fetchPolicy: SafeFetchPolicy;
}
