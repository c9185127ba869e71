import type { RevisionDeps } from "../../revisions/use-cases/deps.js";
import type { LinkCaches } from "../caches.js";

/** What the links use cases need: the revision store's read dependencies and the links caches. */
export interface LinkDeps extends RevisionDeps {
  links: LinkCaches;
}
