import { forkEm } from "@imprint/runtime";
import { deleteExpiredExports } from "../../exports/index.js";
import type { ContentDeps } from "../../service.js";
import { purgeDeletedSpaces } from "./purge-deleted-spaces.js";

/**
 * The content service's housekeeping, every PURGE_INTERVAL_MS, never two runs at once:
 * {@link purgeDeletedSpaces}, then {@link deleteExpiredExports}.
 */
export class PurgeJob {
  private timer: NodeJS.Timeout | undefined;
  private running: Promise<void> | undefined;

  constructor(private readonly deps: ContentDeps) {}

  start(): void {
    this.timer = setInterval(() => void this.runOnce(), this.deps.config.PURGE_INTERVAL_MS);
    this.timer.unref();
  }

  /** One run now (skipped when one is under way). */
  runOnce(): Promise<void> {
    this.running ??= (async () => {
      try {
        // It logs its own figures.
        await purgeDeletedSpaces(forkEm(this.deps.orm), this.deps);
      } catch (error) {
        this.deps.logger.error("purging deleted spaces failed", { err: error });
      }
      try {
        const started = performance.now();
        const { deleted, blobsDeleted } = await deleteExpiredExports(forkEm(this.deps.orm), this.deps);
        if (deleted > 0) this.deps.logger.info("deleted expired exports", { exports: deleted, blobs: blobsDeleted, duration_ms: Math.round(performance.now() - started) });
      } catch (error) {
        this.deps.logger.error("deleting expired exports failed", { err: error });
      } finally {
        this.running = undefined;
      }
    })();
    return this.running;
  }

  async stop(): Promise<void> {
    clearInterval(this.timer);
    await this.running;
  }
}
