import type { Clock, Logger } from "@imprint/runtime";
import type { AccessDeps } from "../../access/index.js";
import type { BlobStore } from "../../blob-store.js";
import type { FileUrlSigner } from "../files/signed-url.js";
import type { RevisionCaches } from "../store/caches.js";

/** What the revision store's use cases need besides their EntityManager. */
export interface RevisionDeps extends AccessDeps {
  clock: Clock;
  /** Wakes the outbox relay after a commit that recorded events. */
  relay: { notify(): void };
  blobStore: BlobStore;
  caches: RevisionCaches;
  signer: FileUrlSigner;
  /** For the figures of long operations (merges, imports) once they are done. */
  logger: Logger;
}

