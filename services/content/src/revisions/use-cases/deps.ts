import type { Clock, Logger, UnitOfWork } from "@imprint/runtime";
import type { AccessDeps } from "../../access/index.js";
import type { BlobStore } from "../../blob-store.js";
import type { FileUrlSigner } from "../files/signed-url.js";
import type { RevisionCaches } from "../store/caches.js";

/** What the revision store's use cases need besides their EntityManager. */
export interface RevisionDeps extends AccessDeps {
  clock: Clock;
  /** Commits a use case's changes and events, then wakes the outbox relay. */
  unitOfWork: UnitOfWork;
  blobStore: BlobStore;
  caches: RevisionCaches;
  signer: FileUrlSigner;
  /** For the figures of long operations (merges, imports) once they are done. */
  logger: Logger;
}

