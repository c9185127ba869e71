import { Migration } from "@mikro-orm/migrations";
import { addProcessedEventsAgeIndex } from "@imprint/runtime";

/** The index the processed-events pruning job scans by age (the runtime's definition). */
export class Migration20261128161000 extends Migration {
  override name = "Migration20261128161000";

  override up(): void | Promise<void> {
    addProcessedEventsAgeIndex(this);
  }
}
