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
        const { spaceIds } = await purgeDeletedSpaces(forkEm(this.deps.orm), this.deps);
        if (spaceIds.length > 0) this.deps.logger.info("purged deleted spaces", { count: spaceIds.length });
      } catch (error) {
        this.deps.logger.error("purging deleted spaces failed", { err: error });
      }
      try {
        const { deleted } = await deleteExpiredExports(forkEm(this.deps.orm), this.deps);
        if (deleted > 0) this.deps.logger.info("deleted expired exports", { count: deleted });
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
