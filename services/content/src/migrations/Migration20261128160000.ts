import { Migration } from "@mikro-orm/migrations";
import { addRuntimeTables } from "@imprint/runtime";

/** The runtime's keyed calls (gRPC writes sent with an idempotency key, answered at most once), from the runtime's definition. */
export class Migration20261128160000 extends Migration {
  override name = "Migration20261128160000";

  override up(): void | Promise<void> {
    addRuntimeTables(this, ["idempotent_calls"]);
  }
}
