import { Migration } from "@mikro-orm/migrations";
import { addRuntimeTables } from "@imprint/runtime";

/** The runtime's job leases (which replica runs each background job), from the runtime's definition. */
export class Migration20261123120000 extends Migration {
  override name = "Migration20261123120000";

  override up(): void | Promise<void> {
    addRuntimeTables(this, ["job_leases"]);
  }
}
