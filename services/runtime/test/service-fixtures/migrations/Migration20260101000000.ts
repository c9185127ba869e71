import { Migration } from "@mikro-orm/migrations";
// Through the package (its dist), as services import it: migrations are loaded by Node itself.
import { addRuntimeTables } from "@imprint/runtime";

// Hand-written first migration of the service test, as a new service writes it: the runtime's
// tables from the runtime's helper, plus the test service's own table.
export class Migration20260101000000 extends Migration {
  async up(): Promise<void> {
    addRuntimeTables(this);
    this.addSql(`create table "notes" ("id" uuid not null, "text" varchar(255) not null, "created_at" timestamptz not null, primary key ("id"));`);
  }
}
